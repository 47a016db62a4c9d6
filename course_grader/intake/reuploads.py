"""Which of one student's uploads of one file name came later, as the LMS's own renaming says.

An LMS keeps every upload of a submission, and renames one whose name is
already taken: Moodle's file picker makes ``lab_11_3.ipynb`` uploaded again
``lab_11_3 (1).ipynb``, then ``(2)``; Canvas makes it ``lab_11_3-1.ipynb``.
Moodle's grading worksheet gives a submission one time for all its files (its
last change), so two files of one submission tie on time; the renaming says
which came later, and ``uploaded_later`` reads it from the download names,
never from the notebooks. Files whose names differ otherwise (a draft beside
the notebook) are not ordered by it: their order is unknown, a tie
(``results.grades_csv.duplicate_verdicts`` flags it for review).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .roster import CANVAS, MOODLE, assignment, read_lms_name

_MOODLE_AGAIN = re.compile(r"(?P<stem>.+) \((?P<n>\d+)\)(?P<suffix>\.[^./ ]+)")
_CANVAS_AGAIN = re.compile(r"(?P<stem>.+)-(?P<n>\d+)(?P<suffix>\.[^./-]+)")
_INNER = {
    MOODLE: re.compile(r"[^/]+?_\d+_assignsubmission_(?:file|onlinetext)_/?(?P<inner>.+)"),
    CANVAS: re.compile(r"[^_/]+_(?:LATE_)?\d+_\d+_(?P<inner>.+)"),
}


@dataclass(frozen=True)
class Upload:
    """A download's place among its student's uploads of one name: ``same`` is equal for the uploads of one name."""

    same: tuple[str, str, str]
    """(the LMS, the student's id in it, the file name as first uploaded)."""
    number: int
    """0 for the first upload of the name, ``N`` for ``name (N)`` (Moodle) or ``name-N`` (Canvas)."""
    renamed: str
    """How the LMS named it: ``lab_11_3 (1).ipynb``."""


def upload(file: str) -> Upload | None:
    """``file``'s place among its student's uploads of its name, from its Moodle or Canvas download name, if any."""
    handed_in = assignment(file)
    where = handed_in.inner if handed_in is not None else file
    parsed = read_lms_name(where, (CANVAS, MOODLE))
    if parsed is None or not parsed.user:
        return None
    inner = _INNER[parsed.pattern].fullmatch(where)
    if inner is None:
        return None
    name = inner.group("inner")
    again = (_MOODLE_AGAIN if parsed.pattern == MOODLE else _CANVAS_AGAIN).fullmatch(name)
    lms = "Moodle" if parsed.pattern == MOODLE else "Canvas"
    if again is None:
        return Upload((lms, parsed.user, name), 0, name)
    first = again.group("stem") + again.group("suffix")
    return Upload((lms, parsed.user, first), int(again.group("n")), name)


def uploaded_later(file: str, other: str) -> bool | None:
    """Whether ``file`` was uploaded after ``other`` by the LMS's renaming (``None``: the names do not say)."""
    mine, theirs = upload(file), upload(other)
    if mine is None or theirs is None or mine.same != theirs.same or mine.number == theirs.number:
        return None
    return mine.number > theirs.number
