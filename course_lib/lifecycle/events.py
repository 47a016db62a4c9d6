"""The lifecycle's observable events, in the order of L6.

``agent_start, message_end…, agent_end, compaction_start, compaction_end,
(agent_start … on continue)``: a compaction sits *after* a run's ``agent_end``,
so an outside consumer that ends the turn at a ``message_end`` misses it.

Three more kinds make the unusual visible instead of hiding it:
``context_warning`` (``build_context`` returned ``single_group_overflow`` or
dropped groups, L4), ``compaction_skipped`` (the threshold was crossed but
there was nothing to cut, L3) and ``overflow_recovery_failed`` (L4).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

EventType = Literal[
    "agent_start",
    "message_end",
    "agent_end",
    "compaction_start",
    "compaction_end",
    "compaction_skipped",
    "context_warning",
    "overflow_recovery_failed",
]

LIFECYCLE_EVENTS = ("agent_start", "message_end", "agent_end", "compaction_start", "compaction_end")
"""The five kinds whose order L6 fixes."""


@dataclass(frozen=True)
class AgentEvent:
    """One event; fields that do not apply to its kind are ``None`` (a flat row for a table)."""

    seq: int
    type: EventType
    turn: int
    entry_id: str | None = None
    role: str | None = None
    stop_reason: str | None = None
    reason: str | None = None
    attempt: int | None = None
    context_tokens: int | float | None = None
    tokens_before: int | float | None = None
    tokens_after: int | float | None = None
    first_kept_entry_id: str | None = None
    will_retry: bool | None = None
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Only the fields this event carries."""
        return {key: value for key, value in asdict(self).items() if value is not None}


Listener = Callable[[AgentEvent], None]


class EventLog:
    """Numbers events in emission order and hands each to every listener as it happens."""

    def __init__(self, listeners: Iterable[Listener] = ()) -> None:
        self.events: list[AgentEvent] = []
        self.listeners: list[Listener] = list(listeners)

    def emit(self, type: EventType, *, turn: int, **data: Any) -> AgentEvent:
        event = AgentEvent(seq=len(self.events) + 1, type=type, turn=turn, **data)
        self.events.append(event)
        for listener in self.listeners:
            listener(event)
        return event

    def subscribe(self, listener: Listener) -> Listener:
        self.listeners.append(listener)
        return listener

    def unsubscribe(self, listener: Listener) -> None:
        self.listeners.remove(listener)


def events_frame(events: Iterable[AgentEvent]) -> Any:
    """The events as a pandas table, keeping only columns some event uses."""
    import pandas as pd

    rows = [asdict(event) for event in events]
    frame = pd.DataFrame(rows, columns=[f.name for f in fields(AgentEvent)], dtype=object)
    used = [column for column in frame.columns if frame[column].notna().any()]
    return frame[used].fillna("").set_index("seq")
