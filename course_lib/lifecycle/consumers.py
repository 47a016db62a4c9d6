"""Two outside consumers of the event stream: the capstone's first pitfall and its fix.

A compaction is maintenance, not a failure: it happens after a run's
``agent_end`` and, for an overflow, is followed by a retry run. A consumer that
decides "the turn is over" at a ``message_end`` reports the overflow's error as
the answer and never sees the retry; one that waits for ``agent_end`` (and lets
``compaction_end {will_retry: true}`` reopen the turn) gets the real answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .events import AgentEvent


@dataclass
class MessageEndConsumer:
    """The pitfall: the first final assistant ``message_end`` ends the turn, even an overflow's error."""

    seen: list[AgentEvent] = field(default_factory=list)
    missed: list[AgentEvent] = field(default_factory=list)
    final: AgentEvent | None = None
    done: bool = False

    def __call__(self, event: AgentEvent) -> None:
        if self.done:
            self.missed.append(event)
            return
        self.seen.append(event)
        if _is_final_message(event):
            self.final = event
            self.done = True

    @property
    def verdict(self) -> str:
        return _verdict(self.final)


@dataclass
class AgentEndConsumer:
    """The fix: ``agent_end`` ends the turn, unless a compaction announces a retry."""

    seen: list[AgentEvent] = field(default_factory=list)
    final: AgentEvent | None = None
    done: bool = False

    def __call__(self, event: AgentEvent) -> None:
        self.seen.append(event)
        if _is_final_message(event):
            self.final = event
        elif event.type == "agent_end":
            self.done = True
        elif event.type == "compaction_end" and event.will_retry:
            self.done = False  # L6: the runtime continues with a retry run

    @property
    def verdict(self) -> str:
        return _verdict(self.final) if self.done else "still running"


def _is_final_message(event: AgentEvent) -> bool:
    return event.type == "message_end" and event.role == "assistant" and event.stop_reason != "toolUse"


def _verdict(final: AgentEvent | None) -> str:
    if final is None:
        return "no answer"
    if final.stop_reason in ("error", "length"):
        return f"failed ({final.stop_reason} in {final.entry_id})"
    return f"answered ({final.entry_id})"
