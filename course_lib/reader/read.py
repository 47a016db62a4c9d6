"""The fast reader's way from a file's bytes to its committed lines (R1, R7, R8), by the core's rules.

The same rules as the plain store's ``jsonl.read_jsonl``, applied faster: a blank line
is ignored and an unterminated tail reported, never parsed (R8, ``jsonl.tail_warnings``);
every new line is validated (in bulk, ``lines.validate_lines``), a refused one by the
core's own ``jsonl.parse_line``, and every line's place in the tree by the core's
``jsonl.check_place`` (R7), so both readers refuse a file in the same words. The lines
the session's validated index covers are taken without validating them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..jsonl import ReadWarning, SessionReadResult, check_place, tail_warnings
from .lines import (
    KeptLine,
    collector_paused,
    hand_out,
    kind_of,
    remember_lines,
    validate_line,
    validate_lines,
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


@collector_paused()  # a bulk build: see lines.collector_paused
def read_lines(data: bytes, *, session: Path | None = None) -> CommittedLines:
    """Committed lines checked as entries, plus warnings.

    The lines go straight from bytes into the models (``validate_lines``), and when the
    file was read before (``session``) the lines its index covers are not validated again;
    the lines validated now are recorded in the index for the next open.
    """
    lines = data.split(b"\n")
    tail = lines.pop()
    # A blank line is ignored (R8); isspace() avoids copying the line like strip() would.
    numbers = [number for number, raw in enumerate(lines, start=1) if raw and not raw.isspace()]
    raws = lines if len(numbers) == len(lines) else [lines[number - 1] for number in numbers]
    vouched, ids = vouched_lines(session, data, numbers, raws) if session is not None else ([], set())
    new_numbers, new_raws = numbers[len(vouched) :], raws[len(vouched) :]
    kept: list[KeptLine] = []
    models = validate_lines(new_raws)
    if models is None:  # line by line, so the first bad line is the one named, whatever is wrong with it
        for number, raw in zip(new_numbers, new_raws):
            entry = validate_line(raw, number)
            check_place(ids, entry, line=number)
            ids.add(entry.id)
            kept.append(KeptLine(entry.id, entry.parent_id, raw, number, kind_of(entry), entry))
    else:
        for number, raw, entry in zip(new_numbers, new_raws, models):
            entry_id, parent_id = entry.id, entry.parent_id
            if entry_id in ids or (parent_id is not None and parent_id not in ids):
                check_place(ids, entry, line=number)  # the same test, which words the refusal
            ids.add(entry_id)
            kept.append(KeptLine(entry_id, parent_id, raw, number, kind_of(entry), entry))
    result = CommittedLines(vouched + kept if vouched else kept, tail_warnings(tail, len(lines) + 1))
    if session is not None and kept:
        remember_lines(session, data, len(data) - len(tail), result.lines)
    return result
