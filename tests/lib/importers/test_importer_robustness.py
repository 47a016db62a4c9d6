"""No log may crash an import: random records in each format's shape import or stop with SessionImportError,
and whatever imports satisfies the course's rules (a chain, whole groups, a valid projection)."""

from __future__ import annotations

import json
from pathlib import Path
from tempfile import TemporaryDirectory

from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib import build_context, estimate_tokens_chars, group_interactions
from course_lib.importers import SessionImportError, load_session

IDS = st.sampled_from(["a", "b", "c", "d", "e", None, "gone"])
TEXT = st.sampled_from(["", "hi", "line\nbreak", "x" * 30])
CALL = st.sampled_from(["c1", "c2", "c3", ""])
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), TEXT)


def _block() -> st.SearchStrategy[dict]:
    return st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, TEXT),
        st.builds(lambda t: {"type": "thinking", "thinking": t}, TEXT),
        st.builds(lambda c, n: {"type": "toolCall", "id": c, "name": n, "arguments": {"k": 1}}, CALL, TEXT),
        st.builds(lambda c, n: {"type": "tool_use", "id": c, "name": n, "input": {"k": 1}}, CALL, TEXT),
        st.builds(
            lambda c, e: {"type": "tool_result", "tool_use_id": c, "content": "out", "is_error": e}, CALL, st.booleans()
        ),
        st.just({"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}),
        st.just({"type": "input_image", "image_url": "data:image/png;base64,aGk="}),
        st.builds(lambda t: {"type": "mystery", "x": t}, SCALAR),
    )


CONTENT = st.one_of(TEXT, st.lists(_block(), max_size=3), SCALAR)


def _pi_record() -> st.SearchStrategy[dict]:
    message = st.fixed_dictionaries(
        {
            "role": st.sampled_from(
                ["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage", "alien"]
            ),
            "content": CONTENT,
            "toolCallId": CALL,
            "toolName": TEXT,
            "isError": SCALAR,
            "stopReason": SCALAR,
            "usage": st.one_of(st.none(), st.just({"input": 1, "output": "x"})),
            "timestamp": SCALAR,
            "command": TEXT,
            "output": TEXT,
            "excludeFromContext": SCALAR,
        }
    )
    return st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["message", "compaction", "branch_summary", "custom_message", "label", "model_change", "future"]
            ),
            "id": IDS,
            "parentId": IDS,
            "timestamp": SCALAR,
            "message": message,
            "summary": TEXT,
            "firstKeptEntryId": IDS,
            "firstKeptEntryIndex": st.integers(-1, 8),
            "tokensBefore": SCALAR,
            "content": CONTENT,
        }
    )


def _claude_record() -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(
        {
            "type": st.sampled_from(["user", "assistant", "system", "summary", "progress", "attachment"]),
            "uuid": IDS,
            "parentUuid": IDS,
            "logicalParentUuid": IDS,
            "isSidechain": st.booleans(),
            "subtype": st.sampled_from(["compact_boundary", "local_command", None]),
            "isCompactSummary": st.booleans(),
            "isApiErrorMessage": st.booleans(),
            "timestamp": SCALAR,
            "message": st.fixed_dictionaries(
                {"content": CONTENT, "stop_reason": SCALAR, "model": SCALAR, "usage": SCALAR}
            ),
        }
    )


def _codex_record() -> st.SearchStrategy[dict]:
    payload = st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                [
                    "message",
                    "function_call",
                    "function_call_output",
                    "custom_tool_call",
                    "local_shell_call",
                    "reasoning",
                    "web_search_call",
                    "other",
                ]
            ),
            "role": st.sampled_from(["user", "assistant", "developer", "tool"]),
            "content": CONTENT,
            "call_id": CALL,
            "name": TEXT,
            "arguments": st.sampled_from(['{"a": 1}', "not json", "[1]", ""]),
            "output": st.one_of(TEXT, st.just('{"output": "x", "metadata": {"exit_code": 2}}')),
            "message": TEXT,
            "model": SCALAR,
        }
    )
    return st.fixed_dictionaries(
        {
            "type": st.sampled_from(["response_item", "compacted", "turn_context", "event_msg", "new_kind"]),
            "timestamp": SCALAR,
            "payload": payload,
        }
    )


def _import(header: dict | None, records: list[dict], fmt: str) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        lines = ([header] if header else []) + records
        path.write_text("".join(json.dumps(r) + "\n" for r in lines))
        try:
            session = load_session(path, format=fmt)
        except SessionImportError:
            return
        entries = session.entries
        assert all(e.parent_id == p.id for p, e in zip(entries, entries[1:]))
        group_interactions([e for e in entries if e.type == "message"])
        build_context(entries, max_tokens=50, reserved_output=5, safety_margin=0, estimate_tokens=estimate_tokens_chars)


FUZZ = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from([1, 2, 3]), st.lists(_pi_record(), max_size=8))
def test_random_pi_logs_import_or_stop_cleanly(version: int, records: list[dict]) -> None:
    _import({"type": "session", "version": version, "id": "s"}, records, "pi")


@FUZZ
@given(st.lists(_claude_record(), max_size=8))
def test_random_claude_code_logs_import_or_stop_cleanly(records: list[dict]) -> None:
    _import(None, records, "claude-code")


@FUZZ
@given(st.lists(_codex_record(), max_size=8))
def test_random_codex_logs_import_or_stop_cleanly(records: list[dict]) -> None:
    _import({"type": "session_meta", "payload": {"model_provider": "openai"}}, records, "codex")
