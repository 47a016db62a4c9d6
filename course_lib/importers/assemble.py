"""Turns one agent's messages, in active-path order, into a chain of course entries.

Every importer walks its own format and calls this assembler once per fact; the
assembler owns the rules the course's model imposes, so no importer can break
them and none has to repeat them:

* **A linear chain.** Each entry's parent is the previous entry; source ids are
  kept when they are unique (``L<line>`` otherwise), so the ids a learner sees
  can be found in the original file.
* **Whole interaction groups (R11, R12).** A user message opens a group. A tool
  result must answer a call of the same group: an *orphan result* (its call is
  unknown in the group, or already answered) is dropped and reported in
  ``skipped``; a *call without a result* gets an added error result
  ``no result recorded`` when its group closes, reported in ``notes``. An
  assistant message before any user message gets an added placeholder user
  message (noted), since a group can only start with one.
* **Compactions keep from a user message before them (R18).** A compaction that
  names what it keeps (pi) keeps from the user message that opens that entry's
  group. A compaction that keeps nothing verbatim (Claude Code, Codex: the
  summary replaces the whole history) is placed right after the next user
  message and keeps from it, so the projection is "summary + everything after
  the compaction", as the agent itself sends it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..models import (
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    StopReason,
    UserMessage,
)
from ..parsing import ENTRY_ADAPTER
from ..teaching.i18n import MESSAGES
from .report import Format, ImportedSession, Note, Skip

NO_RESULT = "no result recorded"
NO_USAGE = {"input": 0, "output": 0, "totalTokens": 0}

Block = dict[str, Any]
"""A content block in wire keys (``{"type": "text", "text": ...}`` or a ``toolCall``): the
assembler validates each entry in one call (R1), blocks included."""


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


@dataclass
class _Pending:
    line: int
    id: str | None
    summary: CompactionSummary
    tokens_before: float
    timestamp: float


class Assembler:
    """Collects entries in path order; ``finish`` closes the last group and returns the import."""

    def __init__(self, fmt: Format, source: Path) -> None:
        self.format = fmt
        self.source = source
        self.entries: list[SessionEntry] = []
        self.skipped: list[Skip] = []
        self.notes: list[Note] = []
        self.structural: list[int] = []
        self.entry_lines: dict[str, int] = {}
        self.course_id: dict[str, str] = {}  # source id -> course id
        self.clock: float = 0
        self._calls: dict[str, tuple[str, int]] = {}  # open group: call id -> (tool name, line)
        self._answered: set[str] = set()
        self._seen_user = False
        self._pending: list[_Pending] = []

    # --- reporting ------------------------------------------------------------------

    def skip(self, line: int, reason: str) -> None:
        self.skipped.append(Skip(line, reason))

    def note(self, line: int, text: str) -> None:
        self.notes.append(Note(line, text))

    def header(self, line: int) -> None:
        self.structural.append(line)

    def timestamp(self, *candidates: Any) -> float:
        """The first usable time (epoch milliseconds or ISO 8601) among ``candidates``, else the last one seen."""
        for value in candidates:
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
                self.clock = value
                return value
            if isinstance(value, str):
                try:
                    self.clock = datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
                    return self.clock
                except (ValueError, OverflowError, OSError):  # not ISO 8601, or a date the platform cannot hold
                    continue
        return self.clock

    # --- messages -------------------------------------------------------------------

    def system(self, line: int, text: str, timestamp: float, source_id: str | None = None) -> None:
        self._append(line, source_id, sent={"role": "system", "content": text, "timestamp": timestamp})

    def user(self, line: int, texts: Sequence[str], timestamp: float, source_id: str | None = None) -> str:
        self._close_group()
        self._seen_user = True
        entry_id = self._append(line, source_id, sent=_user(texts, timestamp))
        for pending in self._pending:
            self._add_compaction(pending, entry_id)
        self._pending.clear()
        return entry_id

    def assistant(
        self,
        line: int,
        blocks: Sequence[Block],
        timestamp: float,
        *,
        provider: str,
        model: str,
        usage: dict[str, Any] = NO_USAGE,
        stop_reason: StopReason | None = None,
        error_message: str | None = None,
        source_id: str | None = None,
    ) -> None:
        if not self._seen_user:
            self.user(line, ["(imported: the log has no user message before this point)"], timestamp, f"L{line}:start")
            self.note(
                line, MESSAGES("an assistant message came before any user message; added a placeholder user message")
            )
        content: list[Block] = []
        for block in blocks:
            if block["type"] == "toolCall":
                call_id = block["id"]
                if call_id in self._calls:
                    self.note(
                        line,
                        MESSAGES("call id {call} was already used in this interaction; dropped the repeat").format(
                            call=repr(call_id)
                        ),
                    )
                    continue
                self._calls[call_id] = (block["name"], line)
            content.append(block)
        if stop_reason is None:
            has_calls = any(block["type"] == "toolCall" for block in content)
            stop_reason = "error" if error_message else "toolUse" if has_calls else "stop"
        wire = {
            "role": "assistant",
            "content": content,
            "provider": provider,
            "model": model,
            "usage": usage,
            "stopReason": stop_reason,
            "timestamp": timestamp,
        }
        if error_message is not None:
            wire["errorMessage"] = error_message
        self._append(line, source_id, sent=wire)

    def tool_result(
        self,
        line: int,
        call_id: str,
        texts: Sequence[str],
        timestamp: float,
        *,
        is_error: bool,
        tool_name: str | None = None,
        details: Any = None,
        source_id: str | None = None,
    ) -> None:
        if call_id not in self._calls:
            self.skip(
                line,
                MESSAGES(
                    "tool result for call {call}, which no assistant message of this interaction made (an orphan)"
                ).format(call=repr(call_id)),
            )
            return
        if call_id in self._answered:
            self.skip(line, MESSAGES("a second tool result for call {call}").format(call=repr(call_id)))
            return
        self._answered.add(call_id)
        wire = _tool_result(call_id, tool_name or self._calls[call_id][0], texts, timestamp, is_error, details)
        self._append(line, source_id, sent=wire)

    # --- other entries --------------------------------------------------------------

    def metadata(self, line: int, key: str, value: Any, timestamp: float, source_id: str | None = None) -> None:
        entry_id = self._unique(source_id, line)
        self._push(
            MetadataEntry(id=entry_id, parent_id=self._leaf(), timestamp=timestamp, key=key, value=value),
            line,
            source_id,
        )

    def compaction(
        self,
        line: int,
        summary: CompactionSummary,
        timestamp: float,
        *,
        tokens_before: float = 0,
        first_kept_source_id: str | None = None,
        source_id: str | None = None,
    ) -> None:
        """A compaction keeping from ``first_kept_source_id``, or (``None``) from the next user message."""
        pending = _Pending(line, source_id, summary, tokens_before, timestamp)
        if first_kept_source_id is None:
            self._pending.append(pending)
            return
        first_kept = self._group_start(self.course_id.get(first_kept_source_id))
        if first_kept is None:
            self.note(
                line,
                MESSAGES(
                    "compaction keeps from {kept}, which is not on the path; it keeps from the next user message"
                ).format(kept=repr(first_kept_source_id)),
            )
            self._pending.append(pending)
            return
        if first_kept != self.course_id[first_kept_source_id]:
            self.note(
                line,
                MESSAGES(
                    "compaction keeps from {kept}, inside an interaction; it keeps from {start}, the user message "
                    "that opens it"
                ).format(kept=repr(first_kept_source_id), start=repr(first_kept)),
            )
        self._add_compaction(pending, first_kept)

    def finish(self) -> ImportedSession:
        self._close_group()
        for pending in self._pending:
            users = [e.id for e in self.entries if isinstance(e, MessageEntry) and isinstance(e.message, UserMessage)]
            if users:
                self.note(
                    pending.line,
                    f"no user message follows this compaction; it keeps from the last one before it, {users[-1]!r}",
                )
                self._add_compaction(pending, users[-1])
            else:
                self.skip(pending.line, MESSAGES("a compaction with no user message to keep from"))
        return ImportedSession(
            format=self.format,
            source=self.source,
            entries=tuple(self.entries),
            skipped=tuple(sorted(self.skipped)),
            notes=tuple(sorted(self.notes)),
            structural=tuple(self.structural),
            entry_lines=dict(self.entry_lines),
        )

    # --- internals ------------------------------------------------------------------

    def _close_group(self) -> None:
        for call_id, (name, line) in self._calls.items():
            if call_id not in self._answered:
                self.note(
                    line,
                    MESSAGES("call {call} ({name}) has no result in the log; added an error result {result}").format(
                        call=repr(call_id), name=name, result=repr(NO_RESULT)
                    ),
                )
                wire = _tool_result(call_id, name, [NO_RESULT], self.clock, True, None)
                self._append(line, f"{call_id}:no-result", sent=wire)
        self._calls.clear()
        self._answered.clear()

    def _group_start(self, entry_id: str | None) -> str | None:
        """The user message that opens the group holding ``entry_id``, if it is on the path."""
        position = next((i for i, e in enumerate(self.entries) if e.id == entry_id), None)
        if position is None:
            return None
        for entry in reversed(self.entries[: position + 1]):
            if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
                return entry.id
        return None

    def _add_compaction(self, pending: _Pending, first_kept: str) -> None:
        parent = self._leaf()
        assert parent is not None, "the first kept entry is on the path, so the path has a leaf"
        entry = CompactionEntry(
            id=self._unique(pending.id, pending.line),
            parent_id=parent,
            timestamp=pending.timestamp,
            summary=pending.summary,
            first_kept_entry_id=first_kept,
            tokens_before=pending.tokens_before,
        )
        self._push(entry, pending.line, pending.id)

    def _append(self, line: int, source_id: str | None, *, sent: dict[str, Any]) -> str:
        """The message (wire keys, blocks included) and its entry, validated in one call (R1)."""
        entry_id = self._unique(source_id, line)
        wire = {
            "type": "message",
            "id": entry_id,
            "parentId": self._leaf(),
            "timestamp": sent["timestamp"],
            "message": sent,
        }
        self._push(_VALIDATE_ENTRY(wire, by_alias=True, by_name=False), line, source_id)
        return entry_id

    def _push(self, entry: SessionEntry, line: int, source_id: str | None) -> None:
        self.entries.append(entry)
        self.entry_lines[entry.id] = line
        if source_id is not None:
            self.course_id.setdefault(source_id, entry.id)

    def _leaf(self) -> str | None:
        return self.entries[-1].id if self.entries else None

    def _unique(self, preferred: str | None, line: int) -> str:
        base = preferred if preferred and preferred.strip() else f"L{line}"
        candidate, n = base, 1
        while candidate in self.entry_lines:
            n += 1
            candidate = f"{base}~{n}"
        return candidate


_VALIDATE_ENTRY = ENTRY_ADAPTER.validator.validate_python
"""One strict validation per entry (R1): building each nested model on its own costs twice as much."""


def _user(texts: Sequence[str], timestamp: float) -> dict[str, Any]:
    return {"role": "user", "content": [text_block(text) for text in texts], "timestamp": timestamp}


def _tool_result(
    call_id: str, name: str, texts: Sequence[str], timestamp: float, is_error: bool, details: Any
) -> dict[str, Any]:
    wire = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [text_block(text) for text in texts],
        "isError": is_error,
        "timestamp": timestamp,
    }
    if details is not None:
        wire["details"] = details
    return wire


def image_placeholder(mime_type: str, data: str) -> str:
    """A short stand-in for a base64 image: the model's context would hold the image, not its base64 text."""
    size = len(data) * 3 // 4 - data[-2:].count("=") if data else 0
    return f"[image: {mime_type}, {max(1, round(size / 1024))} KB]"
