"""Interaction groups: the smallest unit a budget may keep or drop (R11–R14).

A group starts at a user message and holds everything up to the next one.
Cutting inside a group would drop part of a tool round trip, so the budget
layer only ever keeps or drops whole groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import tool_facts
from .errors import InteractionError
from .models import AssistantMessage, MessageEntry
from .parsing import fresh_copy


@dataclass(frozen=True)
class InteractionGroup:
    """One user interaction: the user message and every non-system message after it."""

    entries: tuple[MessageEntry, ...]

    @property
    def entry_ids(self) -> list[str]:
        return [entry.id for entry in self.entries]

    @property
    def first_entry_id(self) -> str:
        return self.entries[0].id


def group_interactions(message_entries: Iterable[MessageEntry]) -> list[InteractionGroup]:
    """Split message entries into interaction groups, as independent copies (R11–R14)."""
    return [
        InteractionGroup(tuple(fresh_copy(entry) for entry in group))
        for group in interaction_spans(list(message_entries))
    ]


def interaction_spans(entries: Sequence[MessageEntry]) -> list[tuple[MessageEntry, ...]]:
    """The groups without copies: frozen entries are shared, for readers inside the package.

    One walk over the entries (on a long path every walk is a trip through main memory):
    a group's tool facts are gathered as its entries go by, and checked when it closes (R12).
    The role names the course's message models, so it is read instead of asking
    ``isinstance`` (which, on a pydantic class, goes through ``ABCMeta``).
    """
    groups: list[tuple[MessageEntry, ...]] = []
    current: list[MessageEntry] = []
    facts = _ToolFacts()
    for entry in entries:
        if getattr(entry, "type", None) != "message":
            raise InteractionError(
                f"entry {entry.id!r} is a {entry.type} entry; group_interactions takes message entries",
                entry_ids=(entry.id,),
            )
        message: Any = entry.message  # its role names its model (mypy cannot narrow on it)
        role = message.role
        if role == "user":
            if current:
                groups.append(facts.closed(current))
                facts = _ToolFacts()
            current = [entry]
        elif role == "system":
            continue  # R14: prompt state, never part of a group
        elif not current:
            raise tool_facts.before_first_user(entry.id, role)
        else:
            current.append(entry)
            if role == "assistant":
                facts.declare(message, entry.id)
            elif role == "toolResult":
                facts.answer(message.tool_call_id, entry.id)
    if current:
        groups.append(facts.closed(current))
    return groups


class _ToolFacts:
    """One group's tool calls and results by id; positions and completion order do not matter (R12).

    The first call declared twice or result given twice is kept, not raised, until the group
    closes, so a later entry of the group that is no message at all is reported before it.
    """

    __slots__ = ("calls", "results", "error")

    def __init__(self) -> None:
        self.calls: dict[str, str] = {}
        self.results: dict[str, str] = {}
        self.error: InteractionError | None = None

    def declare(self, message: AssistantMessage, entry_id: str) -> None:
        calls = self.calls
        for block in message.content:
            if block.type == "toolCall":
                call_id = block.id
                if call_id in calls and self.error is None:
                    self.error = tool_facts.declared_twice(call_id, calls[call_id], entry_id)
                calls.setdefault(call_id, entry_id)

    def answer(self, call_id: str, entry_id: str) -> None:
        results = self.results
        if call_id in results and self.error is None:
            self.error = tool_facts.answered_twice(call_id, results[call_id], entry_id)
        results.setdefault(call_id, entry_id)

    def closed(self, group: list[MessageEntry]) -> tuple[MessageEntry, ...]:
        if self.error is not None:
            raise self.error
        calls, results = self.calls, self.results
        if calls.keys() != results.keys():  # the common case, a whole group, in one comparison
            start = group[0].id
            for call_id, result_id in results.items():
                if call_id not in calls:
                    raise tool_facts.unknown_call(result_id, call_id, start)
            for call_id, call_entry in calls.items():
                if call_id not in results:
                    raise tool_facts.unanswered(call_id, call_entry, start)
        return tuple(group)
