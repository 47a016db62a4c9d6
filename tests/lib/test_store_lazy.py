"""A reopened JSONL session hands its entries out lazily where its validated index vouches for them
(issue 31): ``entries()`` is a read-only sequence equal to the list, each model built when read,
and every promise of the list it replaces holds (R3, R7–R10, R16, R18)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from wire_samples import mutable_containers, user_wire

from course_lib import (
    JsonlSessionStore,
    SessionEntry,
    SessionEntryError,
    SessionStoreError,
    build_context,
    estimate_tokens_chars,
    path_to,
    store_index,
    store_lines,
    to_json_dict,
)
from course_lib.context import latest_compaction, resume_candidates
from course_lib.store_index import CACHE_ENV, SessionIndex, index_path
from course_lib.stored_entries import StoredEntries

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sessions import generate_session, tenth_budget

ENTRIES = 301


@pytest.fixture(autouse=True)
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Indexes in a folder of this test's own, and for any size."""
    folder = tmp_path / "indexes"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    monkeypatch.setattr(store_index, "MIN_BYTES", 0)
    return folder


@pytest.fixture(scope="module")
def written() -> list[SessionEntry]:
    """A session of realistic shape: a system message, tool calls, metadata, three compactions."""
    return generate_session(ENTRIES)


@pytest.fixture
def session(tmp_path: Path, written: list[SessionEntry]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(entry.model_dump_json(by_alias=True).encode() + b"\n" for entry in written))
    JsonlSessionStore.open(path, fsync=False)  # the first open validates every line and writes the index
    return path


class Built:
    """Counts the models built from kept lines (what a lazy read costs)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        validate = store_lines._VALIDATE_JSON

        def counted(raw: bytes, **options: Any) -> Any:
            self.count += 1
            return validate(raw, **options)

        monkeypatch.setattr(store_lines, "_VALIDATE_JSON", counted)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Built:
    return Built(monkeypatch)


def test_a_reopen_builds_nothing_until_an_entry_is_read(session: Path, built: Built) -> None:
    entries = JsonlSessionStore.open(session, fsync=False).entries()
    assert isinstance(entries, StoredEntries) and len(entries) == ENTRIES and built.count == 0
    newest = entries[-100:]
    assert built.count == 100 and [entry.id for entry in newest] == [entry.id for entry in entries][-100:]


def test_the_sequence_equals_the_list_of_the_same_entries(session: Path, written: list[SessionEntry]) -> None:
    entries = JsonlSessionStore.open(session, fsync=False).entries()
    assert entries == written and written == entries
    assert list(entries) == written and entries == JsonlSessionStore.open(session, fsync=False).entries()
    assert entries != written[:-1] and entries != [*written[:-1], written[0]] and entries != tuple(written)
    assert entries + [] == written and [] + entries == written
    assert to_json_dict(entries) == to_json_dict(written)
    assert repr(entries[:2]) == repr(written[:2])
    with pytest.raises(TypeError):
        hash(entries)


def test_indices_slices_and_reversal_read_as_a_list_does(session: Path, written: list[SessionEntry]) -> None:
    entries = JsonlSessionStore.open(session, fsync=False).entries()
    assert entries[0] == written[0] and entries[-1] == written[-1] and entries[-ENTRIES] == written[0]
    assert entries[10:20] == written[10:20] and entries[::-50] == written[::-50] and entries[5:2] == []
    assert list(reversed(entries)) == written[::-1]
    assert written[7] in entries and entries.index(written[7]) == 7 and entries.count(written[7]) == 1
    for beyond in (ENTRIES, -ENTRIES - 1):
        with pytest.raises(IndexError, match="out of range"):
            entries[beyond]
    with pytest.raises(TypeError):
        entries["1"]  # type: ignore[call-overload]  # the refusal tested


def test_r3_r7_each_read_is_a_copy_nobody_else_holds(session: Path) -> None:
    """Within one sequence an entry is one object, as in a list; across calls, never the same one."""
    store = JsonlSessionStore.open(session, fsync=False)
    first, second = store.entries(), store.entries()
    assert first[3] is first[3] and first[3] == second[3] and first[3] is not second[3]
    parts = [
        {id(part) for entry in entries for part in [entry, *mutable_containers(entry).values()]}
        for entries in (first, second)
    ]
    assert not parts[0] & parts[1]
    for entry in first:
        for container in mutable_containers(entry).values():
            container.clear()
    assert to_json_dict(second) == to_json_dict(store.entries()) != to_json_dict(first)


def test_r3_r7_the_first_opens_models_go_out_once(tmp_path: Path, written: list[SessionEntry]) -> None:
    path = tmp_path / "fresh.jsonl"
    path.write_bytes(b"".join(entry.model_dump_json(by_alias=True).encode() + b"\n" for entry in written))
    store = JsonlSessionStore.open(path, fsync=False)
    first, second = store.entries(), store.entries()
    assert first[-1] == second[-1] and first[-1] is not second[-1]


def test_a_sequence_keeps_the_entries_there_were_when_it_was_taken(session: Path) -> None:
    store = JsonlSessionStore.open(session, fsync=False)
    before = store.entries()
    store.append(user_wire("later", before[-1].id))
    assert len(before) == ENTRIES and len(store.entries()) == ENTRIES + 1 and store.entries()[-1].id == "later"


def test_r7_a_vouched_line_that_is_not_what_the_index_says_is_refused_when_read(session: Path) -> None:
    """The index names each entry's kind too; a line of another kind names itself, with its line."""
    where = index_path(session)
    assert where is not None
    index = SessionIndex.model_validate_json(where.read_bytes())
    kinds = index.kinds
    position = kinds.index("d")
    where.write_text(
        index.model_copy(update={"kinds": kinds[:position] + "m" + kinds[position + 1 :]}).model_dump_json(),
        encoding="utf-8",
    )
    entries = JsonlSessionStore.open(session, fsync=False).entries()
    assert entries[position + 1].id == index.ids[position + 1]  # the others are read as they are
    with pytest.raises(SessionStoreError, match=rf"^line {position + 1}: entry ") as caught:
        entries[position]
    assert caught.value.line == position + 1 and caught.value.entry_id == index.ids[position]
    with pytest.raises(SessionStoreError, match=rf"^line {position + 1}: "):
        list(entries)


def test_an_index_with_letters_that_are_no_kind_is_ignored(session: Path) -> None:
    where = index_path(session)
    assert where is not None
    index = SessionIndex.model_validate_json(where.read_bytes())
    where.write_text(index.model_copy(update={"kinds": "x" * len(index.ids)}).model_dump_json(), encoding="utf-8")
    assert store_index.load_index(session, session.read_bytes()) is None
    assert len(JsonlSessionStore.open(session, fsync=False).entries()) == ENTRIES


def test_r8_a_changed_file_is_validated_whole_and_refused_naming_the_line(session: Path) -> None:
    """Same size, one byte different: the index no longer vouches for it; open fails closed."""
    lines = session.read_bytes().split(b"\n")
    lines[40] = lines[40].replace(b'"id":"', b'"id" "', 1)
    session.write_bytes(b"\n".join(lines))
    with pytest.raises(SessionEntryError, match=r"^line 41: not valid JSON"):
        JsonlSessionStore.open(session, fsync=False)


def test_r8_r9_an_appended_file_keeps_the_index_for_its_prefix_and_validates_the_rest(
    session: Path, built: Built, written: list[SessionEntry]
) -> None:
    extra = user_wire("appended", written[-1].id)
    with session.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(extra) + "\n")
    entries = JsonlSessionStore.open(session, fsync=False).entries()
    assert built.count == 1  # the new line, validated at open
    assert len(entries) == ENTRIES + 1 and entries[-1].id == "appended"
    where = index_path(session)
    assert where is not None and len(SessionIndex.model_validate_json(where.read_bytes()).kinds) == ENTRIES + 1


def test_resume_reads_only_the_system_messages_the_latest_compaction_and_its_suffix(
    session: Path, built: Built, written: list[SessionEntry]
) -> None:
    """R16, R18: build_context over a reopened path gives the list's answer, from a fraction of the entries."""
    budget = tenth_budget(written)
    expected = build_context(written, estimate_tokens=estimate_tokens_chars, **budget)
    active = JsonlSessionStore.open(session, fsync=False).path_to(written[-1].id)
    assert isinstance(active, StoredEntries) and built.count == 0
    assert build_context(active, estimate_tokens=estimate_tokens_chars, **budget) == expected
    compaction = latest_compaction(written)
    assert compaction is not None
    suffix = len(written) - next(i for i, e in enumerate(written) if e.id == compaction.first_kept_entry_id)
    systems = sum(e.type == "message" and e.message.role == "system" for e in written)
    assert built.count <= suffix + systems + 1 < ENTRIES // 2
    assert resume_candidates(active, compaction) == resume_candidates(written, compaction)


def test_without_a_compaction_the_projection_reads_every_entry(tmp_path: Path) -> None:
    path = generate_session(40)
    without = [e for e in path if e.type != "compaction"]
    linked = [without[0]] + [e.model_copy(update={"parent_id": p.id}) for p, e in zip(without, without[1:])]
    file = tmp_path / "plain.jsonl"
    file.write_bytes(b"".join(e.model_dump_json(by_alias=True).encode() + b"\n" for e in linked))
    JsonlSessionStore.open(file, fsync=False)
    reopened = JsonlSessionStore.open(file, fsync=False).entries()
    budget = tenth_budget(linked)
    assert build_context(reopened, estimate_tokens=estimate_tokens_chars, **budget) == build_context(
        linked, estimate_tokens=estimate_tokens_chars, **budget
    )
    assert path_to(reopened, linked[-1].id) == linked
