"""Grade one learner notebook end to end: who it belongs to, run it in a sandbox, judge what came out.

Reading the submission and the lab's setup is ``intake``'s; running its cells
in the sandboxed kernel is ``kernel_run.py``'s, and every verdict on what they
reported is made in this process by ``assemble.py``. Here those steps are put
in order, and anything the submission does to them (not a notebook, a kernel
that would not start) becomes a result of 0 points with the reason, never an
exception: one bad file must not stop a batch.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from course_lib.checklist.runner import select
from course_lib.teaching.lab_registry import Lab

from ..errors import GradingError, SandboxError
from ..intake.cells import setup_sources
from ..intake.identity import claimed_student, submission_name
from ..intake.lab_names import named_lab
from ..intake.lab_templates import find_template
from ..intake.notebook import read_submission
from ..intake.roster import attribute
from .assemble import assemble
from .draws import Seed
from .grade_options import GradeOptions
from .hidden_cases import hidden_tests
from .kernel_run import run_notebook
from .verdicts import GradeResult, TestResult

COULD_NOT_GRADE = "could not grade: "
"""How the note starts when the grader or its sandbox failed, not the submission (a kernel that would not start, no
free uid): a batch grades such a row once more alone (``batch.py``)."""


def grade_notebook(
    path: str | Path,
    options: GradeOptions = GradeOptions(),
    *,
    student: str | None = None,
    root: str | Path | None = None,
) -> GradeResult:
    """Grade one submission; never raises for anything the submission does.

    ``root`` is the batch's submissions folder: who the file belongs to comes
    from it (``notebook.identify``), and ``submission`` is the path under it.
    """
    started = time.monotonic()
    path = Path(path)
    lab = options.identity.expected_lab
    who, source, claims = (student, "--student", ()) if student else attribute(path, root, options.identity.names)
    options = options.for_student(who)
    try:
        submission = read_submission(path, expected_lab=options.identity.expected_lab)
        lab = submission.lab
        options = options.for_lab(lab)
        claimed = None if student else claimed_student(submission.notebook, who)  # --student: the instructor said who
        claims = (*claims, *submission.notes, *([claimed] if claimed else []))
        setup = setup_sources(find_template(lab, options.identity.labs_dir))
        run = run_notebook(lab, setup, submission.exercise_sources, options)
    except SandboxError as exc:  # the sandbox, not the submission: no free uid, no relay (a batch grades it again)
        result = not_graded(path, who, lab, f"{COULD_NOT_GRADE}{exc}", started, options)
    except GradingError as exc:  # not a notebook (0 bytes, an HTML page): still the lab its file name names
        result = not_graded(path, who, lab or named_lab(path), str(exc), started, options)
    except Exception as exc:  # noqa: BLE001 - e.g. the kernel could not start; one bad file must not stop a batch
        result = not_graded(path, who, lab, f"{COULD_NOT_GRADE}{type(exc).__name__}: {exc}", started, options)
    else:
        result = assemble(path, who, source, lab, run, started, options, notebook=submission.notebook)
    return result.model_copy(
        update={"submission": submission_name(path, root), "student_source": source, "notes": (*claims, *result.notes)}
    )


def not_graded(
    path: Path, student: str, lab: Lab | None, note: str, started: float, options: GradeOptions = GradeOptions()
) -> GradeResult:
    """A result for a submission the grader could not run: every test of the lab at 0, the reason as a note."""
    tests = tuple(_zero_tests(lab, note, options.judging.seed)) if lab else ()
    return GradeResult(
        submission=path.name,
        student=student,
        lab=lab.id if lab else None,
        status="error",
        tests=tests,
        execution_time=time.monotonic() - started,
        budget=options.sandbox.limits.budget,
        seed=options.judging.seed,
        notes=(note,),
    )


def _zero_tests(lab: Lab, output: str, seed: Seed) -> Iterable[TestResult]:
    for case in select(lab.id):
        yield TestResult(name=case.name, number=str(case.number), lab=lab.id, score=0, output=output)
    for index, test in enumerate(hidden_tests(lab, seed), start=1):
        yield TestResult(name=test.name, number=f"H{index}", lab=lab.id, score=0, output=output, hidden=True)
