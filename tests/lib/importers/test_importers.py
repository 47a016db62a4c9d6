"""Importers: each format's sample log maps to course entries with nothing silently lost.

The samples in ``course_lib/importers/samples/`` are written for these tests from
the formats' public definitions (each test names the source file that defines
the fields it relies on). Every sample holds a few interactions, tool calls
answered out of order, an error result, a compaction, a branch or sidechain,
and the messy cases: thinking, a base64 image, an orphan result, a call without
a result, an entry type newer than the importer, two JSON objects on one line
and a truncated final line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from course_lib import (
    AssistantMessage,
    CompactionEntry,
    MessageEntry,
    MetadataEntry,
    ToolResultMessage,
    UserMessage,
    build_context,
    estimate_tokens_chars,
    group_interactions,
)
from course_lib.importers import Format, ImportedSession, SessionImportError, detect_format, load_session, sample_path

BUDGET = {"max_tokens": 200_000, "reserved_output": 16_384, "safety_margin": 2_000}


def _nonblank_lines(path: Path) -> set[int]:
    return {n for n, raw in enumerate(path.read_bytes().split(b"\n"), start=1) if raw.strip()}


def _check_session(session: ImportedSession) -> None:
    """The three guarantees every import gives, asserted for every sample."""
    entries = session.entries
    assert entries[0].parent_id is None
    assert all(e.parent_id == p.id for p, e in zip(entries, entries[1:])), "a root → leaf chain"
    assert len({e.id for e in entries}) == len(entries)
    group_interactions([e for e in entries if e.type == "message"])
    build_context(entries, estimate_tokens=estimate_tokens_chars, **BUDGET)
    build_context(entries, estimate_tokens=estimate_tokens_chars, max_tokens=60, reserved_output=10, safety_margin=0)
    # nothing silently lost: every non-blank line is carried, skipped with a reason, or structural
    carried = set(session.entry_lines.values())
    skipped = {skip.line for skip in session.skipped}
    assert carried | skipped | set(session.structural) == _nonblank_lines(session.source)
    assert all(skip.reason for skip in session.skipped)


def _ids(session: ImportedSession) -> list[str]:
    return [e.id for e in session.entries]


def _message(session: ImportedSession, entry_id: str) -> object:
    entry = next(e for e in session.entries if e.id == entry_id)
    assert isinstance(entry, MessageEntry)
    return entry.message


def _text(message: Any) -> list[str]:
    return [str(getattr(block, "text", None) or getattr(block, "name", "")) for block in message.content]


# --- pi ---------------------------------------------------------------------------


def test_pi_sample() -> None:
    """Fields from ``badlogic/pi-mono``: ``packages/coding-agent/src/core/session-manager.ts`` (the header,
    ``id``/``parentId``, ``compaction`` with ``summary``/``firstKeptEntryId``/``tokensBefore``,
    ``branch_summary``, ``model_change``, ``thinking_level_change``, ``label``, ``custom``; the leaf is the
    last entry, ``_buildIndex``), ``packages/coding-agent/src/core/messages.ts`` (``bashExecution`` with
    ``excludeFromContext``) and ``packages/ai/src/types.ts`` (messages, ``toolCall``, ``thinking``,
    ``image`` {data, mimeType}, ``usage``, ``stopReason``, ``isError``)."""
    session = load_session(sample_path("pi"))
    assert session.format == "pi"
    assert _ids(session) == [
        "m1", "t1", "u1", "a1", "r-test", "r-read", "a2", "u2", "a3", "r-test2", "a4", "bs1", "c1",
        "bash1", "a5", "l1", "x1", "edit-1:no-result", "u3", "a6", "u4", "a7",
    ]  # fmt: skip
    assert session.structural == (1,)
    assert [(s.line, s.reason.split(" (")[0]) for s in session.skipped] == [
        (13, "not on the active path"),
        (14, "not on the active path"),
        (22, "entry type 'future_entry' is not one this importer knows"),
        (23, "tool result for call 'ghost-1', which no assistant message of this interaction made"),
        (25, "a bash execution excluded from the model's context"),
        (27, "truncated final line"),
    ]
    assert [(n.line, n.text.split(" (")[0]) for n in session.notes] == [
        (5, "dropped a thinking block"),
        (7, "replaced a base64 image"),
        (18, "call 'edit-1'"),
    ]
    a1 = _message(session, "a1")
    assert isinstance(a1, AssistantMessage) and a1.stop_reason == "toolUse"
    assert _text(a1) == ["I will read the store and run its tests.", "read", "bash"]
    assert [e.id for e in session.entries][4:6] == ["r-test", "r-read"], "answered out of order, kept in path order"
    r_read = _message(session, "r-read")
    assert _text(r_read) == ["store.py: 270 lines loaded", "[image: image/png, 12 KB]"]
    r_test2 = _message(session, "r-test2")
    assert isinstance(r_test2, ToolResultMessage) and r_test2.is_error
    missing = _message(session, "edit-1:no-result")
    assert isinstance(missing, ToolResultMessage) and missing.is_error and _text(missing) == ["no result recorded"]
    assert _text(_message(session, "bs1")) == ["[Branch summary]\nRewriting the reader broke resume; went back."]
    assert _text(_message(session, "bash1"))[0].startswith("Ran `git status --short`")
    model = next(e for e in session.entries if e.id == "m1")
    assert isinstance(model, MetadataEntry) and model.key == "pi.model_change"
    assert model.value == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    compaction = next(e for e in session.entries if e.id == "c1")
    assert isinstance(compaction, CompactionEntry)
    assert (compaction.first_kept_entry_id, compaction.tokens_before) == ("u2", 5123)
    summary = compaction.summary
    assert summary.goal == "Make the reader report an unterminated tail."
    assert summary.constraints == ("Never rewrite committed bytes",)
    assert summary.completed == ("Read `course_lib/store.py`",)
    assert summary.unresolved == ("Fix the tail warning",)
    assert summary.decisions == ("**Skip the tail**: it was never committed",)
    assert summary.next == ("Add the warning",)
    assert summary.changed_files == ("course_lib/store.py",)
    _check_session(session)


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _pi_user(text: str) -> dict:
    return {"role": "user", "content": text, "timestamp": 1}


def _pi_assistant(text: str) -> dict:
    usage = {"input": 1, "output": 1, "totalTokens": 2}
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m",
            "usage": usage, "stopReason": "stop", "timestamp": 2}  # fmt: skip


def test_pi_v1_is_migrated_as_pi_migrates_it(tmp_path: Path) -> None:
    """``migrateV1ToV2`` in session-manager.ts: no version, no ids; ids chained in file order and
    ``firstKeptEntryIndex`` (an index into the file's entries, the header is 0) → ``firstKeptEntryId``."""
    path = _write(tmp_path / "v1.jsonl", [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"},
        {"type": "message", "timestamp": "2025-01-01T00:00:01Z", "message": _pi_user("first")},
        {"type": "message", "timestamp": "2025-01-01T00:00:02Z", "message": _pi_assistant("one")},
        {"type": "message", "timestamp": "2025-01-01T00:00:03Z", "message": _pi_user("second")},
        {"type": "message", "timestamp": "2025-01-01T00:00:04Z", "message": _pi_assistant("two")},
        {"type": "compaction", "timestamp": "2025-01-01T00:00:05Z", "summary": "Goal line\n- did one",
         "firstKeptEntryIndex": 3, "tokensBefore": 40},
        {"type": "message", "timestamp": "2025-01-01T00:00:06Z", "message": _pi_user("third")},
    ])  # fmt: skip
    session = load_session(path)
    assert session.format == "pi"
    assert _ids(session) == ["L2", "L3", "L4", "L5", "L6", "L7"]
    compaction = session.entries[4]
    assert isinstance(compaction, CompactionEntry) and compaction.first_kept_entry_id == "L4"
    assert compaction.summary.goal == "Goal line" and compaction.summary.completed == ("did one",)
    result = build_context(session.entries, estimate_tokens=estimate_tokens_chars, **BUDGET)
    assert result.kept_entry_ids == ("L4", "L5", "L7")
    _check_session(session)


def test_pi_v1_keeps_both_entries_of_a_line_that_holds_two_objects(tmp_path: Path) -> None:
    """A v1 log whose compaction was written onto the end of a message's line (a real log has one):
    both entries are recovered, the second with the id ``L<line>.2``, not skipped as a repeat of the first."""
    lines = [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"},
        {"type": "message", "timestamp": "2025-01-01T00:00:01Z", "message": _pi_user("first")},
        {"type": "message", "timestamp": "2025-01-01T00:00:02Z", "message": _pi_assistant("one")},
        {"type": "message", "timestamp": "2025-01-01T00:00:03Z", "message": _pi_user("second")},
        {"type": "message", "timestamp": "2025-01-01T00:00:04Z", "message": _pi_assistant("two")},
        {"type": "compaction", "timestamp": "2025-01-01T00:00:05Z", "summary": "Goal line\n- did one",
         "firstKeptEntryIndex": 3, "tokensBefore": 40},
        {"type": "message", "timestamp": "2025-01-01T00:00:06Z", "message": _pi_user("third")},
    ]  # fmt: skip
    text = "".join(json.dumps(line) + ("" if number == 4 else "\n") for number, line in enumerate(lines))
    path = tmp_path / "v1.jsonl"
    path.write_text(text, encoding="utf-8")
    session = load_session(path)
    assert not session.skipped
    assert _ids(session) == ["L2", "L3", "L4", "L5", "L5.2", "L6"]
    compaction = session.entries[4]
    assert isinstance(compaction, CompactionEntry) and compaction.first_kept_entry_id == "L4"
    _check_session(session)


def test_a_repeated_id_on_a_line_of_two_objects_says_so(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"}
    user = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2025-01-01T00:00:01Z",
            "message": _pi_user("hi")}  # fmt: skip
    path = tmp_path / "v3.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(user) + json.dumps(user) + "\n", encoding="utf-8")
    skipped = load_session(path).skipped
    assert [(skip.line, skip.reason) for skip in skipped] == [
        (2, "a second entry with id 'u1' (its line held more than one JSON object)")
    ]


def test_pi_v2_hook_message_is_a_custom_message_and_a_missing_parent_starts_the_path(tmp_path: Path) -> None:
    """``migrateV2ToV3``: role ``hookMessage`` → ``custom`` (sent as a user message, ``convertToLlm``)."""
    path = _write(tmp_path / "v2.jsonl", [
        {"type": "session", "version": 2, "id": "s", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/"},
        {"type": "message", "id": "h1", "parentId": "gone", "timestamp": "2025-01-01T00:00:01Z",
         "message": {"role": "hookMessage", "customType": "hook", "content": "from a hook", "display": True, "timestamp": 1}},
        {"type": "message", "id": "a1", "parentId": "h1", "timestamp": "2025-01-01T00:00:02Z", "message": _pi_assistant("ok")},
    ])  # fmt: skip
    session = load_session(path)
    assert _ids(session) == ["h1", "a1"]
    assert isinstance(_message(session, "h1"), UserMessage) and _text(_message(session, "h1")) == ["from a hook"]
    assert [n.text for n in session.notes] == ["parent 'gone' is not in the file; the active path starts here"]
    _check_session(session)


# --- Claude Code ------------------------------------------------------------------


def test_claude_code_sample() -> None:
    """Fields from ``neilberkman/ccrider`` ``research/schema.md`` (``uuid``/``parentUuid``, ``isSidechain``,
    ``message.content`` blocks ``text``/``tool_use`` {id, name, input}/``tool_result`` {tool_use_id,
    content, is_error}, ``usage``, ``stop_reason``, ``summary`` and ``file-history-snapshot`` records)
    and ``DRMacIver/claude-reliability`` ``notes/transcript-format.md`` (tool results in user records);
    the compact boundary (``subtype: compact_boundary``, null ``parentUuid``, ``logicalParentUuid``,
    ``compactMetadata.preTokens``, the ``isCompactSummary`` user record after it) as logs show it."""
    session = load_session(sample_path("claude-code"))
    assert session.format == "claude-code"
    assert _ids(session) == [
        "u1", "a1-text", "a1-read", "a1-test", "r-test", "r-read", "a2", "u2", "a3", "r-t2", "a4",
        "u3", "cb1", "a5", "toolu_edit:no-result", "u4", "a6", "u5", "a7",
    ]  # fmt: skip
    assert session.structural == (20,)
    assert [(s.line, s.reason.split(",")[0].split(" (")[0]) for s in session.skipped] == [
        (1, "a session title"),
        (2, "a record of type 'file-history-snapshot' without a uuid"),
        (4, "an assistant record holding only a thinking block"),
        (9, "a record of type 'progress'"),
        (16, "a sidechain"),
        (17, "a sidechain"),
        (18, "not on the active path"),
        (19, "not on the active path"),
        (22, "a system notice"),
        (25, "tool result for call 'toolu_ghost'"),
        (28, "a record of type 'attachment'"),
        (30, "truncated final line"),
    ]
    assert [n.line for n in session.notes] == [10, 24]
    read = _message(session, "r-read")
    assert isinstance(read, ToolResultMessage) and read.tool_name == "Read"
    assert _text(read) == ["store.py: 270 lines", "[image: image/png, 5 KB]"]
    failed = _message(session, "r-t2")
    assert isinstance(failed, ToolResultMessage) and failed.is_error
    assert _text(failed) == ["Exit code 1\nAssertionError: tail not reported"]
    call = _message(session, "a1-read")
    assert isinstance(call, AssistantMessage)
    assert call.content[0].arguments == {"file_path": "/work/demo/course_lib/store.py"}  # type: ignore[union-attr]  # its first block is the call
    assert call.usage.input == 1212 and call.usage.output == 40
    error = _message(session, "a6")
    assert isinstance(error, AssistantMessage) and error.stop_reason == "error"
    assert error.error_message == 'API Error: 529 {"type":"overloaded_error"}'
    compaction = next(e for e in session.entries if e.id == "cb1")
    assert isinstance(compaction, CompactionEntry)
    assert (compaction.parent_id, compaction.first_kept_entry_id, compaction.tokens_before) == ("u3", "u3", 48210)
    assert session.entry_lines["cb1"] == 21, "the summary record is the compaction's source"
    assert compaction.summary.goal.startswith("This session is being continued")
    assert "Primary Request: make the reader report an unterminated tail." in compaction.summary.completed
    result = build_context(session.entries, estimate_tokens=estimate_tokens_chars, **BUDGET)
    assert result.kept_entry_ids[0] == "u3", "summary + everything after the boundary, as Claude Code sends it"
    _check_session(session)


# --- Codex ------------------------------------------------------------------------


def test_codex_sample() -> None:
    """Fields from ``openai/codex``: ``codex-rs/protocol/src/protocol.rs`` (``RolloutLine`` {timestamp, type,
    payload}; ``RolloutItem`` session_meta / response_item / compacted {message} / turn_context / event_msg)
    and ``codex-rs/protocol/src/models.rs`` (``ResponseItem``: message {role, content input_text /
    output_text / input_image}, function_call {name, arguments (a JSON string), call_id},
    function_call_output {call_id, output}, custom_tool_call {call_id, name, input}, local_shell_call
    {call_id, action}, reasoning, web_search_call {action})."""
    session = load_session(sample_path("codex"))
    assert session.format == "codex"
    assert _ids(session) == [
        "L2", "L3", "L4", "L5", "L8", "L9", "L10", "L11", "L13", "L14", "L15", "L16", "L18",
        "call_ls:no-result", "L20", "L19", "L22", "L23", "L26",
    ]  # fmt: skip
    assert session.structural == (1,)
    assert [(s.line, s.reason.split(":")[0].split(" (")[0].split(";")[0]) for s in session.skipped] == [
        (6, "event_msg 'user_message'"),
        (7, "a reasoning item"),
        (12, "event_msg 'token_count'"),
        (17, "a web search run by the server"),
        (21, "tool result for call 'call_ghost', which no assistant message of this interaction made"),
        (24, "response item type 'ghost_snapshot' is not one this importer knows"),
        (25, "rollout item type 'future_rollout_kind' is not one this importer knows"),
        (26, "event_msg 'agent_message'"),
        (27, "truncated final line"),
    ]
    assert session.entries[0].message.role == "system"  # type: ignore[union-attr]  # a message entry
    results = {e.message.tool_call_id: e.message.is_error for e in session.entries
               if isinstance(e, MessageEntry) and isinstance(e.message, ToolResultMessage)}  # fmt: skip
    assert results == {"call_test": False, "call_read": False, "call_patch": True, "call_ls": True, "call_plan": False}
    assert [e.id for e in session.entries][6:8] == ["L10", "L11"], "call_test answered before call_read"
    shell = _message(session, "L8")
    assert shell.content[0].arguments == {"command": ["bash", "-lc", "sed -n 1,80p course_lib/store.py"]}  # type: ignore[attr-defined]  # an assistant message
    assert shell.model == "gpt-5-codex" and shell.provider == "openai"  # type: ignore[attr-defined]  # an assistant message
    plan = _message(session, "L22").content[0]  # type: ignore[attr-defined]  # an assistant message
    assert plan.arguments == {"raw": "{plan: [unquoted"} and plan.raw_arguments == "{plan: [unquoted"
    assert _text(_message(session, "L14"))[1] == "[image: image/png, 2 KB]"
    compaction = next(e for e in session.entries if e.id == "L19")
    assert isinstance(compaction, CompactionEntry) and compaction.first_kept_entry_id == "L20"
    assert compaction.summary.goal == "Make the reader report an unterminated tail."
    assert compaction.summary.next == ("Add the warning", "Rerun the tests")
    _check_session(session)


# --- course -----------------------------------------------------------------------


def test_course_sample() -> None:
    session = load_session(sample_path("course"))
    assert session.format == "course"
    assert _ids(session) == [
        "sys",
        "u1",
        "a1",
        "u2",
        "a2",
        "u3",
        "calls",
        "r-test",
        "r-read",
        "a3",
        "compact-1",
        "u4",
        "a4",
    ]
    assert [(s.line, s.reason) for s in session.skipped] == [
        (6, "not on the active path (an abandoned branch)"),
        (7, "not on the active path (an abandoned branch)"),
        (16, "line 16 has no newline (an unterminated tail, skipped)"),
    ]
    _check_session(session)


def test_course_bad_line_names_it(tmp_path: Path) -> None:
    lines = sample_path("course").read_text().split("\n")
    lines[3] = '{"type": "message", "id": "broken"'
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines))
    with pytest.raises(SessionImportError) as error:
        load_session(path, format="course")
    assert error.value.line == 4


# --- detection --------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["course", "pi", "claude-code", "codex"])
def test_auto_detects_each_sample(fmt: Format) -> None:
    assert detect_format(sample_path(fmt)) == fmt


def test_an_unknown_shape_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('\n{"hello": "world"}\n')
    with pytest.raises(SessionImportError, match="line 2") as error:
        load_session(path)
    assert error.value.line == 2
    with pytest.raises(ValueError, match="unknown format"):
        load_session(path, format="gemini")


def test_the_samples_are_declared_package_data() -> None:
    """A wheel carries the samples, so a notebook can open one from an installed package."""
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())
    assert pyproject["tool"]["setuptools"]["package-data"]["course_lib.importers"] == ["samples/*.jsonl"]
    assert all(sample_path(fmt).is_file() for fmt in ("course", "pi", "claude-code", "codex"))


def test_detection_reads_only_the_head_and_names_a_bad_first_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('\n{"type": "session", "version": 3, "id": "s"}\nnot json at all\n')
    assert detect_format(path) == "pi", "a bad line after the first object does not matter for detection"
    path.write_text("garbage\n")
    with pytest.raises(SessionImportError) as error:
        detect_format(path)
    assert error.value.line == 1
    path.write_text("\n\n")
    with pytest.raises(SessionImportError, match="no JSON object"):
        load_session(path)
