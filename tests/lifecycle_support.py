"""Small sessions for the lifecycle tests (L1–L6): readable histories, scripted models, a spy store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib import InMemorySessionStore, PathBuilder
from course_lib.lifecycle import (
    AgentSession,
    CompactionSettings,
    OfflineSummarizer,
    Reply,
    RequestBudget,
    ScriptedCall,
    ScriptedModel,
)

SMALL_WINDOW = 400
SMALL_SETTINGS = CompactionSettings(reserve_tokens=100, keep_recent_tokens=60)
SMALL_SUMMARIZER_TOKENS = 80


class SpyStore(InMemorySessionStore):
    """An in-memory store that records every append call, to pin the single append path (L5)."""

    def __init__(self) -> None:
        super().__init__()
        self.appended: list[str] = []

    def append(self, entry: Any) -> Any:
        stored = super().append(entry)
        self.appended.append(stored.id)
        return stored


def history(groups: int, *, words: int = 12, prefix: str = "h") -> PathBuilder:
    """``sys`` then ``groups`` interactions (user, tool call, result, answer) of about ``words`` words each."""
    builder = PathBuilder().system("sys", "You are a careful coding agent.")
    filler = " ".join(["detail"] * words)
    for n in range(1, groups + 1):
        builder.user(f"{prefix}u{n}", f"Step {n}: {filler}.")
        builder.assistant(f"{prefix}a{n}", "", tool_calls=[(f"{prefix}c{n}", "edit", {"path": f"file{n}.py"})])
        builder.tool_result(f"{prefix}r{n}", f"{prefix}c{n}", "edit", f"edited file{n}.py")
        builder.assistant(f"{prefix}f{n}", f"Done with step {n}. {filler}.")
    return builder


def stored(entries: Sequence[Any], store: InMemorySessionStore | None = None) -> InMemorySessionStore:
    store = store if store is not None else SpyStore()
    for entry in entries:
        store.append(entry)
    return store


def small_session(
    script: Sequence[Any] = (),
    *,
    store: InMemorySessionStore | None = None,
    window: int = SMALL_WINDOW,
    settings: CompactionSettings = SMALL_SETTINGS,
    max_overflow_attempts: int = 3,
    always_overflow: bool = False,
    **options: Any,
) -> tuple[AgentSession, ScriptedModel, Any]:  # Any: a SpyStore unless the test passed its own store
    store = store if store is not None else SpyStore()
    model = ScriptedModel(list(script), context_window=window, always_overflow=always_overflow)
    session = AgentSession(
        store=store,
        model=model,
        tools=model.run_tool,
        budget=RequestBudget(context_window=window),
        settings=settings,
        summarizer=OfflineSummarizer(max_summary_tokens=SMALL_SUMMARIZER_TOKENS),
        max_overflow_attempts=max_overflow_attempts,
        **options,
    )
    return session, model, store


def answer(text: str) -> Reply:
    return Reply(text)


def edit_then(text: str, path: str = "app.py") -> list[Reply]:
    return [Reply("", (ScriptedCall("edit", {"path": path}, f"edited {path}"),)), Reply(text)]


def event_types(events: Sequence[Any], kinds: Sequence[str] | None = None) -> list[str]:
    return [e.type for e in events if kinds is None or e.type in kinds]
