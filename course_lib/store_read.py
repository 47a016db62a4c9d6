"""Reading a JSONL session: its committed lines parsed to entries, with what was skipped (R1, R7, R8).

Every way in (``JsonlSessionStore.open`` and ``read``, ``recover_jsonl``,
``recover_into``) reads through ``read_jsonl``, so each applies the same rules:
the parser's (R1) and the tree's (``check_place``, R7, which appends share),
naming the line; a blank line is ignored and an unterminated tail is reported,
never parsed (R8). ``store.py`` says what the stores promise; this is how a
file's bytes become their entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import SessionStoreError, quoted
from .models import SessionEntry
from .parsing import parse_session_entry
from .store_lines import (
    KeptLine,
    Parser,
    collector_paused,
    hand_out,
    kind_of,
    line_prefix,
    parse_line,
    remember_lines,
    vouched_lines,
)
from .store_lines import validate_line as _validate_line
from .store_lines import validate_lines as _validate_lines


@dataclass(frozen=True)
class ReadWarning:
    """Something reading skipped without losing it: today only an unterminated tail (R8)."""

    code: Literal["unterminated_tail"]
    line: int
    message: str


@dataclass(frozen=True)
class SessionReadResult:
    entries: list[SessionEntry]
    warnings: tuple[ReadWarning, ...] = field(default_factory=tuple)


def check_place(ids: set[str], entry: Any, *, line: int | None = None) -> None:
    """A unique id and an already-stored parent; only roots have no parent (R7).

    Appends and every way of reading a file share it: one set of rules for every way in.
    """
    if entry.id in ids:
        raise SessionStoreError(
            f"{line_prefix(line)}duplicate entry id {quoted(entry.id)}", entry_id=entry.id, line=line
        )
    if entry.parent_id is not None and entry.parent_id not in ids:
        raise SessionStoreError(
            f"{line_prefix(line)}entry {quoted(entry.id)} names unknown parent {quoted(entry.parent_id)}",
            entry_id=entry.id,
            line=line,
        )


def recover_jsonl(text: str, *, parse: Parser = parse_session_entry) -> SessionReadResult:
    """Read JSONL text as a store would: skip blank lines, report an unterminated tail (R8)."""
    return read_jsonl(text.encode("utf-8"), parse).as_result()


@dataclass
class CommittedEntries:
    """The committed entries in file order and their ids, before any copy is handed out.

    With the course parser every entry is a ``KeptLine`` (validated now, or vouched for by the
    file's index); a custom parser's entries are its models.
    """

    entries: list[Any] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    warnings: tuple[ReadWarning, ...] = ()

    def as_result(self) -> SessionReadResult:
        """Models nobody else holds (R3): the ones validating the lines produced just now,
        lines the index vouched for built now, or copies of a custom parser's models."""
        return SessionReadResult(entries=hand_out(self.entries), warnings=self.warnings)


@collector_paused()  # a bulk build: see store_lines.collector_paused
def read_jsonl(data: bytes, parse: Parser, *, session: Path | None = None) -> CommittedEntries:
    """Committed lines parsed to entries, plus warnings.

    Every way in (``open``, ``read``, ``recover_jsonl``, ``recover_into``) comes here, so
    each applies the same rules: the parser's (R1) and the tree's (R7), naming the line.
    With the course parser the lines go straight from bytes into the models
    (``store_lines.validate_lines``), and when the file was read before (``session``)
    the lines its index covers are not validated again.
    """
    lines = data.split(b"\n")
    tail = lines.pop()
    # A blank line is ignored (R8); isspace() avoids copying the line like strip() would.
    numbers = [number for number, raw in enumerate(lines, start=1) if raw and not raw.isspace()]
    raws = lines if len(numbers) == len(lines) else [lines[number - 1] for number in numbers]
    course = parse is parse_session_entry
    vouched, ids = vouched_lines(session, data, numbers, raws) if course and session is not None else ([], set())
    result = CommittedEntries(entries=vouched, ids=ids)
    covered = len(vouched)
    new_numbers, new_raws = numbers[covered:], raws[covered:]
    entries: list[Any] = []
    models = _validate_lines(new_raws) if course else None
    if models is None:  # line by line, so the first bad line is the one named, whatever is wrong with it
        for number, raw in zip(new_numbers, new_raws):
            entry = _validate_line(raw, number) if course else parse_line(raw, number, parse)
            check_place(ids, entry, line=number)
            ids.add(entry.id)
            entries.append(KeptLine(entry.id, entry.parent_id, raw, number, kind_of(entry), entry) if course else entry)
    else:
        for number, raw, entry in zip(new_numbers, new_raws, models):
            entry_id, parent_id = entry.id, entry.parent_id
            if entry_id in ids or (parent_id is not None and parent_id not in ids):
                check_place(ids, entry, line=number)  # the same test, which words the refusal
            ids.add(entry_id)
            entries.append(KeptLine(entry_id, parent_id, raw, number, kind_of(entry), entry))
    result.entries = vouched + entries if vouched else entries
    if tail.strip():
        line = len(lines) + 1
        result.warnings = (
            ReadWarning(
                code="unterminated_tail",
                line=line,
                message=f"line {line} has no newline (an unterminated tail, skipped)",
            ),
        )
    if course and session is not None and entries:
        remember_lines(session, data, len(data) - len(tail), result.entries)
    return result
