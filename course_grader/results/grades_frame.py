"""A batch's rows as the grades CSV: one row per submission, the course's score beside the tests' own.

``grades_csv`` is the CSV as a format (its columns, types, quoting, reading it
back); this is what a batch puts in it: who, which lab, a score per test, the
course's ``score`` with its reason's parts, and the course file that scored it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..course.course import NO_COURSE, Course
from ..judging.verdicts import GradeResult
from .grades_csv import columns, typed, write_frame
from .scoring import score

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it (issue 31)
    import pandas as pd


def results_frame(
    results: Iterable[GradeResult], course: Course = NO_COURSE, *, shard: str | None = None
) -> pd.DataFrame:
    """One row per submission: who, which lab, a score column per test, the course's score, status, notes.

    The columns come in a fixed order (``grades_csv.columns``), whatever order the submissions arrive in;
    the rows in the order given (``grade_folder``'s: path order).
    """
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    rows: list[dict[str, Any]] = []
    tests: set[str] = set()
    for result in results:
        row: dict[str, Any] = {
            "student": result.student,
            "student_from": result.student_source,
            "file": result.submission,
            "lab": result.lab,
        }
        for test in result.tests:
            tests.add(f"{test.lab} {test.number} {test.name}")
            row[f"{test.lab} {test.number} {test.name}"] = test.score
        record = score(result, course)
        row |= {
            "points": record.points,
            "max_points": record.max_points,
            "late": record.late,
            "penalty": record.penalty,
            "score": record.score,
            "submitted": result.submitted,
            "submitted_from": result.submitted_from,
            "handed_in": result.handed_in,
            "total": result.score,
            "max_score": result.max_score,
            "percent": result.percent,
            "status": result.status,
            "counts": result.counts,
            "seconds": round(result.execution_time, 1),
            "budget": result.budget,
            "sandbox": result.sandbox,
            "seed": result.seed,
            "notes": " | ".join(result.notes),
            "course": course.stamp,  # which course file scored the row (merge and feedback check it)
        }
        if shard:
            row[shard] = ""
        rows.append(row)
    return typed(pd.DataFrame(rows, columns=columns(sorted(tests), shard=shard)))


def write_csv(
    results: Iterable[GradeResult],
    path: str | os.PathLike[str],
    course: Course = NO_COURSE,
    *,
    shard: str | None = None,
) -> pd.DataFrame:
    """The CSV (``grades_csv.render``), written whole or not at all (a temporary file renamed into place).

    Safe to open in a spreadsheet: every text cell is quoted, and one that
    would start a formula (a student folder named ``=HYPERLINK(…)``) is
    ``neutralised``. The frame returned is the data as graded, not neutralised.
    """
    frame = results_frame(results, course, shard=shard)
    write_frame(frame, Path(path))
    return frame
