"""The row of a submission that was not graded: refused, unreadable, or its worker crashed, died or hung.

A batch never drops a submission (docs/grading.md, *Grading a folder*): the
folder's listing, the pool of workers and the batch itself each make such a
row, with the reason as its note, so they make it one way, here.
"""

from __future__ import annotations

import time
from pathlib import Path

from course_lib.teaching.lab_registry import Lab

from ..intake.identity import submission_name
from ..intake.roster import attribute
from ..judging.grade import not_graded
from ..judging.grade_options import GradeOptions
from ..judging.verdicts import GradeResult, Status


def ungraded_row(
    path: Path, root: str, options: GradeOptions, note: str, *, status: Status = "error", lab: Lab | None = None
) -> GradeResult:
    """A row for a submission that was not graded (refused, unreadable, its worker died or hung), every test at 0."""
    who, source, known = (
        attribute(path, root, options.identity.names) if Path(path) != Path(root) else (Path(path).name, "folder", ())
    )
    result = not_graded(path, who, lab, note, time.monotonic(), options)
    return result.model_copy(
        update={
            "submission": submission_name(path, root),
            "student_source": source,
            "status": status,
            "execution_time": 0.0,
            "notes": (*known, *result.notes),
        }
    )
