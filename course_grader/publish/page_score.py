"""The score a feedback page shows: a small record, the grader's own by default, a course file's when there is one.

The record (``ScoreRecord``) holds points, max_points, penalty, score and a
one-line explanation. Without one, a page scores 1 point per passed test and
no penalty (``points_per_test``); a course file's weights and late policy come
in as a ``Scorer`` that makes the record for each result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from course_lib.teaching import i18n

from ..judging.verdicts import GradeResult
from ..messages import MESSAGES


class ScoreRecord(Protocol):
    """A submission's score after weights and late policy, as a page shows it."""

    @property
    def points(self) -> float: ...

    @property
    def max_points(self) -> float: ...

    @property
    def penalty(self) -> float: ...

    @property
    def score(self) -> float: ...

    @property
    def explanation(self) -> str: ...


Scorer = Callable[[GradeResult], ScoreRecord]


@dataclass(frozen=True)
class PointsPerTest:
    """The grader's own scoring: every test worth 1 point, no late policy."""

    points: float
    max_points: float
    penalty: float
    score: float
    explanation: str


def points_per_test(result: GradeResult, language: str = i18n.DEFAULT) -> PointsPerTest:
    """The grader's own score of ``result``, explained in ``language``."""
    passed = sum(test.passed for test in result.tests)
    explanation = MESSAGES("1 point per passed test ({passed} of {total} passed); no late policy", language)
    return PointsPerTest(
        points=result.score,
        max_points=result.max_score,
        penalty=0.0,
        score=result.score,
        explanation=explanation.format(passed=passed, total=len(result.tests)),
    )
