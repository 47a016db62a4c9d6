"""Scores made again under the course file as it is now, from a term's grades and records, no notebook run.

Why: extensions and overrides (``per_student.py``), a changed weight or late
policy are decided after grading; regrading 35 notebooks to apply one of them
took minutes and could draw other hidden cases. The records beside a grades
CSV (``grades.jsonl``) hold every test result, so each row's course columns
(``grades_csv.COURSE``: points, penalty, score, …) and its ``course`` stamp are
computed again by ``scoring.score``, and which of a student's files counts is
decided again under the course file's ``duplicates`` and ``[[decisions]]``
(``duplicates``: an instructor's decision needs no regrade). The tests and the
other notes stay as graded. What changed is named, row by row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..course.course import Course, Stamp
from ..judging.verdicts import GradeResult
from ..safe_text import valid
from .duplicates import DUPLICATE, flag_frame
from .grades_csv import NOTES_SEPARATOR, SHARD_COLUMN, GradesCsvError
from .scoring import score
from .term_merge import unflagged

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it
    import pandas as pd

SCORED = ("points", "max_points", "late", "penalty", "score")
"""The columns ``scoring.Score`` fills; ``submitted`` is when the file came, which a rescore does not change."""


def rescore(
    frame: pd.DataFrame, results: Sequence[GradeResult], course: Course
) -> tuple[pd.DataFrame, list[GradeResult], list[str]]:
    """``frame`` (``grades_csv.read_frame``) and its records scored under ``course``, and one line per row whose
    score or counting changed.

    Every row needs its record (the same file); a shard's CSV is refused, since
    its run record names the course file the whole run was scored by: rescore
    the merged CSV. Each row keeps who its files were read as (its stamp's
    second part: rescore reads no names).
    """
    if any(SHARD_COLUMN.fullmatch(str(column)) for column in frame.columns):
        raise GradesCsvError("a shard's CSV: merge the shards first, then rescore the merged CSV")
    by_file = {valid(result.submission): result for result in results}
    missing = [file for file in frame["file"] if file not in by_file]
    if missing:
        raise GradesCsvError(f"no record for {', '.join(missing[:5])}: rescore needs the grades.jsonl written with it")
    rescored = frame.copy()
    before = {
        file: (float(value), bool(counts))
        for file, value, counts in zip(frame["file"], frame["score"], frame["counts"])
    }
    for index, file in zip(rescored.index, rescored["file"]):
        scored = score(by_file[file], course)
        for column in SCORED:
            rescored.at[index, column] = getattr(scored, column)
        identity = Stamp.read(str(rescored.at[index, "course"])).identity
        rescored.at[index, "course"] = course.model_copy(update={"identity": identity}).stamp
    plain, earlier, _ = unflagged(rescored, course.decided)
    flagged = flag_frame(plain, course.settings.duplicates, course.decided)
    records = []
    changed = []
    for index, file in zip(flagged.index, flagged["file"]):
        record = by_file[file]
        notes = record.notes[1:] if record.notes and record.notes[0] == earlier.get(file) else record.notes
        head = flagged.at[index, "notes"].split(NOTES_SEPARATOR, 1)[0]
        if head.startswith(DUPLICATE):
            notes = (head, *notes)
        counts = bool(flagged.at[index, "counts"])
        records.append(record.model_copy(update={"counts": counts, "notes": notes}))
        was, now = before[file], (float(flagged.at[index, "score"]), counts)
        if was != now:
            changed.append(_changed(file, was, now, score(record, course).explanation, head))
    return flagged, records, changed


def _changed(file: str, was: tuple[float, bool], now: tuple[float, bool], explanation: str, note: str) -> str:
    """``alice/lab_11_3.ipynb: 8 → 10 (…)``, and whether it counts now (``now counts: …``)."""
    line = f"{file}: {was[0]:g} → {now[0]:g} ({explanation})" if was[0] != now[0] else f"{file}: {now[0]:g}"
    if was[1] != now[1]:
        line += f"; {'now counts' if now[1] else 'no longer counts'} ({note.removeprefix(DUPLICATE)})"
    return line
