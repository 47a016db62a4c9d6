"""A graded submission as data: per-test results, a status, and the terminal's table of them.

``status`` says whether grading went normally, not how well the learner did:
``ok`` (every lab function was found and called), ``timeout`` (a cell or a
check hit the time limit), ``error`` (the notebook could not be read, the
kernel died, a memory limit was hit, or a cell error left a function
undefined), ``missing-function`` (the cells ran, but a lab function is not
defined).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import lab_registry
from course_lib.teaching.lab_registry import Lab

from .secret import Seed

Status = Literal["ok", "timeout", "error", "missing-function"]
STATUSES: tuple[Status, ...] = ("ok", "timeout", "error", "missing-function")


class TestResult(BaseModel):
    """One test: a checklist case (visible) or a hidden case (shown after grades are published)."""

    model_config = ConfigDict(frozen=True)
    __test__ = False  # not a pytest class

    name: str
    number: str
    lab: str
    score: float
    max_score: float = 1.0
    output: str = ""
    hidden: bool = False

    @property
    def passed(self) -> bool:
        return self.score >= self.max_score


def result_lab(result: GradeResult | TestResult) -> Lab | None:
    """The registry's entry for a row's lab: a row keeps the id (the CSV, the records), the pipeline passes the ``Lab``."""
    return lab_registry.lab(result.lab) if result.lab is not None else None


class GradeResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    submission: str
    """The file: its path under the submissions folder in a batch (``alice/lab.ipynb``), else its name."""
    student: str
    student_source: str = ""
    """How ``student`` was decided: --student, notebook metadata, folder, file name."""
    lab: str | None
    status: Status
    tests: tuple[TestResult, ...] = ()
    execution_time: float = 0.0
    budget: float = 0.0
    """The hard wall-clock budget the submission had, in seconds."""
    sandbox: str = ""
    """``bubblewrap``; ``learner account`` (Gradescope mode: an unused uid, ``bundle.py``); ``none`` without a sandbox."""
    seed: Seed = None
    """The secret the hidden cases were drawn from (``--seed`` reproduces the run; never on a learner's page);
    ``None``: each lab's fixed seed. An older grader's records hold a number."""
    notes: tuple[str, ...] = ()
    counts: bool = True
    """False for a duplicate that does not count: another file of the same student and lab does (see notes)."""
    submitted: str = ""
    """When the file was submitted (UTC, ISO 8601): the course's times file, else the file's modification time (a batch)."""
    submitted_from: str = ""
    """Which ``submitted`` is: a times file's form (``manifest``, ``moodle-worksheet``, ``canvas-submissions``) or
    ``modified``; empty outside a batch."""
    handed_in: str = ""
    """The lab of the assignment the file was handed in to, where its folder or its lab's LMS times file says (a
    batch); empty when nothing says. Another lab's than ``lab``: handed in to the wrong assignment."""

    @property
    def score(self) -> float:
        return sum(test.score for test in self.tests)

    @property
    def max_score(self) -> float:
        return sum(test.max_score for test in self.tests)

    @property
    def percent(self) -> float:
        return round(100 * self.score / self.max_score, 1) if self.max_score else 0.0


def format_table(result: GradeResult) -> str:
    """The terminal view of one graded notebook."""
    lab = f"Lab {result.lab}" if result.lab else "no lab"
    who = f"student {result.student}" + (f" (from the {result.student_source})" if result.student_source else "")
    lines = [f"{result.submission} · {lab} · {who} · status {result.status}"]
    width = max((len(_label(test)) for test in result.tests), default=10)
    for test in result.tests:
        mark = "✅" if test.passed else "❌"
        lines.append(f"{test.number:>4}  {_label(test):<{width}}  {test.score:g}/{test.max_score:g} {mark}")
        if test.output and not test.passed:
            first, *rest = test.output.splitlines()
            lines.append(f"{'':>4}  ↳ {first}")
            lines.extend(f"{'':>4}    {line}" for line in rest)  # a counterexample, under its test
    lines.extend(f"note: {note}" for note in result.notes)
    budget = f" of a {result.budget:g} s budget" if result.budget else ""
    sandbox = f", sandbox: {result.sandbox}" if result.sandbox else ""
    lines.append(
        f"total {result.score:g}/{result.max_score:g} ({result.percent:g} %) in {result.execution_time:.1f} s{budget}{sandbox}"
    )
    return "\n".join(lines)


def _label(test: TestResult) -> str:
    return f"hidden · {test.name}" if test.hidden else test.name
