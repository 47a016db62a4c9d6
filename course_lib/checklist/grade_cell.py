"""One check as an nbgrader autograder test cell: silent when it passes, one line on stderr when not (issue 29).

Each lab notebook carries one nbgrader test cell per check of its lab, after its
checklist cell (``scripts/make_learner_labs.py`` writes them), so ``nbgrader
autograde`` scores a submission one point per check, as ``course-grade`` scores
the checklist's tests. Why it reports on stderr and never raises: nbgrader scores
a test cell 0 when its outputs hold an error *or any text on stderr*, and full
marks otherwise (``nbgrader.utils.determine_grade``, in the 0.9 the course pins),
so a line on stderr costs the point exactly as an ``AssertionError`` would, while
a learner's notebook still runs top to bottom without a traceback (its stubs only
make the checklist say "not implemented yet"). Nothing is returned: a value would
become the cell's output, which nbgrader reads as partial credit.

The check runs as the checklist cell runs it (``runner.run_case``: recorded, then
judged against the reference's record of the same check), which is the verdict
``course-grade`` gives the same functions. What the learner's functions print
while it runs is held back: on stderr it would cost the point under nbgrader and
nothing under ``course-grade``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable
from typing import Any

from ..errors import CourseError
from ..teaching import lab_registry
from ..teaching.i18n import MESSAGES
from .cases import CASES
from .check import Case, Implementation
from .runner import MARKS, CheckRecord, run_case


class UnknownCheckError(CourseError, LookupError):
    """A test cell names a check the checklist does not have, or leaves out a function its lab grades."""


def grade_cell(number: int, **functions: Callable[..., Any]) -> None:
    """Run check ``number`` against ``functions``; say why on stderr when it does not pass (nbgrader's 0).

    ``functions`` must hold every function the check's lab grades: one left out
    would be the course's reference, and the check would pass on it.
    """
    case = _case(number, functions)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        record = run_case(case, Implementation(**functions))
    if not record.passed:
        print(failure_line(record), file=sys.stderr)


def _case(number: int, functions: dict[str, Callable[..., Any]]) -> Case:
    Implementation(**functions)  # a name no lab grades is refused first (UnknownFunctionError)
    case = next((c for c in CASES if c.number == number), None)
    if case is None:
        raise UnknownCheckError(f"there is no check {number}; the checks are {[c.number for c in CASES]}")
    missing = [name for name in lab_registry.lab(case.lab).functions if name not in functions]
    if missing:
        raise UnknownCheckError(
            f"check {number} ({lab_registry.lab(case.lab).label}) grades {missing}, which the cell does not pass: "
            "the course's reference would stand in for them"
        )
    return case


def failure_line(record: CheckRecord) -> str:
    """``check 7 · fixed_costs_come_first: ❌ failed: R16: …``, in the reader's language (words the checklist uses)."""
    mark, word = MARKS[record.status]
    stub = record.status == "not implemented yet" and record.message  # the stub's line says "not implemented yet"
    status = f"{mark} {record.message}" if stub else f"{mark} {MESSAGES(word)}"
    line = MESSAGES("check {number} · {name}: {status}").format(number=record.number, name=record.name, status=status)
    return MESSAGES("{line}: {why}").format(line=line, why=record.message) if record.message and not stub else line
