"""``SessionReader.resume_path``: what ``build_context`` reads to resume from the latest compaction, and
nothing else on a long session; the same result as the whole path, or the whole path (R10, R16, R18)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from course_lib import CourseError, SessionEntry, build_context, estimate_tokens_chars, fixtures
from course_lib.context import latest_compaction
from course_lib.reader import CACHE_ENV, SessionReader, index, lines

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from sessions import generate_session, tenth_budget

BUDGETS = [
    {"max_tokens": 10_000, "reserved_output": 0, "safety_margin": 0},
    {"max_tokens": 60, "reserved_output": 10, "safety_margin": 5},
    {"max_tokens": 0, "reserved_output": 0, "safety_margin": 0},
]
SESSIONS: dict[str, Callable[[], list[SessionEntry]]] = {
    "no compaction": fixtures.opening_path,
    "resumed": fixtures.resumed_path,
    "system messages before and after the kept start": fixtures.system_replay_path,
    "compacted twice": fixtures.twice_compacted_path,
    "two branches": fixtures.sibling_tree,
    **{
        f"keeping from {first_kept}": functools.partial(fixtures.resumed_keeping_from, first_kept)
        for first_kept in ("u3", "a1", "sys", "note", "u4", "compact-1", "ghost")
    },
}
"""Every leaf of each is resumed; ``keeping from …`` covers every first kept entry ``build_context`` refuses."""


@pytest.fixture(autouse=True)
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "indexes"))
    monkeypatch.setattr(index, "MIN_BYTES", 0)


def write(tmp_path: Path, entries: list[SessionEntry]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(entry.model_dump_json(by_alias=True).encode() + b"\n" for entry in entries))
    return path


def projected(path: Any, budget: dict[str, int]) -> Any:
    """``build_context``'s result on ``path``, or the type and words of its refusal."""
    try:
        return build_context(path, estimate_tokens=estimate_tokens_chars, **budget)
    except CourseError as error:
        return type(error), str(error)


@pytest.mark.parametrize("name", list(SESSIONS))
def test_r16_r18_resuming_from_the_resume_path_is_resuming_from_the_whole_path(name: str, tmp_path: Path) -> None:
    entries = SESSIONS[name]()
    reader = SessionReader.open(write(tmp_path, entries))
    for leaf in [entry.id for entry in entries]:
        whole = reader.path_to(leaf)
        for budget in BUDGETS:
            assert projected(reader.resume_path(leaf), budget) == projected(whole, budget), (leaf, budget)


@pytest.mark.parametrize(
    ("name", "leaf", "resumed"),
    [
        ("resumed", "a4", "sys u2 a2 u3 calls r-test r-read a3 compact-1 u4 a4"),
        ("system messages before and after the kept start", "a3", "sys patch-1 u2 a2 compact-1 patch-2 u3 a3"),
        ("compacted twice", "a5", "sys u3 calls r-test r-read a3 compact-1 u4 a4 compact-2 u5 a5"),
        ("compacted twice", "a4", "sys u2 a2 u3 calls r-test r-read a3 compact-1 u4 a4"),
        ("two branches", "a4-alt", None),
        ("no compaction", "a3", None),
        ("keeping from u4", "a4", None),
        ("keeping from ghost", "a4", None),
        ("keeping from compact-1", "a4", None),
    ],
)
def test_r18_the_resume_path_leaves_out_only_what_the_latest_compaction_summarises(
    name: str, leaf: str, resumed: str | None, tmp_path: Path
) -> None:
    """The system messages before the first kept entry, then everything from it to the leaf; the whole
    path (``None``) when there is no compaction or its first kept entry is not on the path before it."""
    entries = SESSIONS[name]()
    reader = SessionReader.open(write(tmp_path, entries))
    ids = [entry.id for entry in reader.resume_path(leaf)]
    assert ids == ([entry.id for entry in reader.path_to(leaf)] if resumed is None else resumed.split())


def test_a_long_session_resumes_from_a_fraction_of_its_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R16, R18: on a reopened session only the system messages, the latest compaction and what it keeps are built."""
    written = generate_session(301)
    path = write(tmp_path, written)
    SessionReader.open(path)  # validates every line and writes the index
    built: list[bytes] = []
    validate = lines._VALIDATE_JSON

    def counted(raw: bytes, **options: Any) -> Any:
        built.append(raw)
        return validate(raw, **options)

    monkeypatch.setattr(lines, "_VALIDATE_JSON", counted)
    budget = tenth_budget(written)
    resumed = SessionReader.open(path).resume_path(written[-1].id)
    assert [json.loads(raw)["type"] for raw in built] == ["compaction"]  # read for its firstKeptEntryId
    assert build_context(resumed, estimate_tokens=estimate_tokens_chars, **budget) == build_context(
        written, estimate_tokens=estimate_tokens_chars, **budget
    )
    compaction = latest_compaction(written)
    assert compaction is not None
    suffix = len(written) - next(i for i, e in enumerate(written) if e.id == compaction.first_kept_entry_id)
    systems = sum(e.type == "message" and e.message.role == "system" for e in written)
    assert len(built) <= suffix + systems + 1 < len(written) // 2


def test_a_missing_file_is_an_empty_session_and_read_sees_the_disk_now(tmp_path: Path) -> None:
    """As the store reads it (R8): opening creates nothing; ``read()`` reads what is there when called."""
    path = tmp_path / "later.jsonl"
    reader = SessionReader.open(path)
    assert reader.entries() == [] and reader.warnings == () and not path.exists()
    path.write_bytes(
        b"".join(entry.model_dump_json(by_alias=True).encode() + b"\n" for entry in fixtures.opening_path())
    )
    assert reader.read().entries == fixtures.opening_path() and reader.entries() == []
