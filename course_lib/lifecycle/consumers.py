"""Two outside consumers of the event stream: the capstone's first pitfall and its fix.

A compaction is maintenance, not a failure: it happens after a run's
``agent_end`` and, for an overflow, is followed by a retry run. A consumer that
decides "the turn is over" at a ``message_end`` reports the overflow's error as
the answer and never sees the retry; one that waits for ``agent_end`` (and lets
``compaction_end {will_retry: true}`` reopen the turn) gets the real answer.

A consumer's ``verdict`` is what code compares (``"answered (a25.3)"``); ``said`` is the same
verdict in the reader's language, for a notebook's table (issue 45).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..teaching.i18n import MESSAGES, message
from .events import AgentEvent

NO_ANSWER = message("no answer")
STILL_RUNNING = message("still running")
FAILED = message("failed ({stop_reason} in {entry_id})")
ANSWERED = message("answered ({entry_id})")


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

    @property
    def said(self) -> str:
        """The verdict in the reader's language."""
        return _verdict(self.final, MESSAGES)


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
        return _verdict(self.final) if self.done else STILL_RUNNING

    @property
    def said(self) -> str:
        """The verdict in the reader's language."""
        return _verdict(self.final, MESSAGES) if self.done else MESSAGES(STILL_RUNNING)


def _is_final_message(event: AgentEvent) -> bool:
    return event.type == "message_end" and event.role == "assistant" and event.stop_reason != "toolUse"


def _verdict(final: AgentEvent | None, say: Callable[[str], str] = str) -> str:
    """The verdict on ``final``, each sentence passed through ``say`` (``MESSAGES``: in the reader's language)."""
    if final is None:
        return say(NO_ANSWER)
    if final.stop_reason in ("error", "length"):
        return say(FAILED).format(stop_reason=final.stop_reason, entry_id=final.entry_id)
    return say(ANSWERED).format(entry_id=final.entry_id)
