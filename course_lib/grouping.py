"""Interaction groups: the smallest unit a budget may keep or drop (R11–R14).

A group starts at a user message and holds everything up to the next one.
Cutting inside a group would drop part of a tool round trip, so the budget
layer only ever keeps or drops whole groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import InteractionError
from .models import MessageEntry
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
            raise InteractionError(
                f"entry {entry.id!r} ({message.role}) comes before the first user message; "
                "every interaction starts with a user message",
                entry_ids=(entry.id,),
            )
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
        role = message.role
        if role == "assistant":
            for block in message.content:
                if block.type != "toolCall":
                    continue
                if block.id in calls:
                    raise InteractionError(
                        f"tool call {block.id!r} is declared twice, in entries "
                        f"{calls[block.id]!r} and {entry.id!r}",
                        entry_ids=(calls[block.id], entry.id),
                        call_id=block.id,
                    )
                calls[block.id] = entry.id
        elif role == "toolResult":
            call_id = message.tool_call_id
            if call_id in results:
                raise InteractionError(
                    f"tool call {call_id!r} has two results, {results[call_id]!r} and {entry.id!r}",
                    entry_ids=(results[call_id], entry.id),
                    call_id=call_id,
                )
            results[call_id] = entry.id
    for call_id, result_id in results.items():
        if call_id not in calls:
            raise InteractionError(
                f"tool result {result_id!r} answers call {call_id!r}, which no assistant message "
                f"in the group starting at {start!r} declared",
                entry_ids=(result_id,),
                call_id=call_id,
            )
    for call_id, call_entry in calls.items():
        if call_id not in results:
            raise InteractionError(
                f"tool call {call_id!r} (entry {call_entry!r}) has no result when the group "
                f"starting at {start!r} ends",
                entry_ids=(call_entry,),
                call_id=call_id,
            )
    return tuple(group)
