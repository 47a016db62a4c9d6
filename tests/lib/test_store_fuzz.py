"""Fuzzing the one door into a session (R1, R2, R8, R9).

* Whatever ``parse_session_entry`` accepts, a JSONL store writes and reads back
  deep-equal, types included (R9).
* Whatever it refuses, and whatever line a file holds, the error is short, in the
  course's words, and names the line for JSONL input (R2, R8).
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

from course_lib import (
    JsonlSessionStore,
    SessionEntryError,
    SessionStoreError,
    parse_session_entry,
    recover_jsonl,
    to_json_dict,
)

PYDANTIC_PHRASES = ("Input should", "unable to parse", "validation error", "Value error", "pydantic", "utf-32", "codec")
MESSAGE_LIMIT = 300
FUZZ = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def _check_message(error: Exception, *, line: int | None = None) -> None:
    message = str(error)
    assert len(message) < MESSAGE_LIMIT, message[:MESSAGE_LIMIT]
    assert not any(phrase in message for phrase in PYDANTIC_PHRASES), message
    message.encode("utf-8")  # printable, even when the input held a lone surrogate
    if line is not None:
        assert message.startswith(f"line {line}: "), message
        assert error.line == line  # type: ignore[attr-defined]  # the errors that name a line carry it


@FUZZ
@given(wire=wire_entries())
def test_r9_whatever_the_parser_accepts_round_trips_through_a_jsonl_store(wire: dict[str, Any]) -> None:
    try:
        entry = parse_session_entry(wire)
    except SessionEntryError as error:
        _check_message(error)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        with JsonlSessionStore.open(path) as store:
            if entry.parent_id is not None:
                store.append(
                    {"type": "metadata", "id": "root", "parentId": None, "timestamp": 0, "key": "k", "value": 0}
                )
            store.append(entry)
        reopened = JsonlSessionStore.open(path).entries()[-1]
        recovered = recover_jsonl(path.read_text(encoding="utf-8")).entries[-1]
    assert reopened == entry == recovered
    assert typed(to_json_dict(reopened)) == typed(to_json_dict(entry))


@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
@FUZZ
@given(raw=mutated_lines())
def test_r2_r8_every_refusal_is_short_in_the_course_words_and_names_the_line(raw: bytes) -> None:
    first = b'{"type":"metadata","id":"root","parentId":null,"timestamp":0,"key":"k","value":0}\n'
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        path.write_bytes(first + raw.replace(b"\n", b" ") + b"\n")
        try:
            JsonlSessionStore.open(path)
        except (SessionEntryError, SessionStoreError) as error:
            _check_message(error, line=2)
    try:
        value = json.loads(raw)
    except ValueError:
        return
    if isinstance(value, dict):
        try:
            parse_session_entry(value)
        except SessionEntryError as error:
            _check_message(error)
