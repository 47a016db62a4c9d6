"""nbgrader's test cell for one check: silent when the check passes, one line on stderr (nbgrader's 0) when not.

``tests/grader/packaging/test_nbgrader_interop.py`` runs the cells under real ``nbgrader
autograde``; here the helper itself: the same verdict as the checklist for every check
of a mutant's lab, the learner's own prints held back, and a cell that names an unknown
check or leaves out a function its lab grades (the reference would stand in) refused.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import corpus_verdicts as verdicts
import pytest
from mutants import MUTANTS
from mutants.run import lab_functions

from course_lib import checklist
from course_lib.checklist import UnknownCheckError
from course_lib.checklist.check import UnknownFunctionError
from course_lib.checklist.grade_cell import failure_line
from course_lib.context import build_context as reference_build


def _not_yet(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("Lab 11.3 not implemented yet: build_context")


def test_a_passing_check_says_nothing_and_returns_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """No output at all: nbgrader gives full marks, and a returned value would be read as partial credit."""
    grade: Callable[..., object] = checklist.grade_cell  # typed None; the test is that it stays so
    assert grade(7, build_context=reference_build) is None
    assert capsys.readouterr() == ("", "")


def test_a_failing_check_says_why_on_stderr_only(capsys: pytest.CaptureFixture[str]) -> None:
    checklist.grade_cell(7, build_context=_not_yet)
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("check 7 · fixed_costs_come_first: ⏳ Lab 11.3 not implemented yet: build_context\n")


def test_what_the_learners_function_prints_is_held_back(capsys: pytest.CaptureFixture[str]) -> None:
    """A print or a warning on stderr would cost the point under nbgrader, and nothing under course-grade."""

    def chatty(*args: Any, **kwargs: Any) -> Any:
        print("debugging")
        print("a warning of my own", file=sys.stderr)
        return reference_build(*args, **kwargs)

    checklist.grade_cell(8, build_context=chatty)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("number", "functions", "error", "message"),
    [
        (99, {"build_context": _not_yet}, UnknownCheckError, "there is no check 99"),
        (7, {}, UnknownCheckError, r"check 7 \(Lab 11.3\) grades \['build_context'\]"),
        (16, {"should_compact": _not_yet}, UnknownCheckError, r"\['find_cut_point', 'retry_after_overflow'\]"),
        (7, {"build_contxt": _not_yet}, UnknownFunctionError, "unknown lab function"),
    ],
    ids=["unknown-check", "no-function", "capstone-partly", "typo"],
)
def test_a_cell_that_cannot_judge_its_check_is_refused(
    number: int, functions: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        checklist.grade_cell(number, **functions)


@pytest.mark.slow  # every mutant's lab checks twice: make test, not make check
@pytest.mark.parametrize("mutant", MUTANTS[::9], ids=lambda m: m.name)
def test_the_test_cells_fail_exactly_the_checks_the_checklist_fails(
    mutant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """One verdict per check: what the checklist cell shows is what nbgrader scores, message included."""
    report = verdicts.inline(mutant)
    functions = lab_functions(mutant)
    capsys.readouterr()
    for record in report.records:
        checklist.grade_cell(record.number, **functions)
        assert capsys.readouterr().err == ("" if record.passed else failure_line(record) + "\n"), record.name
