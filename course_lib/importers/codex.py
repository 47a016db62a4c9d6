"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{"timestamp", "type", "payload"}`` with ``type`` one of
``session_meta``, ``response_item``, ``compacted``, ``turn_context`` or
``event_msg`` (``RolloutItem`` in ``codex-rs/protocol/src/protocol.rs``; the
response items are ``ResponseItem`` in ``codex-rs/protocol/src/models.rs``).
A rollout is a list, not a tree: the active path is the file order.

Mapping:

| Codex | course |
|---|---|
| ``session_meta`` | structural (its ``model_provider`` names the provider) |
| ``turn_context`` | a metadata entry ``codex.turn_context`` (its ``model`` names later assistant messages' model) |
| ``message`` user / assistant / developer or system | a user / assistant / system message (``input_image`` as a placeholder) |
| ``function_call`` (``arguments`` is a JSON string), ``custom_tool_call``, ``local_shell_call`` | an assistant message with one tool call (``call_id`` is its id) |
| ``function_call_output``, ``custom_tool_call_output`` | a tool result; ``isError`` when the output reports a non-zero exit code or ``success: false`` |
| ``compacted`` (``message``) | a compaction entry keeping from the next user message (the summary replaces the history) |
| ``reasoning``, ``web_search_call``, ``event_msg`` (UI events that repeat the response items), unknown types | skipped, with the reason |
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..teaching.i18n import MESSAGES
from .assemble import Assembler, text_block
from .content import object_at, texts, tool_call
from .lines import Record, read_json_lines
from .report import ImportedSession
from .summary import summary_from_text

RESPONSE_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "reasoning",
        "web_search_call",
    }
)
EXIT_CODE = re.compile(r"^Exit code: (-?\d+)", re.MULTILINE)


class _Turn:
    """What earlier lines said that later messages need: the provider and the current model."""

    provider = "openai"
    model = "unknown"


def load(path: Path) -> ImportedSession:
    read = read_json_lines(path)
    asm = Assembler("codex", path)
    asm.skipped.extend(read.skipped)
    turn = _Turn()
    for record in read.records:
        _map(record, asm, turn)
    return asm.finish()


def _map(record: Record, asm: Assembler, turn: _Turn) -> None:
    value, line = record.value, record.line
    kind, payload = value.get("type"), value.get("payload")
    if not isinstance(payload, dict):  # the older format: response items written bare
        if kind in RESPONSE_TYPES:
            kind, payload = "response_item", value
        elif ("id" in value and "instructions" in value) or kind == "session_meta":
            asm.header(line)
            return
        else:
            asm.skip(
                line, MESSAGES("a {kind} record without a payload").format(kind=repr(kind or value.get("record_type")))
            )
            return
    timestamp = asm.timestamp(value.get("timestamp"))
    if kind == "session_meta":
        asm.header(line)
        turn.provider = str(payload.get("model_provider") or turn.provider)
    elif kind == "turn_context":
        turn.model = str(payload.get("model") or turn.model)
        asm.metadata(line, "codex.turn_context", payload, timestamp)
    elif kind == "response_item":
        _response_item(payload, line, timestamp, asm, turn)
    elif kind == "compacted":
        replaced = payload.get("replacement_history")
        if isinstance(replaced, list):
            asm.note(
                line,
                MESSAGES(
                    "the compaction's replacement history ({count} items) is not replayed; the summary keeps from "
                    "the next user message"
                ).format(count=len(replaced)),
            )
        asm.compaction(line, summary_from_text(str(payload.get("message") or "(compacted)")), timestamp)
    elif kind == "event_msg":
        asm.skip(
            line,
            MESSAGES("event_msg {type}: a UI event (the response items carry the conversation)").format(
                type=repr(payload.get("type"))
            ),
        )
    else:
        asm.skip(line, MESSAGES("rollout item type {kind} is not one this importer knows").format(kind=repr(kind)))


def _response_item(item: dict[str, Any], line: int, timestamp: float, asm: Assembler, turn: _Turn) -> None:
    kind = item.get("type")
    call_id = str(item.get("call_id") or item.get("id") or "")
    if kind == "message":
        role = item.get("role")
        found = texts(item.get("content"), line, asm)
        if role == "user":
            asm.user(line, found, timestamp)
        elif role == "assistant":
            asm.assistant(line, [text_block(t) for t in found], timestamp, provider=turn.provider, model=turn.model)
        elif role in ("developer", "system"):
            asm.system(line, "\n\n".join(found), timestamp)
        else:
            asm.skip(line, MESSAGES("a message with role {role}").format(role=repr(role)))
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        if kind == "function_call":
            call = tool_call(call_id, str(item.get("name", "")), item.get("arguments"))
        elif kind == "custom_tool_call":
            call = tool_call(call_id, str(item.get("name", "")), {"input": item.get("input", "")})
        else:
            call = tool_call(call_id, "local_shell", item.get("action"))
        asm.assistant(line, [call], timestamp, provider=turn.provider, model=turn.model)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        text, failed = _output(item.get("output"), line, asm)
        asm.tool_result(line, call_id, [text], timestamp, is_error=failed)
    elif kind == "reasoning":
        asm.skip(line, MESSAGES("a reasoning item (the course's messages have no reasoning blocks)"))
    elif kind == "web_search_call":
        action = object_at(item, "action")
        asm.skip(
            line,
            MESSAGES("a web search run by the server (query {query}); the log holds no result to pair with it").format(
                query=repr(action.get("query"))
            ),
        )
    else:
        asm.skip(line, MESSAGES("response item type {kind} is not one this importer knows").format(kind=repr(kind)))


def _output(output: Any, line: int, asm: Assembler) -> tuple[str, bool]:
    """The output text and whether it reports a failure (a non-zero exit code or ``success: false``)."""
    failed = False
    if isinstance(output, dict):
        failed = output.get("success") is False
        output = output.get("content", output.get("content_items", ""))
    if isinstance(output, list):
        return "\n".join(texts(output, line, asm)), failed
    text = str(output if output is not None else "")
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("metadata"), dict):
        code = parsed["metadata"].get("exit_code")
        failed = failed or (isinstance(code, int) and code != 0)
    match = EXIT_CODE.search(text)
    return text, failed or bool(match and int(match.group(1)) != 0)
