"""The gradebook an LMS imports: one row per roster student, one column per lab in course order.

Why from the grades CSV and the roster alone: grading may have run on
several machines (``merge``) or weeks ago; the gradebook is the counting row
(``counts``) of each student and lab, its ``score`` (after weights and the
late penalty, ``scoring.py``), or the course file's override for a lab the
student handed nothing in for (its reason said on stderr). A student with no submission for a lab gets an
empty cell (``missing="empty"``: the LMS shows it ungraded) or 0
(``missing="zero"``), but 0 only in a lab that is due: its deadline has
passed, or, with no deadline in the course file, somebody's work in it was
graded; a lab not yet due stays empty, so exporting mid-term gives nobody a
0 for work not yet asked of them. Rows that name no roster student (unknown, ambiguous or
a conflict: ``student_from`` says ``unknown``) are left out and counted, so the
instructor sees them; such a row never lands in a real student's row, whatever
its ``student`` cell says.

Two layouts (docs/grading.md, *Exports*):

- ``canvas``: Canvas's gradebook CSV, ``Student, ID, SIS User ID, SIS Login
  ID, Section`` then one column per lab, and under the header the
  ``Points Possible`` row Canvas's own export writes, which Canvas's import
  reads as the points of an assignment it creates. ``ID`` is the Canvas user
  id (the first all-digit alias, as Canvas download names carry it), ``SIS
  User ID`` the roster id, ``SIS Login ID`` the email;
- ``moodle``: ``ID number, Email address, Full name`` then one column per lab,
  for Moodle's *Import grades → CSV file* (map ``ID number`` to ``idnumber``
  or ``Email address`` to ``email``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from course_lib.teaching import lab_registry

from ..course.course import NO_COURSE, Course
from ..course.course_roster import said_without_submission, without_submission
from ..files import write_atomically
from ..intake.roster import UNKNOWN, Roster, Student
from ..results.grades_csv import GradesCsvError, neutralised

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it (issue 31)
    import pandas as pd

Layout = Literal["canvas", "moodle"]
Missing = Literal["empty", "zero"]
HEADERS: dict[str, tuple[str, ...]] = {
    "canvas": ("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
    "moodle": ("ID number", "Email address", "Full name"),
}
POINTS_POSSIBLE = "    Points Possible"
"""The first cell of Canvas's second row, as its export writes it (leading spaces included)."""


@dataclass(frozen=True)
class Gradebook:
    text: str
    students: int
    labs: tuple[str, ...]
    unknown: int
    """Counting rows whose student is not on the roster: graded, but in nobody's row."""
    missing: int
    """Cells with no submission (empty or 0, as asked)."""
    not_due: tuple[str, ...] = ()
    """Labs whose empty cells stay empty under ``missing="zero"``: not due yet (see the module's rules)."""
    overridden: tuple[str, ...] = ()
    """A line per cell an override fills where the student handed nothing in (``course_roster.without_submission``)."""


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _identity(layout: Layout, student: Student) -> tuple[str, ...]:
    if layout == "moodle":
        return student.id, student.email, student.name
    canvas_id = next((alias for alias in student.aliases if alias.isdigit()), "")
    return student.name or student.id, canvas_id, student.id, student.email, student.section


def labs_of(grades: pd.DataFrame, course: Course) -> tuple[str, ...]:
    """The labs graded, set in the course file or given a score by one of its overrides, in course order."""
    named = (
        {lab for lab in grades["lab"] if lab} | set(course.settings.labs) | {o.lab for o in course.settings.overrides}
    )
    return tuple(lab for lab in lab_registry.LABS if lab in named)


def points_possible(grades: pd.DataFrame, course: Course, labs: Iterable[str]) -> dict[str, str]:
    """Each lab's points: its graded rows' ``max_points`` (which all agree), else the course file's ``points``.

    The rows come first: they are what the scores are out of, whatever the
    course file says today. A lab nothing was graded in, and whose points the
    course file does not set, gets an empty cell: set its points in Canvas.
    """
    possible: dict[str, str] = {}
    for lab in labs:
        rows = grades.loc[grades["lab"] == lab, "max_points"] if "max_points" in grades.columns else ()
        graded = {float(value) for value in rows if float(value) > 0}
        if len(graded) > 1:
            raise GradesCsvError(
                f"{lab_registry.lab(lab).label} rows disagree on its points ({', '.join(map(_number, sorted(graded)))}): "
                "they were graded under different course files; grade them again with one"
            )
        points = next(iter(graded), None) if graded else course.lab(lab).points
        possible[lab] = _number(points) if points is not None else ""
    return possible


def due(grades: pd.DataFrame, course: Course, labs: Iterable[str], now: datetime) -> tuple[str, ...]:
    """The labs a missing submission costs 0 in: past their deadline, or without one but graded for someone."""
    graded = set(grades["lab"])

    def is_due(lab: str) -> bool:
        deadline = course.lab(lab).deadline
        return lab in graded if deadline is None else deadline <= now

    return tuple(lab for lab in labs if is_due(lab))


def build(
    grades: pd.DataFrame,
    roster: Roster,
    *,
    layout: Layout = "canvas",
    missing: Missing = "empty",
    course: Course = NO_COURSE,
    labs: Iterable[str] | None = None,
    now: datetime | None = None,
) -> Gradebook:
    """The gradebook of ``grades`` (``grades_csv.read_frame``) for ``roster``, in ``layout``; ``now`` decides what is due."""
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
    overridden = [o for o in without_submission(course, scores) if o.student in ids and o.lab in chosen]
    scores |= {(o.student, o.lab): o.score for o in overridden}
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    # every header cell as the rows' text cells: a course file's own column = "=1+1" is not a formula (issue 43)
    writer.writerow([neutralised(text) for text in (*HEADERS[layout], *(course.column(lab) for lab in chosen))])
    if layout == "canvas":
        possible = points_possible(counting, course, chosen)
        writer.writerow([POINTS_POSSIBLE, *[""] * (len(HEADERS[layout]) - 1), *(possible[lab] for lab in chosen)])
    zero = due(counting, course, chosen, now or datetime.now(UTC)) if missing == "zero" else ()
    empty = 0
    for student in roster.students:
        cells = []
        for lab in chosen:
            value = scores.get((student.id, lab))
            if value is None:
                empty += 1
            cells.append(_number(value) if value is not None else "0" if lab in zero else "")
        writer.writerow([*(neutralised(text) for text in _identity(layout, student)), *cells])
    not_due = tuple(lab for lab in chosen if lab not in zero) if missing == "zero" else ()
    said = tuple(said_without_submission(o) for o in overridden)
    return Gradebook(buffer.getvalue(), len(roster.students), chosen, unknown, empty, not_due, said)


def write(gradebook: Gradebook, path: str | Path) -> None:
    write_atomically(Path(path), gradebook.text)
