"""A JSONL session's bytes: committed lines read into entries, entries written as lines (R1, R2, R7, R8).

One entry per line in the wire format. A newline is the commit marker, so a last
line without one is an unterminated tail: reported, never parsed. Blank lines are
ignored. Every committed line goes through the parser (R1), and any error names its
line (R8): a bad line is never skipped. ``check_place`` is the tree's rule (R7),
which appends share: one set of rules for every way in.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from .errors import NotFiniteJsonError, SessionEntryError, SessionStoreError, quoted
from .models import SessionEntry
from .parsing import parse_session_entry, to_json_dict

Parser = Callable[[Any], Any]


@dataclass(frozen=True)
class ReadWarning:
    """Something reading skipped without losing it: today only an unterminated tail (R8)."""

    code: Literal["unterminated_tail"]
    line: int
    message: str


@dataclass(frozen=True)
class SessionReadResult:
    entries: list[SessionEntry]
    warnings: tuple[ReadWarning, ...] = ()


def read_jsonl(data: bytes, parse: Parser = parse_session_entry) -> SessionReadResult:
    """The committed lines as entries, in file order (built just now: nobody else holds them), and the warnings."""
    *lines, tail = data.split(b"\n")
    entries: list[Any] = []
    ids: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        if raw.strip():  # a blank line is ignored (R8)
            entry = parse_line(raw, number, parse)
            check_place(ids, entry, line=number)
            ids.add(entry.id)
            entries.append(entry)
    return SessionReadResult(entries, tail_warnings(tail, len(lines) + 1))


def recover_jsonl(text: str, *, parse: Parser = parse_session_entry) -> SessionReadResult:
    """Read JSONL text as a store would: skip blank lines, report an unterminated tail (R8)."""
    return read_jsonl(text.encode("utf-8"), parse)


def tail_warnings(tail: bytes, line: int) -> tuple[ReadWarning, ...]:
    """What follows the last newline: nothing, or an unterminated tail on ``line`` (R8)."""
    if not tail.strip():
        return ()
    return (ReadWarning("unterminated_tail", line, f"line {line} has no newline (an unterminated tail, skipped)"),)


def check_place(ids: set[str], entry: Any, *, line: int | None = None) -> None:
    """A unique id and an already-stored parent; only roots have no parent (R7)."""
    if entry.id in ids:
        problem = f"duplicate entry id {quoted(entry.id)}"
    elif entry.parent_id is not None and entry.parent_id not in ids:
        problem = f"entry {quoted(entry.id)} names unknown parent {quoted(entry.parent_id)}"
    else:
        return
    raise SessionStoreError(f"{line_prefix(line)}{problem}", entry_id=entry.id, line=line)


def line_prefix(line: int | None) -> str:
    """How every store message names a line (R8): ``line 3: ``, or nothing when there is none."""
    return f"line {line}: " if line is not None else ""


def parse_line(raw: bytes, number: int, parse: Parser) -> Any:
    """One committed line as an entry, or an error naming the line (R8) and the field (R2).

    JSON as ``JSON.parse`` reads it, but strict where R1 is: UTF-8 only, no NaN or
    Infinity, no key twice in one object (``json`` alone would keep the last).
    """
    entry_id = path = None
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, parse_constant=_refuse, parse_int=_json_int, object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    except SessionEntryError as exc:  # a key twice in one object
        problem = str(exc)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        problem = "nests too deeply to be a session entry"
    except ValueError as exc:  # NaN or Infinity
        problem = f"not valid JSON ({exc})"
    else:
        try:
            return parse(value)
        except SessionEntryError as exc:  # the parser's own words: the entry id and the field (R2)
            problem, entry_id, path = str(exc), exc.entry_id, exc.path
    raise SessionEntryError(line_prefix(number) + problem, entry_id=entry_id, path=path, line=number)


def _refuse(constant: str) -> Any:
    raise NotFiniteJsonError(constant)


def _json_int(digits: str) -> int | float:
    """An integer as JSON.parse reads it: past the double range it is infinite, which the
    models refuse naming the field (R1); Python's own digit limit is never reached."""
    if len(digits) > 400:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys all differ: a second value for a key is refused, not kept (R1)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise SessionEntryError(f"key {quoted(key)} appears twice in one object")
            seen.add(key)
    return value


def wire_line(entry: Any) -> bytes:
    """The entry as one UTF-8 JSON line in the wire format, or refused before anything is written (R8).

    The course parser already refuses what UTF-8 cannot hold (a lone surrogate); a
    custom ``parse`` may not, and its entry is then the caller's error: the store stays open.
    """
    try:
        if isinstance(entry, BaseModel):
            return entry.model_dump_json(by_alias=True).encode("utf-8") + b"\n"
        return json.dumps(to_json_dict(entry), ensure_ascii=False, allow_nan=False).encode("utf-8") + b"\n"
    except ValueError:  # UnicodeEncodeError and pydantic's serialization error are ValueErrors
        entry_id = getattr(entry, "id", None)
        message = f"entry {quoted(entry_id)} cannot be written as a UTF-8 JSON line"
        raise SessionEntryError(message, entry_id=entry_id) from None
