"""Tool facts: which calls an entry declares or answers, and what is said when they do not pair up (R11, R12).

A group is whole only when every tool call in it has exactly one result and
every result answers a call of the same group, paired by id (R12). The course's
``group_interactions``, Lab 11.2's solution, the checklist, the grader and the
tests all ask "which tool-call ids does this entry have" and all word a broken
fact the same way, so both live here once. This module is not withheld while a
lab is graded: a learner's ``check_tool_facts`` may raise these errors too.

The readers take a parsed entry or message, or its wire form (a ``dict``), so
code on either side of the wire asks the same question.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InteractionError
from .models import AssistantMessage, ToolCall, ToolResultMessage


def _message(item: Any) -> Any:
    """The message of an entry (parsed or wire), or ``item`` itself when it already is a message."""
    if isinstance(item, Mapping):
        return item.get("message", item) if item.get("type") == "message" else item
    return getattr(item, "message", item) if getattr(item, "type", None) == "message" else item


def _field(item: Any, name: str, wire_name: str) -> Any:
    return item.get(wire_name) if isinstance(item, Mapping) else getattr(item, name, None)


def tool_call_ids(item: Any) -> list[str]:
    """The ids of the tool calls an assistant message (or its entry) declares, in order; ``[]`` for any other."""
    message = _message(item)
    if isinstance(message, AssistantMessage):  # the course's own model: the common case, kept quick
        return [block.id for block in message.content if isinstance(block, ToolCall)]
    if _field(message, "role", "role") != "assistant":
        return []
    blocks = _field(message, "content", "content") or ()
    return [_field(block, "id", "id") for block in blocks if _field(block, "type", "type") == "toolCall"]


def answered_call_id(item: Any) -> str | None:
    """The call a tool result (or its entry) answers; ``None`` for any other message."""
    message = _message(item)
    if isinstance(message, ToolResultMessage):
        return message.tool_call_id
    if _field(message, "role", "role") != "toolResult":
        return None
    return _field(message, "tool_call_id", "toolCallId")


# --- what is said when a fact is broken (R11, R12) ------------------------------------


def before_first_user(entry_id: str, role: str) -> InteractionError:
    """R11: every interaction starts with a user message."""
    return InteractionError(
        f"entry {entry_id!r} ({role}) comes before the first user message; every interaction starts with a user message",
        entry_ids=(entry_id,),
    )


def declared_twice(call_id: str, first_entry: str, second_entry: str) -> InteractionError:
    """R12: a call id is declared once."""
    return InteractionError(
        f"tool call {call_id!r} is declared twice, in entries {first_entry!r} and {second_entry!r}",
        entry_ids=(first_entry, second_entry),
        call_id=call_id,
    )


def answered_twice(call_id: str, first_result: str, second_result: str) -> InteractionError:
    """R12: a call has exactly one result."""
    return InteractionError(
        f"tool call {call_id!r} has two results, {first_result!r} and {second_result!r}",
        entry_ids=(first_result, second_result),
        call_id=call_id,
    )


def unknown_call(result_id: str, call_id: str, group_start: str) -> InteractionError:
    """R12: a result answers a call of its own group."""
    return InteractionError(
        f"tool result {result_id!r} answers call {call_id!r}, which no assistant message "
        f"in the group starting at {group_start!r} declared",
        entry_ids=(result_id,),
        call_id=call_id,
    )


def unanswered(call_id: str, call_entry: str, group_start: str) -> InteractionError:
    """R12: a group ends only when each of its calls has its result."""
    return InteractionError(
        f"tool call {call_id!r} (entry {call_entry!r}) has no result when the group starting at {group_start!r} ends",
        entry_ids=(call_entry,),
        call_id=call_id,
    )
