"""The class report's input: the counted rows of a batch's grades CSV, and its test columns.

Only the submission that counts for each student and lab is used (``counts``),
and a test's 0/1 scores are read from its column (``TEST_COLUMN``), in the
CSV's (course) order. A file the report cannot read is named with what is
missing (``NotAGradesFile``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pandas as pd

from course_lib.teaching import lab_registry

from ..errors import GradingError
from ..judging.citations import rules_cited
from ..safe_text import FORMULA_STARTS

FIXED_COLUMNS = ("student", "student_from", "file", "lab")
"""The CSV's first columns (``grades_frame.results_frame``); the test columns follow, then totals (and a course file's scores)."""
TEST_COLUMN = re.compile(r"(\S+) (H?\d+) (\S+)")
"""A test's column: ``11.3 7 fixed_costs_come_first``, ``11.3 H1 generated_kept_groups_and_reason``."""


class NotAGradesFile(GradingError):
    """The report's input is not a CSV written by ``course-grade`` (names the file and what is missing)."""


@dataclass(frozen=True)
class TestColumn:
    __test__ = False  # not a pytest class

    column: str
    lab: str
    number: str
    name: str

    @property
    def rules(self) -> tuple[str, ...]:
        return rules_cited(self.lab, self.number, self.name)


@dataclass(frozen=True)
class Grades:
    """The counted rows of a grades CSV and its test columns, in the CSV's (course) order."""

    frame: pd.DataFrame
    tests: tuple[TestColumn, ...]
    rows_read: int


def unneutralised(value: object) -> object:
    """A CSV text cell as graded: ``grades_csv.neutralised`` prefixed ``'`` to one that starts a formula."""
    if isinstance(value, str) and value[:1] == "'" and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def read_grades(path: str | os.PathLike[str]) -> Grades:
    try:
        frame = pd.read_csv(
            path,
            dtype={"student": str, "file": str, "lab": str},
            keep_default_na=False,
            na_values={"percent": [""], "total": [""]},
        )
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise NotAGradesFile(f"{path}: not a grades CSV ({exc})") from None
    missing = [column for column in (*FIXED_COLUMNS, "total", "percent", "counts") if column not in frame.columns]
    if missing:
        raise NotAGradesFile(f"{path}: not a grades CSV written by course-grade (no column {', '.join(missing)})")
    tests = [
        TestColumn(column, *match.groups())
        for column in frame.columns
        if (match := TEST_COLUMN.fullmatch(column)) and match.group(1) in lab_registry.LABS
    ]
    for column in ("student", "file", "lab"):
        frame[column] = frame[column].map(unneutralised)
    counted = frame[frame["counts"].astype(str).str.lower() == "true"]
    counted = counted[counted["lab"].isin(list(lab_registry.LABS))]
    return Grades(counted.reset_index(drop=True), tuple(tests), len(frame))


def lab_tests(grades: Grades, lab: str) -> list[TestColumn]:
    return [test for test in grades.tests if test.lab == lab]


def lab_scores(grades: Grades, lab: str) -> pd.DataFrame:
    """The lab's counted submissions × its tests, 0/1 (a test a row has no score for counts 0)."""
    rows = grades.frame[grades.frame["lab"] == lab]
    columns = [test.column for test in lab_tests(grades, lab)]
    return rows[columns].apply(pd.to_numeric, errors="coerce").fillna(0.0).set_axis(rows["student"].to_list())
