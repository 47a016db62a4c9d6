"""The gradebook an LMS imports: one row per roster student, one column per lab in course order.

Why from the grades CSV and the roster alone: grading may have run on
several machines (``merge``) or weeks ago; the gradebook is the counting row
(``counts``) of each student and lab, its ``score`` (after weights and the
late penalty, ``scoring.py``). A student with no submission for a lab gets an
empty cell (``missing="empty"``: the LMS shows it ungraded) or 0
(``missing="zero"``). Rows that name no roster student (unknown, ambiguous or
a conflict: ``student_from`` says ``unknown``) are left out and counted, so the
instructor sees them; such a row never lands in a real student's row, whatever
its ``student`` cell says.

Two layouts (docs/grading.md, *Exports*):

- ``canvas``: Canvas's gradebook CSV, ``Student, ID, SIS User ID, SIS Login
  ID, Section`` then one column per lab. ``ID`` is the Canvas user id (the
  first all-digit alias, as Canvas download names carry it), ``SIS User ID``
  the roster id, ``SIS Login ID`` the email;
- ``moodle``: ``ID number, Email address, Full name`` then one column per lab,
  for Moodle's *Import grades → CSV file* (map ``ID number`` to ``idnumber``
  or ``Email address`` to ``email``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from course_lib import lab_registry

from ..files import write_atomically
from ..intake.roster import UNKNOWN, Roster, Student
from ..results.course import NO_COURSE, Course
from ..results.grades_csv import GradesCsvError, neutralised

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it (issue 31)
    import pandas as pd

Layout = Literal["canvas", "moodle"]
Missing = Literal["empty", "zero"]
HEADERS: dict[str, tuple[str, ...]] = {
    "canvas": ("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
    "moodle": ("ID number", "Email address", "Full name"),
}


@dataclass(frozen=True)
class Gradebook:
    text: str
    students: int
    labs: tuple[str, ...]
    unknown: int
    """Counting rows whose student is not on the roster: graded, but in nobody's row."""
    missing: int
    """Cells with no submission (empty or 0, as asked)."""


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _identity(layout: Layout, student: Student) -> tuple[str, ...]:
    if layout == "moodle":
        return student.id, student.email, student.name
    canvas_id = next((alias for alias in student.aliases if alias.isdigit()), "")
    return student.name or student.id, canvas_id, student.id, student.email, student.section


def labs_of(grades: pd.DataFrame, course: Course) -> tuple[str, ...]:
    """The labs graded or set in the course file, in course order."""
    named = {lab for lab in grades["lab"] if lab} | set(course.settings.labs)
    return tuple(lab for lab in lab_registry.LABS if lab in named)


def build(
    grades: pd.DataFrame,
    roster: Roster,
    *,
    layout: Layout = "canvas",
    missing: Missing = "empty",
    course: Course = NO_COURSE,
    labs: Iterable[str] | None = None,
) -> Gradebook:
    """The gradebook of ``grades`` (``grades_csv.read_frame``) for ``roster``, in ``layout``."""
    for needed in ("student", "student_from", "lab", "counts", "score"):
        if needed not in grades.columns:
            raise GradesCsvError(f"the grades CSV has no column {needed!r}: write it with this course-grade")
    chosen = tuple(labs) if labs is not None else labs_of(grades, course)
    counting = grades[grades["counts"] & (grades["lab"] != "")]
    ids = {student.id for student in roster.students}
    # a row the grader could not give to one roster student (unknown, ambiguous, a conflict) is in nobody's row,
    # whatever its student cell says: an older CSV may name a real student there
    named = counting["student"].isin(ids) & ~counting["student_from"].str.startswith(UNKNOWN)
    unknown = int((~named).sum())
    scores = {(row.student, row.lab): float(row.score) for row in counting[named].itertuples()}
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow([*HEADERS[layout], *(course.column(lab) for lab in chosen)])
    empty = 0
    for student in roster.students:
        cells = []
        for lab in chosen:
            value = scores.get((student.id, lab))
            if value is None:
                empty += 1
            cells.append(_number(value) if value is not None else "0" if missing == "zero" else "")
        writer.writerow([*(neutralised(text) for text in _identity(layout, student)), *cells])
    return Gradebook(buffer.getvalue(), len(roster.students), chosen, unknown, empty)


def write(gradebook: Gradebook, path: str | Path) -> None:
    write_atomically(Path(path), gradebook.text)
