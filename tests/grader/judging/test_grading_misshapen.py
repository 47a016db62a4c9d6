"""A function may return anything: a wrongly shaped result fails its hidden calls, it never crashes the grader.

Issue 27's reply flood answered every call of Lab 11.5 with a list where a build
result belongs; the grader's own view of the result (``HiddenTest.view``) raised,
and the row became "could not grade: TypeError" instead of failed calls.
"""

from __future__ import annotations

from typing import Any

import pytest

from course_grader.judging import practice
from course_grader.judging.hidden import Returned, call_verdict
from course_grader.judging.hidden_cases import hidden_tests
from course_lib.teaching import lab_registry

MISSHAPEN: list[Any] = [[[0]] * 3, "text", 7, None, {"keptEntryIds": 1}]
"""Returned values of the wrong shape: a list, a string, a number, nothing, an object missing its fields."""


@pytest.mark.parametrize("lab", list(lab_registry.LABS))
def test_every_hidden_call_fails_a_wrongly_shaped_result_with_a_reason(lab: str) -> None:
    for test in hidden_tests(lab_registry.LABS[lab], seed=3):
        for call in test.calls:
            for value in MISSHAPEN:
                verdict = call_verdict(test, call, {"kind": "returned", "value": value})
                if isinstance(call.expected, Returned) and value != call.expected.value:
                    assert verdict is not None, (test.name, value)


@pytest.mark.slow
def test_a_counterexample_search_over_wrongly_shaped_results_ends_without_raising() -> None:
    tests = hidden_tests(lab_registry.LABS["11.5"], seed=3)
    outcomes = {call.key: {"kind": "returned", "value": [[0]] * 3} for test in tests for call in test.calls}
    found = practice.counterexamples(
        lab_registry.LABS["11.5"], outcomes, lambda request: {"kind": "returned", "value": [[0]] * 3}, 3
    )
    assert found  # the failed tests get their counterexample, as for any other wrong answer
