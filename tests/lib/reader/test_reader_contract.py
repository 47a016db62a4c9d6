"""One contract, two readers: the plain store and the fast reader read every file alike (R1–R3, R7–R10).

``JsonlSessionStore.open`` (the chapter's store, every line through ``json``) and
``SessionReader.open`` (the course's tooling: bulk validation, entries built when read),
the latter also reopened, when its validated index vouches for every line: each must give
the same entries, ``path_to``, ``read()`` and warnings on every file below, or the same
refusal, the same exception type and message with the same ``.line`` and ``.entry_id``;
and each must keep the same copy promises.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from wire_samples import (
    ALL_WIRE_FACTORIES,
    assistant_wire,
    compaction_wire,
    little_session_wire,
    mutable_containers,
    tool_result_wire,
    user_wire,
)

import course_lib
from course_lib import (
    CourseError,
    JsonlSessionStore,
    ReadWarning,
    SessionEntry,
    SessionEntryError,
    SessionStoreError,
    parse_session_entry,
    path_to,
    to_json_dict,
)
from course_lib.reader import CACHE_ENV, SessionReader, index

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from sessions import generate_session

READERS: dict[str, Callable[[Path], Any]] = {
    "plain": JsonlSessionStore.open,
    "fast": SessionReader.open,
    "fast, reopened": lambda path: (SessionReader.open(path), SessionReader.open(path))[1],
}
"""Every way to open a file for reading; the reopened fast reader takes every line from its index."""


@pytest.fixture(autouse=True)
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Indexes in this test's own folder, for files of any size: the reopened reader then uses one."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "indexes"))
    monkeypatch.setattr(index, "MIN_BYTES", 0)


def lines(*wires: dict[str, Any], escaped: bool = False) -> bytes:
    return b"".join(json.dumps(wire, ensure_ascii=escaped).encode() + b"\n" for wire in wires)


def metadata(**changes: Any) -> dict[str, Any]:
    return {"type": "metadata", "id": "m", "parentId": None, "timestamp": 10, "key": "k", "value": 1} | changes


def chained(wires: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for parent, wire in zip([None, *wires], wires):
        wire["parentId"] = parent and parent["id"]
    return wires


def odd_values() -> list[dict[str, Any]]:
    """Every entry type once, with the values a fast path could read differently from ``json``."""
    wires = chained([factory() for factory in ALL_WIRE_FACTORIES])
    wires[0]["message"]["content"][0]["text"] = "中文 🧪 line\u2028separator \x00 control \ufeff"
    wires[1]["message"]["content"][1]["arguments"] = {"big": 10**30, "float": 2.5e-8, "deep": [{"x": None}, True]}
    wires[2]["message"]["details"] = {"largest": 2**1024 - 2**970 - 1, "negative": -0.0, "list": [[], {}]}
    wires[4]["value"] = {"astral": "😀", "sections": {"a": None}}
    return wires


@dataclass(frozen=True)
class Refusal:
    kind: type[CourseError]
    message: str
    line: int | None
    entry_id: str | None = None


@dataclass(frozen=True)
class Case:
    data: bytes
    entries: list[dict[str, Any]] | None = None
    """What a reader reads (the wire it was written from), or ``None`` when it refuses the file."""
    tail: int | None = None
    refusal: Refusal | None = None


def refused(data: bytes, kind: type[CourseError], message: str, entry_id: str | None = None) -> Case:
    line = int(message.removeprefix("line ").split(":")[0])
    return Case(data, refusal=Refusal(kind, message, line, entry_id))


def second_line(raw: bytes) -> bytes:
    return lines(metadata()) + raw + b"\n"


GENERATED = [entry.model_dump(mode="json", by_alias=True) for entry in generate_session(120)]
BROKEN_COMPACTION = compaction_wire(parent="m") | {"compactedEntryIds": []}
DEEP_SUMMARY = compaction_wire(parent="m")
DEEP_SUMMARY["summary"]["decisions"] = ["fine", {"not": "text"}]
TAIL = lines(user_wire("u1", None)) + json.dumps(assistant_wire("a1", "u1")).encode()

CASES: dict[str, Case] = {
    "a little session": Case(lines(*little_session_wire()), little_session_wire()),
    "a generated session: compactions, metadata, tool calls": Case(lines(*GENERATED), GENERATED),
    "odd values of every entry type": Case(lines(*odd_values()), odd_values()),
    "odd values, escaped as ASCII": Case(lines(*odd_values(), escaped=True), odd_values()),
    "blank lines": Case(
        b"\n" + lines(user_wire("u1", None)) + b"   \n\n\t\r\n" + lines(assistant_wire("a1", "u1")) + b"\n",
        [user_wire("u1", None), assistant_wire("a1", "u1")],
    ),
    "an unterminated tail": Case(TAIL[:-20], [user_wire("u1", None)], tail=2),
    "a whole object without its newline": Case(TAIL, [user_wire("u1", None)], tail=2),
    "an empty file": Case(b"", []),
    "malformed JSON": refused(
        second_line(b'{"type": "message", "id": "a1", '),
        SessionEntryError,
        "line 2: not valid JSON (Expecting property name enclosed in double quotes at column 33)",
    ),
    "not an object": refused(
        second_line(b"[1, 2, 3]"), SessionEntryError, "line 2: session entry must be an object, got list"
    ),
    "not UTF-8": refused(
        second_line(b"\xff\xfe{}"), SessionEntryError, "line 2: not UTF-8 text (byte 0xff at column 1)"
    ),
    "NaN": refused(
        second_line(json.dumps(compaction_wire(parent="m")).replace("29", "NaN").encode()),
        SessionEntryError,
        "line 2: not valid JSON (NaN is not a finite JSON number)",
    ),
    "NUL": refused(second_line(b"\x00"), SessionEntryError, "line 2: not valid JSON (Expecting value at column 1)"),
    "-Infinity in tool details": refused(
        second_line(json.dumps(tool_result_wire(parent="m")).replace('"bytes": 11', '"bytes": -Infinity').encode()),
        SessionEntryError,
        "line 2: not valid JSON (-Infinity is not a finite JSON number)",
    ),
    "-1e400 in a metadata value": refused(
        second_line(json.dumps(metadata(id="m1", parentId="m", value={"n": [1, 2]})).replace("2]", "-1e400]").encode()),
        SessionEntryError,
        "line 2: session metadata m1.value.n[1] must be a finite number",
        "m1",
    ),
    "1e999 in tool arguments": refused(
        second_line(json.dumps(assistant_wire(parent="m")).replace("[1, 2]", "[1, 1e999]").encode()),
        SessionEntryError,
        "line 2: session message a1.message.content[1].arguments.lines[1] must be a finite number",
        "a1",
    ),
    "a repeated key": refused(
        second_line(b'{"type":"metadata","id":"m1","id":"m2","parentId":null,"timestamp":1,"key":"k","value":1}'),
        SessionEntryError,
        "line 2: key 'id' appears twice in one object",
    ),
    "a repeated key in free JSON": refused(
        second_line(b'{"type":"metadata","id":"m1","parentId":null,"timestamp":1,"key":"k","value":{"a":1,"a":2}}'),
        SessionEntryError,
        "line 2: key 'a' appears twice in one object",
    ),
    "a huge int": refused(
        second_line(json.dumps(user_wire("u1", "m")).replace('"timestamp": 1,', f'"timestamp": {"9" * 310},').encode()),
        SessionEntryError,
        "line 2: session message u1.timestamp must be a finite number",
        "u1",
    ),
    "an escaped lone surrogate": refused(
        second_line(b'{"type":"metadata","id":"m0","parentId":null,"timestamp":1,"key":"k","value":"\\ud800"}'),
        SessionEntryError,
        "line 2: session metadata m0.value holds a lone surrogate, which UTF-8 cannot store",
        "m0",
    ),
    "nesting too deep": refused(
        second_line(
            b'{"type":"metadata","id":"m1","parentId":"m","timestamp":1,"key":"k","value":'
            + b"[" * 10_000
            + b"]" * 10_000
            + b"}"
        ),
        SessionEntryError,
        "line 2: nests too deeply to be a session entry",
    ),
    "a duplicate id": refused(lines(metadata(), metadata()), SessionStoreError, "line 2: duplicate entry id 'm'", "m"),
    "an unknown parent": refused(
        lines(metadata(), metadata(id="m2", parentId="ghost")),
        SessionStoreError,
        "line 2: entry 'm2' names unknown parent 'ghost'",
        "m2",
    ),
    "a legacy alias": refused(
        lines(metadata(), BROKEN_COMPACTION),
        SessionEntryError,
        "line 2: session compaction compact-1.compactedEntryIds is not a known field",
        "compact-1",
    ),
    "a bad field deep in a summary": refused(
        lines(metadata(), DEEP_SUMMARY),
        SessionEntryError,
        "line 2: session compaction compact-1.summary.decisions[1] must be a string",
        "compact-1",
    ),
    "a bad line before a tail": refused(
        lines(metadata()) + b"{not json\n" + b'{"type"',
        SessionEntryError,
        "line 2: not valid JSON (Expecting property name enclosed in double quotes at column 2)",
    ),
}


def write(tmp_path: Path, case: Case) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(case.data)
    return path


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def what_refused(error: CourseError) -> Refusal:
    return Refusal(type(error), str(error), getattr(error, "line", None), getattr(error, "entry_id", None))


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("name", list(CASES))
def test_r7_r8_r9_every_reader_reads_a_file_alike(name: str, reader: str, tmp_path: Path) -> None:
    case, path = CASES[name], write(tmp_path, CASES[name])
    try:
        opened = READERS[reader](path)
    except CourseError as error:
        assert what_refused(error) == case.refusal
        return
    assert case.entries is not None and case.refusal is None, "the file should have been refused"
    expected = [parse_session_entry(wire) for wire in case.entries]
    tail = f"line {case.tail} has no newline (an unterminated tail, skipped)"
    assert opened.warnings == ((ReadWarning("unterminated_tail", case.tail, tail),) if case.tail else ())
    assert opened.entries() == expected and to_json_dict(opened.entries()) == case.entries  # R9
    read = opened.read()
    assert read.entries == expected and read.warnings == opened.warnings
    for leaf in [entry.id for entry in expected][-3:]:
        assert opened.path_to(leaf) == path_to(expected, leaf)  # R10


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if is_utf8(case.data)])
def test_r8_recover_jsonl_reads_text_alike(name: str) -> None:
    """``course_lib.recover_jsonl`` and the fast reader's read text as their stores read files."""
    text = CASES[name].data.decode("utf-8")
    outcomes: list[Any] = []
    for recover in (course_lib.recover_jsonl, course_lib.reader.recover_jsonl):
        try:
            result = recover(text)
        except CourseError as error:
            outcomes.append(what_refused(error))
        else:
            outcomes.append((to_json_dict(result.entries), result.warnings))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("leaf", [GENERATED[-1]["id"], GENERATED[40]["id"]])
def test_r3_r7_r10_what_a_reader_hands_out_is_a_copy_nobody_else_holds(reader: str, leaf: str, tmp_path: Path) -> None:
    """Two calls give independent objects, and changing one changes neither the next nor the session."""
    opened = READERS[reader](write(tmp_path, CASES["a generated session: compactions, metadata, tool calls"]))
    for hand_out in (opened.entries, lambda: opened.path_to(leaf), lambda: opened.read().entries):
        first, second = list(hand_out()), list(hand_out())
        assert all(a is not b for a, b in zip(first, second))
        assert not mutable_containers(first).keys() & mutable_containers(second).keys()
        assert _mutate(first) > 30
        assert hand_out() == second and to_json_dict(opened.entries()) == GENERATED


def _mutate(entries: list[SessionEntry]) -> int:
    """Every dict and list the entries reach, changed; how many."""
    containers = mutable_containers(entries).values()
    for container in containers:
        if isinstance(container, dict):
            container["smuggled"] = ["in"]
        else:
            container.append("smuggled")
    return len(containers)
