"""The fast reader's way from a file's bytes to its committed lines (R1, R7, R8), by the core's rules.

The same rules as the plain store's ``jsonl.read_jsonl``, applied faster: a blank line
is ignored and an unterminated tail reported, never parsed (R8, ``jsonl.tail_warnings``);
every new line is validated (``lines.validate_line``: jiter's read, validated into the models),
a refused one by the core's own ``jsonl.parse_line``, and every line's place in the tree by the core's
``jsonl.check_place`` (R7), so both readers refuse a file in the same words. The lines
the session's validated index covers are taken without validating them again. A file is read a
block at a time (``blocks``), never held whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..jsonl import ReadWarning, SessionReadResult, check_place, tail_warnings
from .blocks import FileLines, file_lines, memory_lines
from .index import SessionIndex, load_index
from .lines import (
    KeptLine,
    collector_paused,
    hand_out,
    kind_of,
    remember_lines,
    validate_line,
    vouched_lines,
)


@dataclass
class CommittedLines:
    """The committed lines in file order, kept as bytes (validated now, or vouched for by the
    file's index), before any entry is handed out."""

    lines: list[KeptLine] = field(default_factory=list)
    warnings: tuple[ReadWarning, ...] = ()

    def as_result(self) -> SessionReadResult:
        """Models nobody else holds (R3): the ones validating the lines produced just now, or
        lines the index vouched for built now."""
        return SessionReadResult(entries=hand_out(self.lines), warnings=self.warnings)


def read_file(session: Path) -> CommittedLines:
    """A session file's committed lines, read a block at a time (``blocks.file_lines``): the lines
    its index covers taken as they stand when the bytes are the ones it names, the rest validated,
    and the index written again when there were new lines."""
    index = load_index(session, session.stat().st_size)
    return _committed(file_lines(session, index.size if index is not None else 0), index, session)


def read_lines(data: bytes) -> CommittedLines:
    """Committed lines of bytes in memory (a JSONL text), every one validated: no index covers them."""
    return _committed(memory_lines(data), None, None)


@collector_paused()  # a bulk build: see lines.collector_paused
def _committed(content: FileLines, index: SessionIndex | None, session: Path | None) -> CommittedLines:
    """Committed lines checked as entries, plus warnings.

    Each new line goes from its bytes into its model (``validate_line``) and its place in the
    tree is checked in the same pass; the lines the index covers are not validated again; the
    lines validated now are recorded in the session's index for the next open.
    """
    lines = content.lines[:-1]
    tail = content.lines[-1]
    # A blank line is ignored (R8); isspace() avoids copying the line like strip() would.
    numbers = [number for number, raw in enumerate(lines, start=1) if raw and not raw.isspace()]
    raws = lines if len(numbers) == len(lines) else [lines[number - 1] for number in numbers]
    vouched, ids = vouched_lines(index, content, numbers, raws)
    kept: list[KeptLine] = []
    keep = kept.append
    # One pass, each line validated and placed while its bytes and model are in the CPU's caches;
    # the first bad line raises, worded by the core's slow path (validate_line) or tree check (R2, R7, R8).
    for number, raw in zip(numbers[len(vouched) :], raws[len(vouched) :]):
        entry = validate_line(raw, number)
        entry_id, parent_id = entry.id, entry.parent_id
        if entry_id in ids or (parent_id is not None and parent_id not in ids):
            check_place(ids, entry, line=number)  # the same test, which words the refusal
        ids.add(entry_id)
        keep(KeptLine(entry_id, parent_id, raw, number, kind_of(entry), entry))
    result = CommittedLines(vouched + kept if vouched else kept, tail_warnings(tail, len(lines) + 1))
    if session is not None and kept:
        remember_lines(session, content, result.lines)
    return result
