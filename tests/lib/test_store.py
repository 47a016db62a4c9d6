"""Session stores: in memory and JSONL (R7–R9; §8 test 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from wire_samples import (
    assistant_wire,
    compaction_wire,
    little_session_wire,
    metadata_wire,
    shared_containers,
    tool_result_wire,
    user_wire,
)

from course_lib import (
    InMemorySessionStore,
    JsonlSessionStore,
    SessionEntryError,
    SessionStoreError,
    parse_session_entry,
    recover_jsonl,
    to_json_dict,
)


def _line(wire: dict[str, Any]) -> str:
    return json.dumps(wire, ensure_ascii=False) + "\n"


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


# --- R7: both stores ----------------------------------------------------------------------


@pytest.fixture(params=["memory", "jsonl"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> InMemorySessionStore:
    if request.param == "memory":
        return InMemorySessionStore()
    return JsonlSessionStore.open(tmp_path / "store.jsonl", fsync=False)


def test_r7_append_takes_a_snapshot_of_the_input(store: InMemorySessionStore) -> None:
    root = user_wire("u1", None)
    store.append(root)
    source = compaction_wire(parent="u1")
    store.append(source)
    source["summary"]["decisions"].append("smuggled")
    source["firstKeptEntryId"] = "zz"
    root["message"]["content"][0]["text"] = "changed"
    assert to_json_dict(store.entries()) == [user_wire("u1", None), compaction_wire(parent="u1")]


def test_r7_entries_and_append_return_copies(store: InMemorySessionStore) -> None:
    returned = store.append(metadata_wire("m", None))
    returned.value["names"].append("c")
    listed = store.entries()
    listed[0].value["n"] = 99
    listed.clear()
    assert to_json_dict(store.entries()) == [metadata_wire("m", None)]
    assert shared_containers(store.entries(), store.entries()) == []


def test_r7_accepts_models_and_mappings(store: InMemorySessionStore) -> None:
    store.append(parse_session_entry(user_wire("u1", None)))
    store.append(assistant_wire("a1", "u1"))
    assert [e.id for e in store.entries()] == ["u1", "a1"]


def test_r7_refuses_a_duplicate_id_naming_it(store: InMemorySessionStore) -> None:
    store.append(user_wire("u1", None))
    with pytest.raises(SessionStoreError, match="'u1'") as info:
        store.append(user_wire("u1", None))
    assert info.value.entry_id == "u1"
    assert len(store.entries()) == 1


def test_r7_refuses_an_unknown_parent_naming_the_entry(store: InMemorySessionStore) -> None:
    store.append(user_wire("u1", None))
    with pytest.raises(SessionStoreError, match=r"'a9'.*'ghost'") as info:
        store.append(assistant_wire("a9", "ghost"))
    assert info.value.entry_id == "a9"


def test_r7_a_bad_entry_is_a_session_entry_error(store: InMemorySessionStore) -> None:
    bad = compaction_wire(parent="u1")
    bad["summary"]["files"] = []
    store.append(user_wire("u1", None))
    with pytest.raises(SessionEntryError, match=r"compact-1\.summary\.files"):
        store.append(bad)
    assert len(store.entries()) == 1


def test_r7_several_roots_are_allowed(store: InMemorySessionStore) -> None:
    store.append(user_wire("u1", None))
    store.append(user_wire("u2", None))
    assert [e.parent_id for e in store.entries()] == [None, None]


# --- §8 test 3 and R9 -----------------------------------------------------------------------


def test_r9_both_stores_append_root_and_compaction_and_jsonl_reopens_deep_equal(session_file: Path) -> None:
    """§8 test 3."""
    memory = InMemorySessionStore()
    jsonl = JsonlSessionStore.open(session_file)
    for wire in (user_wire("u1", None), compaction_wire(parent="u1")):
        memory.append(wire)
        jsonl.append(wire)
    jsonl.close()
    reopened = JsonlSessionStore.open(session_file)
    assert reopened.entries() == memory.entries() == jsonl.entries()
    assert reopened.entries()[1].type == "compaction"
    assert reopened.read().warnings == ()


def test_r8_file_holds_one_wire_format_entry_per_line(session_file: Path) -> None:
    with JsonlSessionStore.open(session_file, fsync=False) as store:
        for wire in little_session_wire():
            store.append(wire)
    data = session_file.read_bytes()
    assert data.endswith(b"\n")
    lines = data.decode("utf-8").split("\n")[:-1]
    assert [json.loads(line) for line in lines] == little_session_wire()


ODD_TEXTS = [
    "中文：会话历史保持不变",
    "emoji 🧪🚀👩‍💻",
    "line\u2028separator\u2029paragraph",
    "control \x00\x01\x07\x1b\x7f chars",
    "newline\nreturn\r\ntab\t",
    'quotes " and \\ backslash',
    "",
    "\ufeffbom and \U0010ffff last plane",
]


def _varied_entry(index: int, parent: str | None) -> dict[str, Any]:
    text = ODD_TEXTS[index % len(ODD_TEXTS)] + f" #{index}"
    entry_id = f"e{index}-{ODD_TEXTS[index % 3][:2]}"
    kind = index % 5
    if kind == 0:
        wire = user_wire(entry_id, parent, text=text, ts=index)
    elif kind == 1:
        wire = assistant_wire(entry_id, parent, ts=index + 0.5)
        wire["message"]["content"][0]["text"] = text
        wire["message"]["content"][1]["arguments"] = {"text": text, "n": index, "nested": [{"k": None}, True]}
    elif kind == 2:
        wire = tool_result_wire(entry_id, parent, ts=index)
        wire["message"]["content"][0]["text"] = text
        wire["message"]["details"] = {text: [text, 1.25]}
    elif kind == 3:
        wire = metadata_wire(entry_id, parent, ts=index)
        wire["value"] = {"label": text, "list": [text, -3, 2.5e-8]}
    else:
        wire = compaction_wire(entry_id, parent)
        wire["summary"]["goal"] = text + " goal"
        wire["summary"]["unresolved"] = [text, text]
        wire["tokensBefore"] = index * 1.5
    return wire


@pytest.mark.slow  # a thousand entries written and read back: make test, not make check
def test_r9_thousand_unicode_entries_reopen_deep_equal(session_file: Path) -> None:
    """R9 with CJK, emoji, U+2028/U+2029, control characters and every entry type."""
    wires: list[dict[str, Any]] = []
    parent: str | None = None
    for index in range(1000):
        wires.append(_varied_entry(index, parent))
        parent = wires[-1]["id"]
    with JsonlSessionStore.open(session_file, fsync=False) as store:
        appended = [store.append(wire) for wire in wires]
    data = session_file.read_bytes()
    assert data.count(b"\n") == 1000  # no raw newline leaked out of a text
    reopened = JsonlSessionStore.open(session_file)
    assert reopened.entries() == appended
    assert to_json_dict(reopened.entries()) == wires
    assert recover_jsonl(data.decode("utf-8")).entries == appended


# --- R8: the commit marker, tails, bad lines, failing closed ---------------------------------


def test_r8_unterminated_tail_is_skipped_with_a_warning_and_blocks_appends(session_file: Path) -> None:
    """A crash mid-write leaves a line without a newline: read it as not committed, refuse to append."""
    committed = _line(user_wire("u1", None)) + _line(assistant_wire("a1", "u1"))
    partial = _line(tool_result_wire("r1", "a1"))[:-20]
    session_file.write_text(committed + partial, encoding="utf-8")
    before = session_file.read_bytes()

    store = JsonlSessionStore.open(session_file)
    assert [e.id for e in store.entries()] == ["u1", "a1"]
    assert [(w.code, w.line) for w in store.warnings] == [("unterminated_tail", 3)]
    read = store.read()
    assert [e.id for e in read.entries] == ["u1", "a1"]
    assert [(w.code, w.line) for w in read.warnings] == [("unterminated_tail", 3)]
    assert "line 3" in read.warnings[0].message

    with pytest.raises(SessionStoreError):
        store.append(tool_result_wire("r1", "a1"))
    with pytest.raises(SessionStoreError):
        store.append(user_wire("u9", None))
    assert session_file.read_bytes() == before


def test_r8_a_complete_json_object_without_newline_is_still_uncommitted(session_file: Path) -> None:
    """The newline, not a parsable object, is the commit marker."""
    session_file.write_text(_line(user_wire("u1", None)) + _line(assistant_wire("a1", "u1")).rstrip("\n"))
    store = JsonlSessionStore.open(session_file)
    assert [e.id for e in store.entries()] == ["u1"]
    assert [(w.code, w.line) for w in store.warnings] == [("unterminated_tail", 2)]
    with pytest.raises(SessionStoreError):
        store.append(assistant_wire("a1", "u1"))


def test_r8_blank_lines_are_ignored_and_still_counted(session_file: Path) -> None:
    text = "\n" + _line(user_wire("u1", None)) + "   \n\n" + _line(assistant_wire("a1", "u1")) + "\n" + '{"type":'
    session_file.write_text(text)
    store = JsonlSessionStore.open(session_file)
    assert [e.id for e in store.entries()] == ["u1", "a1"]
    assert [w.line for w in store.warnings] == [7]


def test_r8_blank_lines_only_and_a_missing_file_are_empty(session_file: Path) -> None:
    assert JsonlSessionStore.open(session_file).entries() == []
    assert not session_file.exists()  # opening does not create or touch anything
    session_file.write_text("\n \n\t\n")
    store = JsonlSessionStore.open(session_file)
    assert store.entries() == [] and store.warnings == ()
    store.append(user_wire("u1", None))
    assert session_file.read_text().startswith("\n \n\t\n")


@pytest.mark.parametrize(
    ("bad_line", "needle"),
    [
        ('{"type": "message", "id": "a1", ', "not valid JSON"),
        ("[1, 2, 3]", "must be an object"),
        ('"just text"', "must be an object"),
        (json.dumps(compaction_wire(parent="u1") | {"compactedEntryIds": []}), "compact-1.compactedEntryIds"),
    ],
    ids=["broken json", "array", "string", "legacy key"],
)
def test_r8_malformed_committed_line_names_its_line_number(session_file: Path, bad_line: str, needle: str) -> None:
    session_file.write_text(_line(user_wire("u1", None)) + "\n" + bad_line + "\n" + _line(assistant_wire("a1", "u1")))
    with pytest.raises(SessionEntryError, match=r"line 3\b") as info:
        JsonlSessionStore.open(session_file)
    assert info.value.line == 3
    assert needle in str(info.value)
    with pytest.raises(SessionEntryError, match=r"line 3\b"):
        recover_jsonl(session_file.read_text())


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_r8_non_finite_number_in_a_committed_line_is_rejected_with_its_line(session_file: Path, token: str) -> None:
    """R1 on disk: NaN/Infinity tokens (and overflowing numbers) are not finite JSON numbers."""
    line = _line(compaction_wire(parent="u1")).replace('"tokensBefore": 29', f'"tokensBefore": {token}')
    assert token in line
    session_file.write_text(_line(user_wire("u1", None)) + line)
    with pytest.raises(SessionEntryError, match=r"line 2\b") as info:
        JsonlSessionStore.open(session_file)
    assert info.value.line == 2


def test_r8_nan_inside_free_json_on_disk_is_rejected(session_file: Path) -> None:
    line = _line(metadata_wire("m", None)).replace('"n": 2', '"n": NaN')
    session_file.write_text(line)
    with pytest.raises(SessionEntryError, match=r"line 1\b"):
        JsonlSessionStore.open(session_file)


def test_r8_word_nan_inside_a_string_is_just_text(session_file: Path) -> None:
    wire = user_wire("u1", None, text="NaN and Infinity are words here")
    session_file.write_text(_line(wire))
    assert to_json_dict(JsonlSessionStore.open(session_file).entries()) == [wire]


def test_r7_r8_duplicate_or_orphan_on_disk_names_the_line(session_file: Path) -> None:
    session_file.write_text(_line(user_wire("u1", None)) + _line(user_wire("u1", None)))
    with pytest.raises(SessionStoreError, match=r"line 2.*'u1'") as info:
        JsonlSessionStore.open(session_file)
    assert (info.value.line, info.value.entry_id) == (2, "u1")
    session_file.write_text(_line(user_wire("u1", None)) + _line(assistant_wire("a1", "ghost")))
    with pytest.raises(SessionStoreError, match=r"line 2.*'a1'"):
        JsonlSessionStore.open(session_file)


def test_r8_existing_bytes_are_never_rewritten_or_truncated(session_file: Path) -> None:
    chain = little_session_wire()
    with JsonlSessionStore.open(session_file, fsync=False) as store:
        for wire in chain[:2]:
            store.append(wire)
    first = session_file.read_bytes()
    with JsonlSessionStore.open(session_file, fsync=False) as store:
        store.append(chain[2])
        second = session_file.read_bytes()
        store.append(chain[3])
    third = session_file.read_bytes()
    with JsonlSessionStore.open(session_file, fsync=False) as store:
        store.append(chain[4])
    fourth = session_file.read_bytes()
    assert second.startswith(first) and third.startswith(second) and fourth.startswith(third)
    assert json.loads(fourth[len(third) :]) == chain[4]


def test_r8_refused_appends_write_nothing(session_file: Path) -> None:
    store = JsonlSessionStore.open(session_file, fsync=False)
    store.append(user_wire("u1", None))
    before = session_file.read_bytes()
    for bad in (user_wire("u1", None), assistant_wire("a1", "ghost"), user_wire("u2", None) | {"extra": 1}):
        with pytest.raises((SessionStoreError, SessionEntryError)):
            store.append(bad)
    assert session_file.read_bytes() == before
    store.append(assistant_wire("a1", "u1"))  # a refused entry does not close the store
    assert [e.id for e in JsonlSessionStore.open(session_file).entries()] == ["u1", "a1"]


def test_r8_fails_closed_after_fsync_fails(session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = JsonlSessionStore.open(session_file)
    store.append(user_wire("u1", None))

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(SessionStoreError) as info:
        store.append(assistant_wire("a1", "u1"))
    assert info.value.entry_id == "a1"
    monkeypatch.undo()  # the disk is healthy again, but the store stays closed
    after_failure = session_file.read_bytes()
    with pytest.raises(SessionStoreError):
        store.append(user_wire("u2", None))
    assert session_file.read_bytes() == after_failure
    assert [e.id for e in store.entries()] == ["u1"]


class _FailingFile:
    """A real file (so it can be locked) whose writes fail, as on a full disk."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    def __enter__(self) -> _FailingFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._handle.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


def test_r8_fails_closed_after_a_write_fails(session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session_file.write_text(_line(user_wire("u1", None)))
    before = session_file.read_bytes()
    store = JsonlSessionStore.open(session_file)
    real_open = open
    monkeypatch.setattr("course_lib.store.open", lambda *a, **k: _FailingFile(real_open(*a, **k)), raising=False)
    with pytest.raises(SessionStoreError, match="No space left"):
        store.append(assistant_wire("a1", "u1"))
    monkeypatch.undo()
    with pytest.raises(SessionStoreError):
        store.append(assistant_wire("a1", "u1"))
    assert session_file.read_bytes() == before
    store.close()


def test_r8_fsync_false_skips_fsync(session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd))
    with JsonlSessionStore.open(session_file, fsync=False) as store:
        store.append(user_wire("u1", None))
    assert calls == []
    with JsonlSessionStore.open(session_file) as store:
        store.append(assistant_wire("a1", "u1"))
    assert len(calls) == 1
    assert [e.id for e in JsonlSessionStore.open(session_file).entries()] == ["u1", "a1"]


# --- recovery -----------------------------------------------------------------------------------


def test_r8_recover_jsonl_reads_text_like_a_store() -> None:
    text = _line(user_wire("u1", None)) + "\n" + _line(assistant_wire("a1", "u1")) + '{"type": "mess'
    result = recover_jsonl(text)
    assert [e.id for e in result.entries] == ["u1", "a1"]
    assert [(w.code, w.line) for w in result.warnings] == [("unterminated_tail", 4)]
    assert recover_jsonl("").entries == [] and recover_jsonl("").warnings == ()


def test_r8_recover_into_copies_committed_entries_and_leaves_the_source(tmp_path: Path) -> None:
    source = tmp_path / "crashed.jsonl"
    target = tmp_path / "clean.jsonl"
    source.write_text(_line(user_wire("u1", None)) + _line(assistant_wire("a1", "u1")) + '{"type"', encoding="utf-8")
    before = source.read_bytes()
    recovered = JsonlSessionStore.recover_into(source, target, fsync=False)
    assert source.read_bytes() == before
    assert [e.id for e in recovered.entries()] == ["u1", "a1"]
    recovered.append(tool_result_wire("r1", "a1"))
    recovered.close()
    reopened = JsonlSessionStore.open(target)
    assert [e.id for e in reopened.entries()] == ["u1", "a1", "r1"]
    assert reopened.warnings == ()
    with pytest.raises(SessionStoreError, match="exists"):
        JsonlSessionStore.recover_into(source, target)
    assert [e.id for e in JsonlSessionStore.open(target).entries()] == ["u1", "a1", "r1"]


def test_r1_r9_text_utf8_cannot_hold_is_refused_when_parsed(tmp_path: Path) -> None:
    """A lone surrogate fits in a Python string but not in a UTF-8 JSON line: the parser
    refuses it naming the field, so a store is never handed an entry it cannot write."""
    path = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(path)
    store.append(user_wire("u1", None))
    before = path.read_bytes()
    with pytest.raises(SessionEntryError, match=r"u2\.message\.content\[0\]\.text holds a lone surrogate"):
        store.append(user_wire("u2", "u1", text="broken \ud800 text"))
    assert path.read_bytes() == before
    store.append(user_wire("u2", "u1", text="mended"))
    assert [e.id for e in JsonlSessionStore.open(path).entries()] == ["u1", "u2"]
