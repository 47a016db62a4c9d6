"""The JSONL store under faults: nothing accepted becomes unreadable, recovery is
all or nothing, one writer per file, and every way in applies the same rules (R1, R7–R9)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from wire_samples import assistant_wire, compaction_wire, tool_result_wire, user_wire

from course_lib import (
    JsonlSessionStore,
    SessionEntryError,
    SessionLockedError,
    SessionStoreError,
    parse_session_entry,
    recover_jsonl,
    to_json_dict,
)
from course_lib.lifecycle import open_session_writer

PYDANTIC_PHRASES = ("Input should", "unable to parse", "validation error", "Value error", "pydantic", "utf-32", "codec")


def _line(wire: dict[str, Any]) -> str:
    return json.dumps(wire, ensure_ascii=False) + "\n"


def _metadata(value: Any = 1, **changes: Any) -> dict[str, Any]:
    return {"type": "metadata", "id": "m", "parentId": None, "timestamp": 10, "key": "k", "value": value} | changes


READERS: dict[str, Callable[[Path], object]] = {
    "open": JsonlSessionStore.open,
    "read": lambda path: JsonlSessionStore(path).read(),
    "recover_jsonl": lambda path: recover_jsonl(path.read_text(encoding="utf-8", errors="surrogateescape")),
    "recover_into": lambda path: JsonlSessionStore.recover_into(path, path.with_name("clean.jsonl")),
}
"""Every way a file comes in: each must apply the same rules and name the line."""


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


# --- 1. numbers the parser accepts round-trip -----------------------------------------------


def _huge_in(where: str, number: int) -> dict[str, Any]:
    if where == "timestamp":
        return _metadata(timestamp=number)
    if where == "value":
        return _metadata({"nested": [1, number]})
    wire = {"usage": assistant_wire(parent=None), "arguments": assistant_wire(parent=None)}.get(where, {})
    if where == "usage":
        wire["message"]["usage"]["input"] = number
    elif where == "arguments":
        wire["message"]["content"][1]["arguments"]["n"] = number
    elif where == "details":
        wire = tool_result_wire(parent=None)
        wire["message"]["details"] = [number]
    elif where == "tokensBefore":
        wire = compaction_wire(parent="m") | {"tokensBefore": number}
    return wire


HUGE_PLACES = {
    "timestamp": "m.timestamp",
    "value": "m.value.nested[1]",
    "usage": "a1.message.usage.input",
    "arguments": "a1.message.content[1].arguments.n",
    "details": "r1.message.details[0]",
    "tokensBefore": "compact-1.tokensBefore",
}


@pytest.mark.parametrize("number", [10**5000, -(10**400), 2**1024 - 2**970], ids=["1e5000", "-1e400", "first infinite"])
@pytest.mark.parametrize("where", list(HUGE_PLACES))
def test_r1_r9_an_integer_past_the_double_range_is_refused_when_appended(
    session_file: Path, where: str, number: int
) -> None:
    """Issue 12.1: the append used to succeed and leave a file no reader could open."""
    if where == "usage" and number < 0:
        number = -number  # a negative usage is refused for its sign; the size is what is tested here
    store = JsonlSessionStore.open(session_file)
    if where == "tokensBefore":
        store.append(_metadata())
    before = session_file.read_bytes() if session_file.exists() else b""
    with pytest.raises(SessionEntryError) as info:
        store.append(_huge_in(where, number))
    assert str(info.value).endswith(f"{HUGE_PLACES[where]} must be a finite number")
    assert len(str(info.value)) < 120
    assert (session_file.read_bytes() if session_file.exists() else b"") == before
    JsonlSessionStore.open(session_file)  # still opens


@pytest.mark.parametrize("digits", [310, 5000])
def test_r1_r8_an_integer_past_the_double_range_on_disk_names_line_and_field(session_file: Path, digits: int) -> None:
    session_file.write_text(
        _line(_metadata()) + _line(user_wire("u1", None)).replace('"timestamp": 1,', f'"timestamp": {"9" * digits},')
    )
    for name, read in READERS.items():
        with pytest.raises(SessionEntryError) as info:
            read(session_file)
        assert str(info.value) == "line 2: session message u1.timestamp must be a finite number", name
        assert info.value.line == 2


@pytest.mark.parametrize("big", [int(sys.float_info.max), 2**1024 - 2**970 - 1], ids=["float max", "largest finite"])
def test_r9_the_largest_finite_integer_round_trips(session_file: Path, big: int) -> None:
    """JSON.parse reads it as sys.float_info.max: finite, so it is kept exactly."""
    with JsonlSessionStore.open(session_file) as store:
        store.append(_metadata({"big": big, "small": -big}, timestamp=big))
    assert to_json_dict(JsonlSessionStore.open(session_file).entries()) == [
        _metadata({"big": big, "small": -big}, timestamp=big)
    ]


# --- 2. lone surrogates: parser and store agree ------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "where"),
    [
        (_metadata("\ud800"), "session metadata m.value"),
        (_metadata({"\udfff": 1}), "session metadata m.value key"),
        (_metadata(["ok", {"a": "x\ud800y"}]), "session metadata m.value[1].a"),
        (_metadata(key="k\udc00"), "session metadata m.key"),
        (user_wire("u\ud800", None), "session message u\\ud800.id"),
        (user_wire("u1", None, text="\ud83d"), "session message u1.message.content[0].text"),
    ],
)
def test_r1_r2_a_lone_surrogate_is_refused_naming_the_field(wire: dict[str, Any], where: str) -> None:
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(wire)
    assert str(info.value) == f"{where} holds a lone surrogate, which UTF-8 cannot store"
    str(info.value).encode("utf-8")  # the message itself can always be printed


def test_r8_an_escaped_lone_surrogate_on_disk_is_refused_the_same_way_by_every_reader(session_file: Path) -> None:
    """Issue 12.2: such a file opened, but recover_into failed, so appends stayed blocked."""
    line = '{"type":"metadata","id":"m0","parentId":null,"timestamp":1,"key":"k","value":"\\ud800"}\n'
    session_file.write_text(line + '{"type": "meta')
    for name, read in READERS.items():
        with pytest.raises(SessionEntryError) as info:
            read(session_file)
        assert (
            str(info.value) == "line 1: session metadata m0.value holds a lone surrogate, which UTF-8 cannot store"
        ), name
    assert not session_file.with_name("clean.jsonl").exists()


def test_r9_an_escaped_surrogate_pair_is_one_character(session_file: Path) -> None:
    session_file.write_text(
        '{"type":"metadata","id":"m0","parentId":null,"timestamp":1,"key":"k","value":"\\ud83d\\ude00"}\n'
    )
    assert JsonlSessionStore.open(session_file).entries()[0].value == "\U0001f600"


# --- 3. one writer per file, whatever its name ------------------------------------------------------


def test_r8_a_symlink_to_a_held_session_is_refused(tmp_path: Path) -> None:
    """Issue 12.3: the sidecar lock was keyed on the name, so a symlink got a second writer."""
    session, link = tmp_path / "s.jsonl", tmp_path / "link.jsonl"
    session.touch()
    link.symlink_to(session)
    with open_session_writer(session, fsync=False) as first:
        first.append(user_wire("u1", None))
        with pytest.raises(SessionLockedError, match=r"link\.jsonl already has a writer"):
            with open_session_writer(link, fsync=False):
                pytest.fail("a second name must not give a second writer")
        first.append(assistant_wire("a1", "u1"))
    assert [e.id for e in JsonlSessionStore.open(link).entries()] == ["u1", "a1"]


def test_r8_a_hard_link_to_a_held_session_is_refused(tmp_path: Path) -> None:
    session, other = tmp_path / "s.jsonl", tmp_path / "other.jsonl"
    session.touch()
    os.link(session, other)
    with JsonlSessionStore.open(session, fsync=False) as first:
        first.append(user_wire("u1", None))
        second = JsonlSessionStore.open(other, fsync=False)
        with pytest.raises(SessionLockedError) as info:
            second.append(user_wire("u2", None))
        assert info.value.session == "other.jsonl"


def test_r8_a_plain_store_takes_the_lock_at_its_first_append_and_holds_it_until_close(session_file: Path) -> None:
    first = JsonlSessionStore.open(session_file, fsync=False)
    second = JsonlSessionStore.open(session_file, fsync=False)
    first.append(user_wire("u1", None))
    with pytest.raises(SessionLockedError, match=r"session\.jsonl already has a writer"):
        second.append(user_wire("u1", None))
    assert [e.id for e in second.read().entries] == ["u1"]  # a reader needs no lock
    first.close()
    with pytest.raises(SessionStoreError, match="changed after this store read it"):
        second.append(user_wire("u1", None))  # it would repeat u1: the file grew since it was read
    assert [e.id for e in JsonlSessionStore.open(session_file).entries()] == ["u1"]
    with JsonlSessionStore.open(session_file, fsync=False) as third:
        third.append(assistant_wire("a1", "u1"))
    assert [e.id for e in JsonlSessionStore.open(session_file).entries()] == ["u1", "a1"]


def test_r8_a_refused_writer_wrote_nothing_and_stays_usable(session_file: Path) -> None:
    second = JsonlSessionStore.open(session_file, fsync=False)
    with JsonlSessionStore.open(session_file, fsync=False, lock=True):
        with pytest.raises(SessionLockedError):
            second.append(user_wire("u1", None))
    assert session_file.read_bytes() == b""
    second.append(user_wire("u1", None))  # the holder is gone and nothing changed
    assert [e.id for e in JsonlSessionStore.open(session_file).entries()] == ["u1"]


def test_r8_a_file_replaced_after_reading_is_refused(session_file: Path) -> None:
    session_file.write_text(_line(user_wire("u1", None)))
    store = JsonlSessionStore.open(session_file, fsync=False)
    replacement = session_file.with_name("new.jsonl")
    replacement.write_text(_line(user_wire("x1", None)))
    os.replace(replacement, session_file)
    with pytest.raises(SessionStoreError, match="another file"):
        store.append(assistant_wire("a1", "u1"))


# --- 4. recovery is all or nothing ---------------------------------------------------------------


def test_r8_a_recovery_that_dies_before_naming_the_target_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12.4: a killed recovery left a clean-looking target with entries missing, and a
    rerun was refused. Here it dies just before the copy takes the target's name."""
    source, target = tmp_path / "crashed.jsonl", tmp_path / "clean.jsonl"
    source.write_text(_line(user_wire("u1", None)) + _line(assistant_wire("a1", "u1")) + '{"ty')

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link" if os.name != "nt" else "rename", killed)
    with pytest.raises(KeyboardInterrupt):
        JsonlSessionStore.recover_into(source, target)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crashed.jsonl"]
    recovered = JsonlSessionStore.recover_into(source, target)
    assert [e.id for e in recovered.entries()] == ["u1", "a1"]
    assert target.read_bytes().count(b"\n") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.jsonl", "crashed.jsonl"]


def test_r8_recovery_never_replaces_a_target_that_appears_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = tmp_path / "crashed.jsonl", tmp_path / "clean.jsonl"
    source.write_text(_line(user_wire("u1", None)))
    real_open = JsonlSessionStore.open.__func__  # type: ignore[attr-defined]  # the classmethod's function, to wrap it

    def open_then_someone_writes(cls: type, path: Any, **options: Any) -> JsonlSessionStore:
        store = real_open(cls, path, **options)
        if Path(path) == source:
            target.write_text("someone else's\n")
        return store

    monkeypatch.setattr(JsonlSessionStore, "open", classmethod(open_then_someone_writes))
    with pytest.raises(SessionStoreError, match="already exists"):
        JsonlSessionStore.recover_into(source, target)
    assert target.read_text() == "someone else's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.jsonl", "crashed.jsonl"]


# --- 5. deep nesting is an entry error, not a RecursionError -------------------------------------


def test_r8_a_line_nested_ten_thousand_arrays_deep_names_its_line(session_file: Path) -> None:
    """Issue 12.5: a raw RecursionError from json."""
    deep = (
        '{"type":"metadata","id":"m1","parentId":"m","timestamp":1,"key":"k","value":'
        + "[" * 10_000
        + "]" * 10_000
        + "}"
    )
    session_file.write_text(_line(_metadata()) + deep + "\n")
    for name, read in READERS.items():
        with pytest.raises(SessionEntryError) as info:
            read(session_file)
        assert info.value.line == 2, name
        assert str(info.value).startswith("line 2: ") and "nests too deeply" in str(info.value)
        assert len(str(info.value)) < 200


def test_r1_python_input_nested_ten_thousand_lists_deep_is_refused() -> None:
    value: Any = 1
    for _ in range(10_000):
        value = [value]
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(_metadata(value))
    assert str(info.value).startswith("session metadata m.value[0][0]")
    assert str(info.value).endswith("nests too deeply") and len(str(info.value)) < 200


# --- 6. one set of rules for every way in -----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('{"type":"metadata","id":"m1","id":"m2","parentId":null,"timestamp":1,"key":"k","value":1}', "id"),
        ('{"type":"metadata","id":"m1","parentId":null,"timestamp":1,"key":"k","value":{"a":1,"a":2}}', "a"),
    ],
    ids=["entry key", "free JSON key"],
)
def test_r1_r8_a_duplicate_json_key_is_refused_naming_key_and_line(session_file: Path, line: str, key: str) -> None:
    """Issue 12.6: ``{"id":"m1","id":"m2",…}`` silently kept m2."""
    session_file.write_text(_line(_metadata()) + line + "\n")
    for name, read in READERS.items():
        with pytest.raises(SessionEntryError) as info:
            read(session_file)
        assert str(info.value) == f"line 2: key {key!r} appears twice in one object", name
        assert info.value.line == 2


@pytest.mark.parametrize(
    ("second", "needle"),
    [
        (_metadata(), "line 2: duplicate entry id 'm'"),
        (_metadata(id="m2", parentId="ghost"), "line 2: entry 'm2' names unknown parent 'ghost'"),
    ],
    ids=["duplicate id", "orphan"],
)
def test_r7_r8_every_reader_refuses_duplicate_ids_and_orphans(
    session_file: Path, second: dict[str, Any], needle: str
) -> None:
    """Issue 12.6: recover_jsonl and .read() returned what open refused."""
    session_file.write_text(_line(_metadata()) + _line(second))
    for name, read in READERS.items():
        with pytest.raises(SessionStoreError) as info:
            read(session_file)
        assert str(info.value) == needle, name
        assert info.value.line == 2


# --- 8. messages in the course's words ------------------------------------------------------------


def test_r2_a_megabyte_type_gives_a_short_message() -> None:
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(_metadata(type="x" * 1_000_000))
    message = str(info.value)
    assert message.startswith("session entry m.type must be one of 'message', 'metadata', 'compaction', got 'xxx")
    assert message.endswith("…'") and len(message) < 200


def test_r2_a_megabyte_id_is_shortened_wherever_it_is_named(session_file: Path) -> None:
    long_id = "i" * 1_000_000
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(_metadata(id=long_id, timestamp="soon"))
    assert len(str(info.value)) < 200 and info.value.entry_id == long_id
    store = JsonlSessionStore.open(session_file, fsync=False)
    store.append(_metadata(id=long_id))
    with pytest.raises(SessionStoreError) as refused:
        store.append(_metadata(id=long_id))
    assert len(str(refused.value)) < 200 and refused.value.entry_id == long_id


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\x00", "line 2: not valid JSON (Expecting value at column 1)"),
        (
            b'{"type": "metadata", \x00}',
            "line 2: not valid JSON (Expecting property name enclosed in double quotes at column 22)",
        ),
        (b"\xff\xfe{}", "line 2: not UTF-8 text (byte 0xff at column 1)"),
        (b'{"id": "\xed\xa0\x80"}', "line 2: not UTF-8 text (byte 0xed at column 9)"),
    ],
    ids=["NUL", "NUL inside", "binary", "UTF-8 encoded surrogate"],
)
def test_r8_a_nul_or_binary_line_is_named_without_codec_jargon(session_file: Path, raw: bytes, expected: str) -> None:
    session_file.write_bytes(_line(_metadata()).encode() + raw + b"\n")
    with pytest.raises(SessionEntryError) as info:
        JsonlSessionStore.open(session_file)
    assert str(info.value) == expected
    assert not any(phrase in str(info.value) for phrase in PYDANTIC_PHRASES)


def test_r2_a_surrogate_in_an_unreadable_id_keeps_the_message_printable() -> None:
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(user_wire("u\ud800", None) | {"extra": 1})
    str(info.value).encode("utf-8")
