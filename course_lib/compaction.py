"""Compaction records: the summary becomes one more appended fact (R24–R28; the summary text of R18).

``create_compaction_entry`` is pure. It never writes a store: the caller can show
the summary, ask for confirmation, and then append it like any other entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from .errors import CompactionError
from .grouping import interaction_spans
from .models import CompactionEntry, CompactionSummary, SessionEntry, TextContent, UserMessage
from .parsing import parse_session_entry, session_entry_error, to_json_dict

SUMMARY_TITLE = "[Compaction summary]"
SUMMARY_SECTIONS = (
    ("Constraints", "constraints"),
    ("Completed", "completed"),
    ("Decisions", "decisions"),
    ("Changed files", "changed_files"),
    ("Unresolved", "unresolved"),
    ("Next", "next"),
)


def compaction_summary_text(summary: CompactionSummary | Mapping[str, Any]) -> str:
    """The synthetic summary message's text: fixed field order, ``- (none)`` for empty lists (R18, docs/rules.md)."""
    summary = _as_summary(summary)
    lines = [SUMMARY_TITLE, f"Goal: {summary.goal}"]
    for title, name in SUMMARY_SECTIONS:
        items = getattr(summary, name)
        lines.append(f"{title}:")
        lines.extend(f"- {item}" for item in items) if items else lines.append("- (none)")
    return "\n".join(lines)


def summary_message(entry: CompactionEntry) -> UserMessage:
    """The compaction as the one synthetic user message a resumed context starts with (R18).

    It carries none of the system prompt; its timestamp is the compaction entry's.
    """
    return UserMessage(
        content=(TextContent(text=compaction_summary_text(entry.summary)),),
        timestamp=entry.timestamp,
    )


def create_compaction_entry(
    active_path: Sequence[SessionEntry],
    *,
    id: str,
    timestamp: int | float,
    summary: CompactionSummary | Mapping[str, Any],
    first_kept_entry_id: str,
    tokens_before: int | float,
) -> CompactionEntry:
    """A new compaction entry for the end of ``active_path``; the path is left as it was (R24)."""
    path = list(active_path)
    if not path:
        raise CompactionError("cannot compact an empty path: a compaction entry needs a parent (R25)")
    if any(entry.id == id for entry in path):
        raise CompactionError(f"entry id {id!r} is already on the path (R26)", entry_id=id)
    _check_first_kept(path, first_kept_entry_id)
    raw = {
        "type": "compaction",
        "id": id,
        "parentId": path[-1].id,
        "timestamp": timestamp,
        "summary": to_json_dict(summary),
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
    return cast(CompactionEntry, parse_session_entry(raw))  # R28: the same strict parser, nothing shared


def _check_first_kept(path: list[SessionEntry], first_kept: str) -> None:
    """``firstKeptEntryId`` must open one of the path's interaction groups (R27)."""
    message_entries = [entry for entry in path if entry.type == "message"]
    starts = {group[0].id for group in interaction_spans(message_entries)}
    if first_kept in starts:
        return
    entry = next((e for e in path if e.id == first_kept), None)
    if entry is None:
        what = "not on the path"
    elif entry.type != "message":
        what = _with_article(f"{entry.type} entry")
    else:
        what = _with_article(f"{entry.message.role} message")
    raise CompactionError(
        f"firstKeptEntryId {first_kept!r} is {what}, not the first user message of an interaction group (R27)",
        entry_id=first_kept,
    )


def _with_article(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _as_summary(summary: CompactionSummary | Mapping[str, Any]) -> CompactionSummary:
    if isinstance(summary, CompactionSummary):
        return summary
    if isinstance(summary, BaseModel):
        summary = summary.model_dump(by_alias=True)
    try:
        return CompactionSummary.model_validate(summary, by_alias=True, by_name=False)
    except ValidationError as exc:
        raise session_entry_error(exc, summary, subject="compaction summary") from None
