"""The page's live feed: server-sent events, one snapshot per change, coalesced, and a refresh when nothing changes.

Each accepted run bumps ``Changes.version`` and wakes every open page. A page's
stream then sends one snapshot for everything that arrived meanwhile and waits at
least ``COALESCE`` seconds before the next, so a burst of runs costs a page a few
snapshots, not one per run; with no run it still sends one every ``REFRESH``
seconds, so "stuck for N minutes" grows on screen. Pages that look at the room the
same way (language, N, M, names) share one snapshot per version (``Snapshots``):
five instructors' pages cost the server one snapshot, not five.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass
from typing import Any

COALESCE = 0.2
"""Seconds between two snapshots of one page at most once per: the page is at most this late (plus the work)."""
REFRESH = 5.0
FRESH = 1.0
"""Seconds a shared snapshot of an unchanged room is reused: its "for 12 min" moves on at most this late."""
VIEWS = 64
"""Differently-looking pages whose snapshots are kept at once."""


class Changes:
    """The room's version, and a way to wait for the next one."""

    def __init__(self) -> None:
        self.version = 0
        self._next = asyncio.Event()

    def changed(self) -> None:
        self.version += 1
        self._next.set()
        self._next = asyncio.Event()

    async def after(self, version: int, timeout: float) -> None:
        """Return once the version differs from ``version``, or after ``timeout`` seconds."""
        if self.version != version:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._next.wait(), timeout)


@dataclass(frozen=True)
class _Said:
    version: int
    at: float
    text: str


class Snapshots:
    """The snapshot a view sees, as JSON, computed once per room version (and ``FRESH`` seconds) for every page."""

    def __init__(self, changes: Changes, render: Callable[[Any, float], dict[str, Any]]) -> None:
        self.changes = changes
        self.render = render
        self._said: dict[Hashable, _Said] = {}

    def text(self, view: Hashable) -> str:
        now = time.time()
        said = self._said.get(view)
        if said is None or said.version != self.changes.version or now - said.at > FRESH:
            if len(self._said) >= VIEWS:
                self._said.clear()
            text = json.dumps(self.render(view, now), ensure_ascii=False, separators=(",", ":"))
            said = self._said[view] = _Said(self.changes.version, now, text)
        return said.text


async def stream(changes: Changes, text: Callable[[], str]) -> AsyncIterator[str]:
    """Server-sent events: ``data: {snapshot}``, forever (the response ends it when the page goes)."""
    seen = -1
    yield "retry: 2000\n\n"
    while True:
        await changes.after(seen, REFRESH)
        seen = changes.version
        yield f"data: {text()}\n\n"
        await asyncio.sleep(COALESCE)
