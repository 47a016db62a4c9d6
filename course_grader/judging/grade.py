"""Grade one learner notebook: run it in a sandbox, then judge what came out, here.

In the sandboxed kernel (``sandbox.py``) the grader runs the lab's own setup
cells (from the course's copy), the submission's ``exercise`` cells, and then
one cell per checklist check and per hidden call. Each of those cells only
reports what the learner's functions did (``harness.py``). Every verdict is
made in this process: checklist records against the grader's own run of each
check (``checklist.runner.judge_record``), hidden outcomes against the
reference (``hidden.py``). The lab's reference is withheld from the sandbox
(``view.py``); calling it scores 0 for the lab's function.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from course_lib import lab_registry
from course_lib.checklist.runner import CheckRecord, judge_record, select

from ..errors import GradingError
from ..intake.cells import setup_sources
from ..intake.identity import claimed_student, submission_name
from ..intake.lab_names import lab_in_name
from ..intake.lab_templates import find_template
from ..intake.notebook import read_submission
from ..intake.roster import Names, attribute
from ..sandbox.kernel import CellRun, Limits, Sandbox
from ..sandbox.view import build_view
from . import diagnose, practice
from .hidden import HiddenTest, call_verdict
from .hidden_cases import hidden_calls, hidden_tests
from .verdicts import GradeResult, Status, TestResult

BORROWED = "NotAvailableWhileGrading"
HARNESS = "__course_grader"


@dataclass(frozen=True)
class GradeOptions:
    limits: Limits = field(default_factory=Limits)
    labs_dir: str | None = None
    expected_lab: str | None = None
    """The lab an autograder is for: used when the notebook names none, refused when it names another."""
    sandbox: bool = True
    """False only where something else isolates the kernel (Gradescope's container) or by ``--no-sandbox``."""
    views: str | None = None
    """A folder holding each lab's package view (built once per batch); a private one when ``None``."""
    seed: int | None = None
    """The hidden cases' seed (``hidden_cases.hidden_tests``); ``None`` is each lab's fixed one."""
    kernel_wrap: Callable[[list[str]], list[str]] | None = None
    """How a kernel without bubblewrap is started (Gradescope: as the learner's account, ``learner_account.py``)."""
    names: Names | None = None
    """How LMS download names and the roster decide who a file belongs to (``roster.attribute``); ``None``: ``identify``."""
    lab_limits: tuple[tuple[str, Limits], ...] = ()
    """Limits of particular labs (the course file's ``[labs."11.3"]``), over ``limits``."""

    def for_lab(self, lab: str) -> GradeOptions:
        """These options with ``lab``'s own limits, once the lab is known."""
        limits = dict(self.lab_limits).get(lab)
        return replace(self, limits=limits) if limits is not None else self


@dataclass
class KernelRun:
    """How every cell ended: setup, exercises, the function check, each checklist check and hidden call."""

    setup: list[CellRun] = field(default_factory=list)
    exercises: list[CellRun] = field(default_factory=list)
    functions: CellRun | None = None
    checks: dict[int, CellRun] = field(default_factory=dict)
    calls: dict[str, CellRun] = field(default_factory=dict)
    counterexamples: dict[str, str] = field(default_factory=dict)
    """A shrunk practice counterexample per failed hidden test (``practice.py``), by test name."""
    seconds: float = 0.0
    expired: bool = False
    sandbox_notes: list[str] = field(default_factory=list)
    """What the sandbox itself reported: its limits if per-process only, a memory limit reached, a refused message."""
    failure: str | None = None
    """Why the sandbox stopped abnormally (its memory limit, a refused message): the status is then ``error``."""


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
    lab = options.expected_lab
    who, source, claims = (student, "--student", ()) if student else attribute(path, root, options.names)
    try:
        submission = read_submission(path, expected_lab=options.expected_lab)
        lab = submission.lab
        options = options.for_lab(lab)
        claimed = None if student else claimed_student(submission.notebook, who)  # --student: the instructor said who
        claims = (*claims, *submission.notes, *([claimed] if claimed else []))
        setup = setup_sources(find_template(lab, options.labs_dir))
        run = _execute(lab, setup, submission.exercise_sources, options)
    except GradingError as exc:  # not a notebook (0 bytes, an HTML page): still the lab its file name names
        result = not_graded(path, who, lab or lab_in_name(path), str(exc), started, options)
    except Exception as exc:  # noqa: BLE001 - e.g. the kernel could not start; one bad file must not stop a batch
        result = not_graded(path, who, lab, f"could not grade: {type(exc).__name__}: {exc}", started, options)
    else:
        result = assemble(path, who, source, lab, run, started, options, notebook=submission.notebook)
    return result.model_copy(
        update={"submission": submission_name(path, root), "student_source": source, "notes": (*claims, *result.notes)}
    )


def not_graded(
    path: Path, student: str, lab: str | None, note: str, started: float, options: GradeOptions = GradeOptions()
) -> GradeResult:
    """A result for a submission the grader could not run: every test of the lab at 0, the reason as a note."""
    tests = tuple(_zero_tests(lab, note, options.seed)) if lab else ()
    return GradeResult(
        submission=path.name,
        student=student,
        lab=lab,
        status="error",
        tests=tests,
        execution_time=time.monotonic() - started,
        budget=options.limits.budget,
        seed=options.seed,
        notes=(note,),
    )


def _zero_tests(lab: str, output: str, seed: int | None) -> Iterable[TestResult]:
    for case in select(lab):
        yield TestResult(name=case.name, number=str(case.number), lab=lab, score=0, output=output)
    for index, test in enumerate(hidden_tests(lab, seed), start=1):
        yield TestResult(name=test.name, number=f"H{index}", lab=lab, score=0, output=output, hidden=True)


@functools.cache
def _private_views() -> str:
    folder = tempfile.mkdtemp(prefix="course-grade-views-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def lab_view(lab: str, views: str | None = None) -> Path:
    """The lab's package view under ``views`` (built on first use)."""
    folder = Path(views or _private_views()) / lab
    view = folder / "course_lib"
    if not view.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        build_view(lab_registry.lab(lab), folder)
    return view


def _execute(lab: str, setup: tuple[str, ...], exercises: tuple[str, ...], options: GradeOptions) -> KernelRun:
    run = KernelRun()
    limits = options.limits
    names = list(lab_registry.lab(lab).functions)
    with tempfile.TemporaryDirectory(prefix="course-grade-") as folder:
        box = Sandbox(
            Path(folder) / "home",
            limits,
            lab_view(lab, options.views),
            isolate=options.sandbox,
            wrap=options.kernel_wrap,
        )
        with box:
            # The course's own setup gets the start-up allowance: a slow import is not the learner's fault.
            run.setup = [box.run(source, timeout=limits.startup_timeout) for source in setup]
            run.setup.append(
                box.run(f"import course_lib.checklist.harness as {HARNESS}", timeout=limits.startup_timeout)
            )
            run.exercises = [box.run(source) for source in exercises]
            run.functions = box.run(f"{HARNESS}.functions(globals(), {names!r})")
            defined = run.functions.reply if isinstance(run.functions.reply, dict) else {}
            if all(defined.get(name) is True for name in names):
                items: list[tuple[dict[Any, CellRun], int | str, str]] = [
                    (run.checks, case.number, f"{HARNESS}.check(globals(), {case.number}, {names!r})")
                    for case in select(lab)
                ]
                items += [
                    (run.calls, call.key, call_source(call.request())) for call in hidden_calls(lab, options.seed)
                ]
                stopped: CellRun | None = None
                for results, key, source in items:
                    results[key] = stopped or box.run(source)
                    stopped = stopped or _stops_the_rest(results[key], limits)
                if stopped is None:
                    add_counterexamples(lab, run, lambda request: _practice_call(box, request), options.seed)
            run.seconds, run.expired = box.elapsed, box.expired
        run.sandbox_notes, run.failure = box.notes, box.failure  # known once the sandbox is gone (its cgroup read)
    return run


def call_source(request: dict[str, Any]) -> str:
    """The kernel cell for one call of the learner's function (hidden or practice)."""
    return f"{HARNESS}.call(globals(), {json.dumps(request)!r})"


def _practice_call(box: Sandbox, request: dict[str, Any]) -> CellRun:
    """A practice call, unless half the submission's time budget is gone: counterexamples must never cost the grade."""
    if box.elapsed > box.limits.budget / 2:
        return CellRun("skipped", "Skipped", "skipped: no time left for practice cases")
    return box.run(call_source(request))


def add_counterexamples(
    lab: str, run: KernelRun, call: Callable[[dict[str, Any]], CellRun], seed: int | None = None
) -> None:
    """Practice counterexamples for the hidden tests ``run`` failed; ``call`` runs one practice call in the kernel."""
    outcomes = {key: _outcome(cell) for key, cell in run.calls.items()}
    run.counterexamples = practice.counterexamples(lab, outcomes, lambda request: _outcome(call(request)), seed)


def _stops_the_rest(cell: CellRun, limits: Limits) -> CellRun | None:
    """After a time-out or the memory limit, the lab's function is not called again.

    One endless loop then costs one time limit, not one per check and per hidden call.
    """
    if cell.status == "timeout":
        return CellRun("skipped", "Skipped", f"skipped: an earlier check ran longer than {limits.cell_timeout:g} s")
    if "MemoryError" in json.dumps(cell.reply, default=repr) or cell.ename == "MemoryError":
        return CellRun("skipped", "Skipped", "skipped: an earlier check hit the memory limit")
    return None


def assemble(
    path: Path,
    student: str,
    source: str,
    lab: str,
    run: KernelRun,
    started: float,
    options: GradeOptions,
    *,
    notebook: NotebookNode | None = None,
) -> GradeResult:
    """Score every test of the lab from what the kernel reported, judged here.

    ``notebook`` is the submission as read: its untagged cells and the
    structure of its exercise cells explain a zero (``diagnose.py``).
    """
    notes: list[str] = []
    for number, cell in enumerate(run.setup, start=1):
        if cell.status != "ok":
            notes.append(
                f"the lab's setup cell {number} failed ({cell.error}); is course_lib installed for the kernel?"
            )
    notes += diagnose.exercise_notes(run.exercises, run.functions, options.limits.cell_timeout)
    if run.expired:
        notes.append(f"the submission's time budget of {options.limits.budget:g} s ran out; its sandbox was stopped")
    notes.extend(run.sandbox_notes)

    blocked = _blocked(lab, run)
    explained_at = len(notes)  # why a name is missing goes first: it is the cause of what the notes after it say
    if blocked:
        notes.append(blocked)
    records = {number: _check(lab, number, cell) for number, cell in run.checks.items()}
    tests: list[TestResult] = []
    for case in select(lab):
        output = blocked or check_output(records.get(case.number))
        tests.append(
            TestResult(name=case.name, number=str(case.number), lab=lab, score=0 if output else 1, output=output or "")
        )
    outcomes = {key: _outcome(cell) for key, cell in run.calls.items()}
    defined = run.functions.reply if run.functions and isinstance(run.functions.reply, dict) else {}
    errors = [
        *(cell.error for cell in run.exercises),
        *(r.message for r in records.values()),
        *(f"{o.get('type')}: {o.get('message')}" for o in outcomes.values() if o.get("type") == "NameError"),
    ]
    unimplemented = any(r.status == "not implemented yet" for r in records.values()) or any(
        o.get("type") == "NotImplementedError" for o in outcomes.values()
    )
    notes[explained_at:explained_at] = diagnose.explain(
        notebook, run.exercises, lab_registry.lab(lab).functions, defined, map(str, errors), unimplemented=unimplemented
    )
    for index, test in enumerate(hidden_tests(lab, options.seed), start=1):
        output = blocked or _hidden_output(test, outcomes, run.counterexamples.get(test.name))
        tests.append(
            TestResult(
                name=test.name,
                number=f"H{index}",
                lab=lab,
                score=0 if output else 1,
                output=output or f"passed on {len(test.calls)} generated cases",
                hidden=True,
            )
        )

    borrowed = [r.message[r.message.index(BORROWED) :] for r in records.values() if BORROWED in r.message] + [
        o.get("message", "") for o in outcomes.values() if o.get("type") == BORROWED
    ]
    if borrowed and not blocked:
        names = " and ".join(lab_registry.lab(lab).functions)
        message = f"0 points: {names} called course_lib's own implementation ({borrowed[0][:160]})"
        notes.append(message)
        tests = [test.model_copy(update={"score": 0, "output": message}) for test in tests]

    return GradeResult(
        submission=path.name,
        student=student,
        student_source=source,
        lab=lab,
        status=_status(run, records),
        tests=tuple(tests),
        execution_time=time.monotonic() - started,
        budget=options.limits.budget,
        seed=options.seed,
        sandbox="bubblewrap" if options.sandbox else "none",
        notes=tuple(notes),
    )


def check_output(record: CheckRecord | None) -> str | None:
    """A check's feedback in the results (``None`` when it passed): the inline checklist's message, as it is."""
    if record is None:
        return "not run"
    if record.passed:
        return None
    if record.status == "not implemented yet":
        return f"not implemented yet: {record.message}"
    return record.message or record.status


def _check(lab: str, number: int, cell: CellRun) -> CheckRecord:
    case = next(c for c in select(lab) if c.number == number)
    if cell.status == "ok" and isinstance(cell.reply, dict):
        return judge_record(case, cell.reply)
    if cell.status == "ok":
        return CheckRecord(case.number, case.lab, case.name, case.rules, "error", "the check sent no record back")
    return CheckRecord(case.number, case.lab, case.name, case.rules, "error", _cell_problem(cell))


def _outcome(cell: CellRun) -> dict[str, Any]:
    if cell.status == "ok" and isinstance(cell.reply, dict) and "kind" in cell.reply:
        return cell.reply
    if cell.status == "ok":
        return {"kind": "skipped", "message": "the call sent no outcome back"}
    return {"kind": "timeout" if cell.status == "timeout" else "skipped", "message": _cell_problem(cell)}


def _cell_problem(cell: CellRun) -> str:
    if cell.status == "error":
        return f"{cell.error} (the grading cell itself failed: was the harness removed?)"
    return cell.evalue or cell.status


def _blocked(lab: str, run: KernelRun) -> str | None:
    """A reason every test of the lab scores 0, if any."""
    cell = run.functions
    if cell is None or cell.status != "ok" or not isinstance(cell.reply, dict):
        return "not graded: the kernel stopped before the checks could run" + (
            f" ({cell.evalue})" if cell is not None and cell.evalue else ""
        )
    for name in lab_registry.lab(lab).functions:
        if cell.reply.get(name) is not True:
            cause = next((c.error for c in run.exercises if c.status != "ok"), None)
            because = f" (an exercise cell failed: {cause})" if cause else ""
            return f"{name} is not defined after running your exercise cells{because}"
    return None


def _hidden_output(
    test: HiddenTest, outcomes: dict[str, dict[str, Any]], counterexample: str | None = None
) -> str | None:
    failures = [(call, reason) for call in test.calls if (reason := call_verdict(test, call, outcomes.get(call.key)))]
    if not failures:
        return None
    if all(reason.startswith("not implemented yet") for _, reason in failures):
        return failures[0][1]
    call, reason = failures[0]
    output = (
        f"{test.rules}: {test.hint}. Failed on {len(failures)} of {len(test.calls)} generated cases; "
        f"first: {call.description}: {reason}"
    )
    return f"{output}\n{counterexample}" if counterexample else output


def _status(run: KernelRun, records: dict[int, CheckRecord]) -> Status:
    """How grading went (results.py): a time limit first, then anything that stopped it, then a missing function."""
    cells = [
        *run.setup,
        *run.exercises,
        *([run.functions] if run.functions else []),
        *run.checks.values(),
        *run.calls.values(),
    ]
    if run.failure:
        return "error"
    if run.expired or any(c.status in ("timeout", "budget") for c in cells):
        return "timeout"
    memory = any(c.ename == "MemoryError" for c in cells) or any("MemoryError" in r.message for r in records.values())
    if memory or any(c.status in ("died", "error") for c in run.setup) or any(c.status == "died" for c in cells):
        return "error"
    reply = run.functions.reply if run.functions else None
    if not isinstance(reply, dict):
        return "error"
    if not all(reply.values()):
        return "error" if any(c.status != "ok" for c in run.exercises) else "missing-function"
    return "ok"
