"""Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is one record; ``user``, ``assistant`` and ``system`` records (and, in
newer versions, ``progress``/``attachment`` records) carry ``uuid`` and
``parentUuid`` and form a tree. The leaf is the last ``user``/``assistant``
record of the main chain (not ``isSidechain``; in a subagent file, where every
record is a sidechain, the last one), and the active path is its chain to the
root. A compact boundary (``system`` record, ``subtype: compact_boundary``)
has a null ``parentUuid``; the path continues through its ``logicalParentUuid``
so the history before the compaction stays on the path as summarized.

Mapping:

| Claude Code | course |
|---|---|
| ``user`` record with text | a user message |
| ``user`` record with ``tool_result`` blocks | one tool result per block (``is_error`` → ``isError``; the tool's name from its call) |
| ``assistant`` record | an assistant message: ``text`` blocks, ``tool_use`` → tool call (``input`` → arguments); thinking dropped (noted); a record holding only thinking is skipped |
| compact boundary + the ``isCompactSummary`` user record after it | a compaction entry (the summary text split into seven fields, ``compactMetadata.preTokens`` → ``tokensBefore``); the boundary is structural |
| other ``system`` records, ``summary`` titles, ``file-history-snapshot``, ``progress``, ``attachment``, ``queue-operation``, sidechains, records off the path | skipped, with the reason |
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..models import StopReason
from ..teaching.i18n import MESSAGES
from .assemble import Assembler, Block, text_block
from .content import THINKING_TYPES, number, object_at, texts, tool_call, usage_of
from .lines import Record, read_json_lines
from .report import ImportedSession
from .summary import summary_from_text
from .tree import OFF_PATH, active_path

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "refusal": "stop",
    "pause_turn": "stop",
}
CONVERSATION = frozenset({"user", "assistant"})


def load(path: Path) -> ImportedSession:
    read = read_json_lines(path)
    asm = Assembler("claude-code", path)
    asm.skipped.extend(read.skipped)
    linked: list[Record] = []
    for record in read.records:
        if isinstance(record.value.get("uuid"), str):
            linked.append(record)
        else:
            asm.skip(record.line, _not_conversation(record.value))
    main = [r for r in linked if r.value.get("type") in CONVERSATION and not r.value.get("isSidechain")]
    candidates = main or [r for r in linked if r.value.get("type") in CONVERSATION]
    path_records = active_path(
        linked,
        asm,
        id_key="uuid",
        parent_key="parentUuid",
        leaf=candidates[-1] if candidates else None,
        off_path=lambda r: (
            MESSAGES("a sidechain (subagent) record") if r.value.get("isSidechain") else MESSAGES(OFF_PATH)
        ),
        bridge=lambda r: r.value.get("logicalParentUuid") if _is_boundary(r.value) else None,
    )
    position = 0
    while position < len(path_records):
        record = path_records[position]
        following = path_records[position + 1] if position + 1 < len(path_records) else None
        if _is_boundary(record.value):
            consumed = following is not None and following.value.get("isCompactSummary") is True
            _compaction(record, following if consumed else None, asm)
            position += 2 if consumed else 1
            continue
        _map(record, asm)
        position += 1
    return asm.finish()


def _is_boundary(value: dict[str, Any]) -> bool:
    return value.get("type") == "system" and value.get("subtype") == "compact_boundary"


def _not_conversation(value: dict[str, Any]) -> str:
    kind = value.get("type")
    if kind == "summary":
        return MESSAGES("a session title (summary record), not part of the conversation")
    return MESSAGES("a record of type {kind} without a uuid, not part of the conversation").format(kind=repr(kind))


def _compaction(boundary: Record, summary: Record | None, asm: Assembler) -> None:
    meta = object_at(boundary.value, "compactMetadata")
    source = summary or boundary
    text = " ".join(texts(summary.value.get("message", {}).get("content"), summary.line, asm)) if summary else ""
    if summary:
        asm.header(boundary.line)
    asm.compaction(
        source.line,
        summary_from_text(text or str(boundary.value.get("content") or "Conversation compacted")),
        asm.timestamp(source.value.get("timestamp")),
        tokens_before=number(meta.get("preTokens")),
        source_id=boundary.value.get("uuid"),
    )


def _map(record: Record, asm: Assembler) -> None:
    value, line = record.value, record.line
    kind = value.get("type")
    message = object_at(value, "message")
    uuid: str = value["uuid"]  # load() maps only the records whose uuid is a string
    timestamp = asm.timestamp(value.get("timestamp"))
    if kind == "user":
        _user(message.get("content"), uuid, line, timestamp, asm)
    elif kind == "assistant":
        _assistant(value, message, uuid, line, timestamp, asm)
    elif kind == "system":
        asm.skip(
            line,
            MESSAGES("a system notice ({subtype}) shown to the user, not sent to the model").format(
                subtype=repr(value.get("subtype"))
            ),
        )
    else:
        asm.skip(line, MESSAGES("a record of type {kind}, not part of the conversation").format(kind=repr(kind)))


def _user(content: Any, uuid: str, line: int, timestamp: float, asm: Assembler) -> None:
    if not isinstance(content, list):
        asm.user(line, texts(content, line, asm), timestamp, uuid)
        return
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    for number_, block in enumerate(results):
        asm.tool_result(
            line,
            str(block.get("tool_use_id", "")),
            texts(block.get("content"), line, asm),
            timestamp,
            is_error=block.get("is_error") is True,
            source_id=uuid if number_ == 0 else f"{uuid}:{number_}",
        )
    rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
    if rest or not results:
        asm.user(line, texts(rest, line, asm), timestamp, uuid if not results else f"{uuid}:text")


def _assistant(
    value: dict[str, Any], message: dict[str, Any], uuid: str, line: int, timestamp: float, asm: Assembler
) -> None:
    content = message.get("content")
    content = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
    if content and all(isinstance(b, dict) and b.get("type") in THINKING_TYPES for b in content):
        asm.skip(line, MESSAGES("an assistant record holding only a thinking block (the course's messages have none)"))
        return
    blocks: list[Block] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            blocks.append(tool_call(str(block.get("id", "")), str(block.get("name", "")), block.get("input")))
        else:
            blocks.extend(text_block(text) for text in texts([block], line, asm))
    usage = object_at(message, "usage")
    given = sum(
        number(usage.get(k)) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    error = value.get("isApiErrorMessage") is True
    asm.assistant(
        line,
        blocks,
        timestamp,
        provider="anthropic",
        model=str(message.get("model") or "unknown"),
        usage=usage_of(given, usage.get("output_tokens")),
        stop_reason="error" if error else STOP_REASONS.get(str(message.get("stop_reason"))),
        error_message=" ".join(b["text"] for b in blocks if b["type"] == "text") if error else None,
        source_id=uuid,
    )
