"""The bundle's ``source/scoring.json``: the lab's points and weights, so Gradescope scores as ``course-grade`` does.

Only what scoring needs travels (``points``, ``weights``): the roster, the
term seed and the deadlines stay with the instructor, and lateness is left to
Gradescope's own late policy, which knows when each upload came.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..course.course import NO_COURSE, Course
from ..course.course_settings import CourseSettings, LabSettings
from ..errors import GradingError

SCORING = "scoring.json"
"""The bundle's file (in ``source/``) holding the lab's points and weights from the course file, so a submission
scores on Gradescope what it scores in ``course-grade`` (``results/gradescope.py``); lateness is Gradescope's."""


def scoring_json(course: Course, lab: str) -> str:
    """The lab's points and weights, as the course file sets them (nothing else of it: no roster, no seed)."""
    settings = course.lab(lab)
    return json.dumps({"points": settings.points, "weights": settings.weights}, indent=2, sort_keys=True) + "\n"


def read_scoring(root: Path, lab: str) -> Course:
    """The course the bundle was built with, as far as scoring goes; the empty course for a bundle without one."""
    path = root / "source" / SCORING
    if not path.is_file():
        return NO_COURSE
    try:
        lab_settings = LabSettings.model_validate_json(path.read_bytes())
    except ValueError as exc:
        raise GradingError(
            f"the autograder's {path} is not usable ({exc}); rebuild it with course-grade bundle"
        ) from None
    return Course(settings=CourseSettings(labs={lab: lab_settings}))
