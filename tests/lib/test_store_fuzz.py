"""Fuzzing the one door into a session (R1, R2, R8, R9).

* Whatever ``parse_session_entry`` accepts, a JSONL store writes and reads back
  deep-equal, types included (R9).
* Whatever it refuses, and whatever line a file holds, the error is short, in the
  course's words, and names the line for JSONL input (R2, R8).
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wire_samples import ALL_WIRE_FACTORIES

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
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "\ud800", "a\udfffb", "\U0001f600", "\x00", "x" * 5_000]),
)
numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**1024 - 2**970 - 1, 2**1024 - 2**970, -(10**400), 0.0, -0.0]),
    st.builds(pow, st.just(10), st.just(5_000)),  # too long for Python's int-to-text limit
    st.floats(),
    st.booleans(),
)
json_values = st.recursive(
    st.one_of(st.none(), numbers, texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def wire_entries(draw: st.DrawFn) -> dict[str, Any]:
    """A wire entry of every type, with free JSON, texts and numbers drawn from the edges."""
    wire = draw(st.sampled_from(ALL_WIRE_FACTORIES))()
    wire["parentId"] = None if wire["type"] != "compaction" else "root"
    wire["timestamp"] = draw(numbers)
    if wire["type"] == "metadata":
        wire["value"] = draw(json_values)
        wire["key"] = draw(texts)
    elif wire["type"] == "compaction":
        wire["tokensBefore"] = draw(numbers)
        wire["summary"]["goal"] = draw(texts)
        wire["summary"]["next"] = draw(st.lists(texts, max_size=3))
    else:
        message = wire["message"]
        message["timestamp"] = draw(numbers)
        if message["role"] == "assistant":
            message["content"][1]["arguments"] = draw(st.dictionaries(texts, json_values, max_size=4))
            message["usage"]["input"] = draw(numbers)
            message["model"] = draw(texts)
        elif message["role"] == "toolResult":
            message["details"] = draw(json_values)
        elif message["role"] == "system":
            message["content"] = draw(texts)
        else:
            message["content"][0]["text"] = draw(texts)
    return wire


def _typed(value: Any) -> Any:
    """``value`` with every number tagged by its type: 1 and 1.0 must not pass for each other."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, float):
        return ("float", math.copysign(1.0, value), abs(value))
    return (type(value).__name__, value)


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
    assert _typed(to_json_dict(reopened)) == _typed(to_json_dict(entry))


@st.composite
def mutated_lines(draw: st.DrawFn) -> bytes:
    """A line as a broken writer might leave it: one node of a valid entry replaced, or bytes."""
    wire = draw(st.sampled_from(ALL_WIRE_FACTORIES))()
    node: Any = wire
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = draw(st.sampled_from(keys))
        if isinstance(node[key], (dict, list)) and node[key] and draw(st.booleans()):
            node = node[key]
            continue
        node[key] = draw(st.one_of(json_values, st.just("x" * 1_000_000)))
        break
    if draw(st.booleans()):
        return draw(st.binary(max_size=40))
    try:
        text = json.dumps(wire, ensure_ascii=draw(st.booleans()))
    except ValueError:  # 10**5000 is past Python's int-to-text limit; the store tests cover it on disk
        return b"{}"
    return text.encode("utf-8", "surrogatepass")


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
