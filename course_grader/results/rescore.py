"""Scores made again under the course file as it is now, from a term's grades and records, no notebook run.

Why: extensions and overrides (``per_student.py``), a changed weight or late
policy are decided after grading; regrading 35 notebooks to apply one of them
took minutes and could draw other hidden cases. The records beside a grades
CSV (``grades.jsonl``) hold every test result, so each row's course columns
(``grades_csv.COURSE``: points, penalty, score, …) and its ``course`` stamp are
computed again by ``scoring.score`` and nothing else changes: the tests, the
notes, which duplicate counts. What changed is named, row by row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..course.course import Course
from ..judging.verdicts import GradeResult
from ..safe_text import valid
from .grades_csv import SHARD_COLUMN, GradesCsvError
from .scoring import score

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it
    import pandas as pd

SCORED = ("points", "max_points", "late", "penalty", "score")
"""The columns ``scoring.Score`` fills; ``submitted`` is when the file came, which a rescore does not change."""


def rescore(frame: pd.DataFrame, results: Sequence[GradeResult], course: Course) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` (``grades_csv.read_frame``) scored under ``course``, and one line per row whose score changed.

    Every row needs its record (the same file); a shard's CSV is refused, since
    its run record names the course file the whole run was scored by: rescore
    the merged CSV.
    """
    if any(SHARD_COLUMN.fullmatch(str(column)) for column in frame.columns):
        raise GradesCsvError("a shard's CSV: merge the shards first, then rescore the merged CSV")
    by_file = {valid(result.submission): result for result in results}
    missing = [file for file in frame["file"] if file not in by_file]
    if missing:
        raise GradesCsvError(f"no record for {', '.join(missing[:5])}: rescore needs the grades.jsonl written with it")
    rescored = frame.copy()
    changed = []
    for index, file in zip(rescored.index, rescored["file"]):
        record = score(by_file[file], course)
        before = float(rescored.at[index, "score"])
        for column in SCORED:
            rescored.at[index, column] = getattr(record, column)
        rescored.at[index, "course"] = course.stamp
        if before != record.score:
            changed.append(f"{file}: {before:g} → {record.score:g} ({record.explanation})")
    return rescored, changed
