"""Gradescope's ``results.json`` of one graded submission: checklist tests visible, hidden ones after publication.

Each test is worth its points under the course file (``scoring.points_per_test``:
its weight, scaled to the lab's points), so the total is the score local grading
gives before any late penalty; Gradescope applies its own late policy. It is
what a learner may be shown, so it never names the run's secret (issue 43):
the instructor's terminal and CSV keep it.

Gradescope shows each test's points and adds them up, so they are written in
ten-thousandths that add up to the lab's maximum exactly (``apportioned``):
rounding each alone gave seven tests of a 10-point lab 1.4286 each, 10.0002 in all.
"""

from __future__ import annotations

import math
from typing import Any

from ..course.course import NO_COURSE, Course
from ..judging.verdicts import GradeResult
from .scoring import points_per_test, score


def to_gradescope(result: GradeResult, course: Course = NO_COURSE) -> dict[str, Any]:
    """Gradescope's results.json: checklist tests visible, hidden ones after publication, scored as ``course`` scores."""
    worth = points_per_test(result, course)
    shown = apportioned(worth)
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
                "score": _in_units(shown.get(test.number, test.max_score) * _share(test.score, test.max_score)),
                "max_score": shown.get(test.number, test.max_score),
                "status": "passed" if test.passed else "failed",
                "output": test.output,
                "visibility": "after_published" if test.hidden else "visible",
            }
            for test in result.tests
        ],
    }


UNITS = 10_000
"""A test's points in results.json are whole ten-thousandths."""


def apportioned(worth: dict[str, float]) -> dict[str, float]:
    """Each test's points in ten-thousandths, adding up exactly to the rounded total (the largest remainders).

    Each test gets its points rounded down; the ten-thousandths this leaves go
    one each to the tests whose rounding lost the most (the earlier one on a
    tie), so every test is within 0.0001 of its exact share and a test worth
    nothing stays at 0.
    """
    exact = {number: points * UNITS for number, points in worth.items()}
    whole = {number: math.floor(value) for number, value in exact.items()}
    left = round(sum(exact.values())) - sum(whole.values())
    for number in sorted(exact, key=lambda number: whole[number] - exact[number])[: max(left, 0)]:
        whole[number] += 1
    return {number: whole[number] / UNITS for number in worth}


def _in_units(points: float) -> float:
    return round(points * UNITS) / UNITS


def _share(earned: float, out_of: float) -> float:
    return earned / out_of if out_of else 0.0
