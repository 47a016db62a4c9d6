"""Fuzzing the fast reader against the plain store: whatever a line holds, both read it alike (R1, R2, R8, R9).

* Whatever ``parse_session_entry`` accepts, the plain store writes and the fast reader reads back
  deep-equal, types included (R9), first opened and reopened through its index.
* Whatever line a file holds, the fast reader gives the plain store's entries, or its refusal in
  the same words, with the same line and entry id (R2, R8).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from fuzzed_entries import mutated_lines, typed, wire_entries
from hypothesis import HealthCheck, given, settings

from course_lib import CourseError, JsonlSessionStore, SessionEntryError, parse_session_entry, to_json_dict
from course_lib.reader import CACHE_ENV, SessionReader, index, recover_jsonl

FUZZ = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
ROOT = b'{"type":"metadata","id":"root","parentId":null,"timestamp":0,"key":"k","value":0}\n'


@pytest.fixture(autouse=True, scope="module")
def indexes() -> Any:
    """Indexes for files of any size in a folder of this module's own, so the reopen takes the index."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, folder)
        patch.setattr(index, "MIN_BYTES", 0)
        yield


@FUZZ
@given(wire=wire_entries())
def test_r9_the_fast_reader_reads_back_whatever_the_plain_store_wrote(wire: dict[str, Any]) -> None:
    try:
        entry = parse_session_entry(wire)
    except SessionEntryError:
        return  # refused before any store sees it: tests/lib/test_store_fuzz.py checks the words
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        with JsonlSessionStore.open(path) as store:
            if entry.parent_id is not None:
                store.append(json.loads(ROOT))
            store.append(entry)
        first, reopened = SessionReader.open(path).entries()[-1], SessionReader.open(path).entries()[-1]
        recovered = recover_jsonl(path.read_text(encoding="utf-8")).entries[-1]
    assert first == reopened == recovered == entry
    assert typed(to_json_dict(reopened)) == typed(to_json_dict(entry))


def outcome(open_: Any, path: Path) -> Any:
    try:
        entries = to_json_dict(open_(path).entries())
    except CourseError as error:
        return type(error), str(error), getattr(error, "line", None), getattr(error, "entry_id", None)
    return typed(entries)


@pytest.mark.slow  # seconds of work (many files, both readers): make test runs it, make check does not
@FUZZ
@given(raw=mutated_lines())
def test_r2_r8_both_readers_read_any_line_alike(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        path.write_bytes(ROOT + raw.replace(b"\n", b" ") + b"\n")
        assert outcome(SessionReader.open, path) == outcome(JsonlSessionStore.open, path)
