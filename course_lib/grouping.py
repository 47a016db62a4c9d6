"""Interaction groups: the smallest unit a budget may keep or drop (R11–R14).

A group starts at a user message and holds everything up to the next one.
Cutting inside a group would drop part of a tool round trip, so the budget
layer only ever keeps or drops whole groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import tool_facts
from .errors import InteractionError
from .models import AssistantMessage, MessageEntry, ToolResultMessage
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
    """The groups without copies: frozen entries are shared, for readers inside the package."""
    groups: list[tuple[MessageEntry, ...]] = []
    current: list[MessageEntry] = []
    for entry in entries:
        if getattr(entry, "type", None) != "message":
            raise InteractionError(
                f"entry {entry.id!r} is a {entry.type} entry; group_interactions takes message entries",
                entry_ids=(entry.id,),
            )
        message = entry.message
        role = message.role  # the role names the message's model: reading it is cheaper than isinstance
        if role == "system":
            continue  # R14: prompt state, never part of a group
        if role == "user":
            if current:
                groups.append(_closed(current))
            current = [entry]
        elif not current:
            raise tool_facts.before_first_user(entry.id, message.role)
        else:
            current.append(entry)
    if current:
        groups.append(_closed(current))
    return groups


def _closed(group: list[MessageEntry]) -> tuple[MessageEntry, ...]:
    """Check the group's tool facts by id only; positions and completion order do not matter (R12)."""
    start = group[0].id
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for entry in group:
        message = entry.message
        if isinstance(message, AssistantMessage):
            for call_id in tool_facts.tool_call_ids(message):
                if call_id in calls:
                    raise tool_facts.declared_twice(call_id, calls[call_id], entry.id)
                calls[call_id] = entry.id
        elif isinstance(message, ToolResultMessage):
            call_id = message.tool_call_id
            if call_id in results:
                raise tool_facts.answered_twice(call_id, results[call_id], entry.id)
            results[call_id] = entry.id
    for call_id, result_id in results.items():
        if call_id not in calls:
            raise tool_facts.unknown_call(result_id, call_id, start)
    for call_id, call_entry in calls.items():
        if call_id not in results:
            raise tool_facts.unanswered(call_id, call_entry, start)
    return tuple(group)
