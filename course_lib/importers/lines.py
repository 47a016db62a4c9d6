"""Robust JSONL reading shared by every importer.

Real agent logs are written line by line by processes that crash, race and get
killed, so the reader is lenient where the damage is recognisable and strict
where it is not:

| what the file holds | what happens |
|---|---|
| a blank line | ignored |
| two (or more) JSON objects on one line with no newline between them (two writers raced) | split; every object is a record carrying that line number and its place on the line (``part``) |
| a final line without a newline that is not complete JSON (the writer died mid-line) | reported as a skip, with its line number and a reason |
| a final line without a newline that *is* complete JSON | read (the entry was fully written, only the newline is missing) |
| a JSON value that is not an object | reported as a skip |
| anything else that is not JSON (garbage in the middle, invalid UTF-8, ``NaN``) | ``SessionImportError`` naming the line: guessing would silently change the history |
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import jiter

from ..errors import NotFiniteJsonError
from ..teaching.i18n import MESSAGES
from .report import SessionImportError, Skip

_DECODER = json.JSONDecoder(parse_constant=lambda name: _refuse_constant(name))
_WHITESPACE = " \t\r\n"


def _refuse_constant(name: str) -> Any:
    raise NotFiniteJsonError(name)


@dataclass(frozen=True)
class Record:
    """One JSON object read from the file, the 1-based line it came from and its place on that line."""

    line: int
    value: dict[str, Any]
    part: int = 1
    """1 for the first (usually the only) object of its line, 2 for a second written onto it, and so on."""


@dataclass
class JsonLines:
    records: list[Record] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)


def read_json_lines(path: str | os.PathLike[str]) -> JsonLines:
    """Every JSON object of a JSONL file with its line number, plus the skips (see the table above)."""
    data = open(path, "rb").read()  # noqa: SIM115 - one read, closed by refcount
    raw_lines = data.split(b"\n")
    unterminated = raw_lines.pop()  # b"" when the file ends with a newline
    result = JsonLines()
    for number, raw in enumerate(raw_lines, start=1):
        _read_line(raw, number, result, final=False)
    if unterminated.strip():
        _read_line(unterminated, len(raw_lines) + 1, result, final=True)
    return result


def first_record(path: str | os.PathLike[str]) -> Record | None:
    """The first JSON object of the file, reading only as far as it (format detection)."""
    found = JsonLines()
    with open(path, "rb") as file:
        for number, raw in enumerate(file, start=1):
            _read_line(raw.rstrip(b"\n"), number, found, final=not raw.endswith(b"\n"))
            if found.records:
                return found.records[0]
    return None


def _read_line(raw: bytes, number: int, result: JsonLines, *, final: bool) -> None:
    if not raw or raw.isspace():
        return
    try:
        values = [jiter.from_json(raw, allow_inf_nan=False)]  # the common case, straight from bytes
    except ValueError:  # anything unusual (and every error message) is the stdlib's, below
        values = _slow_values(raw, number, result, final=final)
    for part, value in enumerate(values, start=1):
        if isinstance(value, dict):
            result.records.append(Record(number, value, part))
        else:
            result.skipped.append(
                Skip(number, MESSAGES("a JSON {kind}, not an object").format(kind=type(value).__name__))
            )


def _slow_values(raw: bytes, number: int, result: JsonLines, *, final: bool) -> list[Any]:
    """The line as the stdlib reads it: several objects on one line, a truncated tail, or an error.

    jiter (the fast path) accepts a line only if it is one JSON value the stdlib reads
    the same way; a lone surrogate, ``NaN``, two objects, bad UTF-8 all land here.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionImportError(f"line {number}: not UTF-8 text ({exc.reason})", line=number) from None
    try:
        return _values(text)
    except ValueError as exc:
        if final:
            reason = MESSAGES("truncated final line (no newline, not complete JSON: {error})").format(error=exc)
            result.skipped.append(Skip(number, reason))
            return []
        raise SessionImportError(f"line {number}: not valid JSON ({exc})", line=number) from None


def _values(text: str) -> list[Any]:
    """The JSON values of one line: usually one, several when objects were written back to back."""
    try:
        return [_DECODER.decode(text)]
    except ValueError:
        pass
    values: list[Any] = []
    position = 0
    end = len(text)
    while True:
        while position < end and text[position] in _WHITESPACE:
            position += 1
        if position == end:
            return values
        value, position = _DECODER.raw_decode(text, position)
        values.append(value)
