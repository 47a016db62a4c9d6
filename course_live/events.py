"""The page's live feed: server-sent events, one snapshot per change, coalesced, and a refresh when nothing changes.

Each accepted run bumps ``Changes.version`` and wakes every open page. A page's
stream then sends one snapshot for everything that arrived meanwhile and waits at
least ``COALESCE`` seconds before the next, so a burst of runs costs a page a few
snapshots, not one per run; with no run it still sends one every ``REFRESH``
seconds, so "stuck for N minutes" grows on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

COALESCE = 0.2
"""Seconds between two snapshots of one page at most once per: the page is at most this late (plus the work)."""
REFRESH = 5.0


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


async def stream(changes: Changes, render: Callable[[], dict[str, Any]]) -> AsyncIterator[str]:
    """Server-sent events: ``data: {snapshot}``, forever (the response ends it when the page goes)."""
    seen = -1
    yield "retry: 2000\n\n"
    while True:
        await changes.after(seen, REFRESH)
        seen = changes.version
        yield f"data: {json.dumps(render(), ensure_ascii=False, separators=(',', ':'))}\n\n"
        await asyncio.sleep(COALESCE)
