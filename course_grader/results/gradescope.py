"""Gradescope's ``results.json`` of one graded submission: checklist tests visible, hidden ones after publication.

Each test is worth its points under the course file (``scoring.points_per_test``:
its weight, scaled to the lab's points), so the total is the score local grading
gives before any late penalty; Gradescope applies its own late policy. It is
what a learner may be shown, so it never names the run's secret (issue 43):
the instructor's terminal and CSV keep it.
"""

from __future__ import annotations

from typing import Any

from ..course.course import NO_COURSE, Course
from ..judging.verdicts import GradeResult
from .scoring import points_per_test, score


def to_gradescope(result: GradeResult, course: Course = NO_COURSE) -> dict[str, Any]:
    """Gradescope's results.json: checklist tests visible, hidden ones after publication, scored as ``course`` scores."""
    worth = points_per_test(result, course)
    points = score(result, course).points
    summary = f"Lab {result.lab}: {points:g}/{sum(worth.values()):g}" if result.lab else "Not graded"
    if result.budget:
        summary += f" (graded in {result.execution_time:.1f} s of a {result.budget:g} s budget)"
    return {
        "score": points,
        "execution_time": round(result.execution_time),
        "output": "\n".join([summary, *result.notes]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": f"Lab {test.lab} · {'hidden · ' if test.hidden else ''}{test.name}",
                "number": test.number,
                "score": round(worth.get(test.number, test.max_score) * _share(test.score, test.max_score), 4),
                "max_score": round(worth.get(test.number, test.max_score), 4),
                "status": "passed" if test.passed else "failed",
                "output": test.output,
                "visibility": "after_published" if test.hidden else "visible",
            }
            for test in result.tests
        ],
    }


def _share(earned: float, out_of: float) -> float:
    return earned / out_of if out_of else 0.0
