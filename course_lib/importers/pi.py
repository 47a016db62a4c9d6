"""pi session JSONL (``badlogic/pi-mono``, ``packages/coding-agent``, ``session-manager.ts``).

The file is a header ``{"type": "session", "version": 3, ...}`` and a tree of
entries linked by ``id``/``parentId``. As pi does on load, the leaf is the last
entry in the file and the active path is its chain to the root; an entry whose
parent is missing starts the path (noted). Older files are migrated the way pi
migrates them: v1 entries get ids chained in file order, and a v1 compaction's
``firstKeptEntryIndex`` (an index into the file's entries, header included)
becomes ``firstKeptEntryId``; v2's ``hookMessage`` role is v3's ``custom``.

Mapping (what pi's ``buildSessionContext``/``convertToLlm`` send to the model):

| pi | course |
|---|---|
| ``message`` user / assistant / toolResult | the same message (thinking blocks dropped, images as placeholders) |
| ``message`` bashExecution, custom; ``custom_message``; ``branch_summary`` | a user message with their text (``excludeFromContext`` bash runs are skipped) |
| ``compaction`` | a compaction entry; the free-text summary split into seven fields (``summary.py``) |
| ``model_change``, ``thinking_level_change``, ``label``, ``session_info``, ``custom`` | a metadata entry ``pi.<type>`` holding the entry's fields |
| an entry type newer than this importer, an entry off the active path | skipped, with the reason |
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..teaching.i18n import MESSAGES
from .assemble import Assembler, Block, text_block
from .content import number, object_at, texts, tool_call, usage_of
from .lines import Record, read_json_lines
from .report import ImportedSession
from .summary import summary_from_text
from .tree import active_path

METADATA_TYPES = frozenset({"model_change", "thinking_level_change", "label", "session_info", "custom"})
BASE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})


def load(path: Path) -> ImportedSession:
    read = read_json_lines(path)
    asm = Assembler("pi", path)
    asm.skipped.extend(read.skipped)
    records = list(read.records)
    header = next((r for r in records if r.value.get("type") == "session"), None)
    version = header.value.get("version", 1) if header else 3
    entries: list[Record] = []
    for record in records:
        if record.value.get("type") == "session":
            if record is header:
                asm.header(record.line)
            else:
                asm.skip(record.line, MESSAGES("a second session header"))
        else:
            entries.append(record)
    if isinstance(version, int) and version < 2:
        entries = _migrate_v1(records, entries)
    for record in active_path(entries, asm, id_key="id", parent_key="parentId"):
        _map(record, asm, version)
    return asm.finish()


def _migrate_v1(records: list[Record], entries: list[Record]) -> list[Record]:
    """pi's v1 → v2 migration: ids chained in file order; ``firstKeptEntryIndex`` → ``firstKeptEntryId``.

    An id names the entry's line (``"L"`` and the line's number); a second object written onto the
    same line gets that id and ``.2``, so both are recovered rather than the second taken for a
    repeat of the first.
    """
    ids = {id(record): f"L{record.line}" if record.part == 1 else f"L{record.line}.{record.part}" for record in entries}
    migrated: list[Record] = []
    previous: str | None = None
    for record in entries:
        value = {**record.value, "id": ids[id(record)], "parentId": previous}
        index = value.pop("firstKeptEntryIndex", None)
        if value.get("type") == "compaction" and isinstance(index, int) and 0 <= index < len(records):
            target = records[index]
            if target.value.get("type") != "session":
                value["firstKeptEntryId"] = ids.get(id(target))
        migrated.append(Record(record.line, value, record.part))
        previous = value["id"]
    return migrated


def _map(record: Record, asm: Assembler, version: Any) -> None:
    value, line = record.value, record.line
    kind = value.get("type")
    entry_id = value.get("id")
    if kind == "message" and isinstance(value.get("message"), dict):
        _message(value["message"], value, asm, line, version)
    elif kind == "compaction":
        asm.compaction(
            line,
            summary_from_text(str(value.get("summary", ""))),
            asm.timestamp(value.get("timestamp")),
            tokens_before=number(value.get("tokensBefore")),
            first_kept_source_id=value.get("firstKeptEntryId"),
            source_id=entry_id,
        )
    elif kind == "branch_summary" and value.get("summary"):
        text = f"[Branch summary]\n{value['summary']}"
        asm.user(line, [text], asm.timestamp(value.get("timestamp")), entry_id)
    elif kind == "custom_message":
        asm.user(line, texts(value.get("content"), line, asm), asm.timestamp(value.get("timestamp")), entry_id)
    elif kind in METADATA_TYPES:
        fields = {k: v for k, v in value.items() if k not in BASE_KEYS}
        asm.metadata(line, f"pi.{kind}", fields, asm.timestamp(value.get("timestamp")), entry_id)
    else:
        asm.skip(
            line,
            MESSAGES("entry type {kind} is not one this importer knows (newer than the importer?)").format(
                kind=repr(kind)
            ),
        )


def _message(message: dict[str, Any], entry: dict[str, Any], asm: Assembler, line: int, version: Any) -> None:
    role = message.get("role")
    if role == "hookMessage":  # pi's v2 → v3 migration
        role = "custom"
    entry_id = entry.get("id")
    timestamp = asm.timestamp(message.get("timestamp"), entry.get("timestamp"))
    if role in ("user", "custom"):
        asm.user(line, texts(message.get("content"), line, asm), timestamp, entry_id)
    elif role == "assistant":
        _assistant(message, asm, line, timestamp, entry_id)
    elif role == "toolResult":
        asm.tool_result(
            line,
            str(message.get("toolCallId", "")),
            texts(message.get("content"), line, asm),
            timestamp,
            is_error=message.get("isError") is True,
            tool_name=message.get("toolName") or None,
            details=message.get("details"),
            source_id=entry_id,
        )
    elif role == "bashExecution":
        if message.get("excludeFromContext"):
            asm.skip(line, MESSAGES("a bash execution excluded from the model's context (run with !!)"))
        else:
            asm.user(line, [_bash_text(message)], timestamp, entry_id)
    elif role in ("branchSummary", "compactionSummary"):
        asm.user(line, [str(message.get("summary", ""))], timestamp, entry_id)
    else:
        asm.skip(line, MESSAGES("message role {role} is not one this importer knows").format(role=repr(role)))


def _assistant(message: dict[str, Any], asm: Assembler, line: int, timestamp: float, entry_id: Any) -> None:
    blocks: list[Block] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]:
        if isinstance(block, dict) and block.get("type") == "toolCall":
            blocks.append(tool_call(str(block.get("id", "")), str(block.get("name", "")), block.get("arguments")))
        else:
            blocks.extend(text_block(text) for text in texts([block], line, asm))
    usage = object_at(message, "usage")
    stop = message.get("stopReason")
    asm.assistant(
        line,
        blocks,
        timestamp,
        provider=str(message.get("provider", "unknown")),
        model=str(message.get("model", "unknown")),
        usage=usage_of(usage.get("input"), usage.get("output"), usage.get("totalTokens")),
        stop_reason=stop if stop in ("stop", "length", "toolUse", "error", "aborted") else None,
        error_message=message.get("errorMessage") if isinstance(message.get("errorMessage"), str) else None,
        source_id=entry_id,
    )


def _bash_text(message: dict[str, Any]) -> str:
    """The user-message text pi sends for a ``!command`` run (``bashExecutionToText`` in messages.ts)."""
    output = message.get("output") or ""
    text = f"Ran `{message.get('command', '')}`\n" + (f"```\n{output}\n```" if output else "(no output)")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif message.get("exitCode") not in (None, 0):
        text += f"\n\nCommand exited with code {message['exitCode']}"
    return text
