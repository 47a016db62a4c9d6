"""Gradescope's ``results.json`` of one graded submission: checklist tests visible, hidden ones after publication."""

from __future__ import annotations

from typing import Any

from ..judging.verdicts import GradeResult


def to_gradescope(result: GradeResult) -> dict[str, Any]:
    """Gradescope's results.json: checklist tests visible, hidden ones after publication."""
    summary = f"Lab {result.lab}: {result.score:g}/{result.max_score:g}" if result.lab else "Not graded"
    if result.budget:
        summary += f" (graded in {result.execution_time:.1f} s of a {result.budget:g} s budget)"
    if result.seed is not None:
        summary += f"; hidden cases from seed {result.seed}"
    return {
        "score": result.score,
        "execution_time": round(result.execution_time),
        "output": "\n".join([summary, *result.notes]),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": f"Lab {test.lab} · {'hidden · ' if test.hidden else ''}{test.name}",
                "number": test.number,
                "score": test.score,
                "max_score": test.max_score,
                "status": "passed" if test.passed else "failed",
                "output": test.output,
                "visibility": "after_published" if test.hidden else "visible",
            }
            for test in result.tests
        ],
    }
