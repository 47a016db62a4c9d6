"""One student's exceptions to the course file: a later deadline for a lab, a score set by hand, or which of their
files counts, with a reason.

Why in the course file and not in the grades: an extension or an appeal is
decided after grading, often after the gradebook went out, and must survive
every regrade and merge; written here, it applies wherever a score is made
(``scoring.score``: the CSV, the feedback page, the gradebook), and
``course-grade rescore`` applies a change to existing grades without running
a notebook again. Each says why, and the score's explanation repeats it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from course_lib.teaching import lab_registry


class _Exception(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    student: Annotated[str, Field(min_length=1)]
    """The roster id (the grades CSV's ``student``); one that names no student is refused (``course_roster``)."""
    lab: str
    reason: Annotated[str, Field(min_length=1)]
    """Why: shown in the score's explanation, so the student and a second grader see it."""

    @field_validator("lab")
    @classmethod
    def _known_lab(cls, lab: str) -> str:
        if lab not in lab_registry.LABS:
            raise ValueError(f"no lab {lab!r}; the labs are {', '.join(lab_registry.LABS)}")
        return lab


class Extension(_Exception):
    """``[[extensions]]``: this student's deadline for this lab (the late policy counts from it)."""

    deadline: datetime

    @field_validator("deadline")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("an extension's deadline needs a time zone offset (e.g. 2026-10-20T23:59:00+02:00)")
        return value


class Override(_Exception):
    """``[[overrides]]``: this student's score for this lab, whatever the tests and the late policy gave.

    It stands for the points and the penalty (``points`` = ``score``, no
    penalty, in the CSV); the explanation keeps what the tests gave.
    """

    score: Annotated[float, Field(ge=0)]


class Decision(_Exception):
    """``[[decisions]]``: which of this student's files for this lab counts, where the grader would not choose alone.

    A file handed in to another lab's assignment never replaces the one handed in to the lab's own without it, and
    two files the LMS gives one time (a tie) are flagged until it names one (``results.grades_csv``).
    """

    counts: Annotated[str, Field(min_length=1)]
    """The file, as the grades CSV's ``file`` column names it (the path under the submissions folder)."""


def twice(entries: tuple[_Exception, ...], table: str) -> list[str]:
    """The students and labs ``table`` names more than once: which one applies would be a guess."""
    seen: set[tuple[str, str]] = set()
    repeated = []
    for entry in entries:
        key = (entry.student, entry.lab)
        if key in seen:
            repeated.append(f"{table}: {entry.student} and {entry.lab} are named twice; keep one")
        seen.add(key)
    return repeated
