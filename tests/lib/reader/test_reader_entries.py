"""The fast reader hands its entries out lazily (``course_lib.reader.entries.StoredEntries``): a read-only
sequence equal to the list of the same entries, each model built when read, and every promise of the
plain store's list holds (R3, R7, R10)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from wire_samples import mutable_containers

from course_lib import SessionEntry, SessionStoreError, to_json_dict
from course_lib.reader import CACHE_ENV, SessionReader, StoredEntries, index, lines
from course_lib.reader.index import SessionIndex, index_path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from sessions import generate_session

ENTRIES = 301


@pytest.fixture(autouse=True)
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Indexes in a folder of this test's own, and for any size."""
    folder = tmp_path / "indexes"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    monkeypatch.setattr(index, "MIN_BYTES", 0)
    return folder


@pytest.fixture(scope="module")
def written() -> list[SessionEntry]:
    """A session of realistic shape: a system message, tool calls, metadata, three compactions."""
    return generate_session(ENTRIES)


@pytest.fixture
def session(tmp_path: Path, written: list[SessionEntry]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(entry.model_dump_json(by_alias=True).encode() + b"\n" for entry in written))
    SessionReader.open(path)  # the first open validates every line and writes the index
    return path


class Built:
    """Counts the models built from kept lines (what a lazy read costs)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        validate = lines._VALIDATE_JSON

        def counted(raw: bytes, **options: Any) -> Any:
            self.count += 1
            return validate(raw, **options)

        monkeypatch.setattr(lines, "_VALIDATE_JSON", counted)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Built:
    return Built(monkeypatch)


def test_a_reopen_builds_nothing_until_an_entry_is_read(session: Path, built: Built) -> None:
    entries = SessionReader.open(session).entries()
    assert isinstance(entries, StoredEntries) and len(entries) == ENTRIES and built.count == 0
    newest = entries[-100:]
    assert built.count == 100 and [entry.id for entry in newest] == [entry.id for entry in entries][-100:]


def test_the_sequence_equals_the_list_of_the_same_entries(session: Path, written: list[SessionEntry]) -> None:
    entries = SessionReader.open(session).entries()
    assert entries == written and written == entries
    assert list(entries) == written and entries == SessionReader.open(session).entries()
    assert entries != written[:-1] and entries != [*written[:-1], written[0]] and entries != tuple(written)
    assert entries + [] == written and [] + entries == written
    assert to_json_dict(entries) == to_json_dict(written)
    assert repr(entries[:2]) == repr(written[:2])
    with pytest.raises(TypeError):
        hash(entries)


def test_indices_slices_and_reversal_read_as_a_list_does(session: Path, written: list[SessionEntry]) -> None:
    entries = SessionReader.open(session).entries()
    assert entries[0] == written[0] and entries[-1] == written[-1] and entries[-ENTRIES] == written[0]
    assert entries[10:20] == written[10:20] and entries[::-50] == written[::-50] and entries[5:2] == []
    assert list(reversed(entries)) == written[::-1]
    assert written[7] in entries and entries.index(written[7]) == 7 and entries.count(written[7]) == 1
    for beyond in (ENTRIES, -ENTRIES - 1):
        with pytest.raises(IndexError, match="out of range"):
            entries[beyond]
    with pytest.raises(TypeError):
        entries["1"]  # type: ignore[call-overload]  # the refusal tested
    with pytest.raises(TypeError):
        entries[0] = entries[0]  # type: ignore[index]  # the refusal tested: no entry in it can be replaced


def test_r3_r7_within_one_sequence_an_entry_is_one_object(session: Path) -> None:
    """As in a list; across calls, never the same one (the contract test holds both readers to that)."""
    reader = SessionReader.open(session)
    first, second = reader.entries(), reader.entries()
    assert first[3] is first[3] and first[3] == second[3] and first[3] is not second[3]
    assert first[:5][3] is first[3] and list(first)[3] is first[3]
    for entry in first:
        for container in mutable_containers(entry).values():
            container.clear()
    assert to_json_dict(second) == to_json_dict(reader.entries()) != to_json_dict(first)


def test_r3_r7_the_first_opens_models_go_out_once(tmp_path: Path, written: list[SessionEntry]) -> None:
    """The models validating the file produced at open are handed out by the first call that reaches them."""
    path = tmp_path / "fresh.jsonl"
    path.write_bytes(b"".join(entry.model_dump_json(by_alias=True).encode() + b"\n" for entry in written))
    reader = SessionReader.open(path)
    first, second = reader.entries(), reader.entries()
    assert first[-1] == second[-1] and first[-1] is not second[-1]


def test_r7_a_vouched_line_that_is_not_what_the_index_says_is_refused_when_read(session: Path) -> None:
    """The index names each entry's kind too; a line of another kind names itself, with its line."""
    where = index_path(session)
    assert where is not None
    kept = SessionIndex.model_validate_json(where.read_bytes())
    position = kept.kinds.index("d")
    wrong = kept.kinds[:position] + "m" + kept.kinds[position + 1 :]
    where.write_text(kept.model_copy(update={"kinds": wrong}).model_dump_json(), encoding="utf-8")
    entries = SessionReader.open(session).entries()
    assert entries[position + 1].id == kept.ids[position + 1]  # the others are read as they are
    with pytest.raises(SessionStoreError, match=rf"^line {position + 1}: entry ") as caught:
        entries[position]
    assert caught.value.line == position + 1 and caught.value.entry_id == kept.ids[position]
    with pytest.raises(SessionStoreError, match=rf"^line {position + 1}: "):
        list(entries)
