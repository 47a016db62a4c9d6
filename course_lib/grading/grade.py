"""Grade one learner notebook: run its exercise cells in a sandbox, then the lab's checks and hidden cases.

The order in the fresh kernel is: the lab's own setup cells (from the course's
copy), the submission's ``exercise`` cells, then one grading cell that calls
``harness.serve``. Checklist results come back from the kernel as they are;
hidden calls come back as raw outcomes and are judged here against the
reference (``hidden.py``, cases from ``hidden_cases.py``).
"""

from __future__ import annotations

import json
import tempfile
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..checklist.runner import select
from .errors import GradingError
from .hidden import HiddenTest, call_verdict
from .hidden_cases import hidden_calls, hidden_tests
from .notebook import LAB_FUNCTIONS, find_template, read_submission, setup_sources, student_id
from .results import GradeResult, Status, TestResult
from .sandbox import CellRun, Limits, Sandbox


@dataclass(frozen=True)
class GradeOptions:
    limits: Limits = field(default_factory=Limits)
    labs_dir: str | None = None
    expected_lab: str | None = None
    """The lab an autograder is for: used when the notebook names none, refused when it names another."""


@dataclass
class KernelRun:
    """What happened in the kernel: how each cell ended, and the harness's events."""

    setup: list[CellRun] = field(default_factory=list)
    exercises: list[CellRun] = field(default_factory=list)
    grader: CellRun | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


def grade_notebook(path: str | Path, options: GradeOptions = GradeOptions(), *, student: str | None = None) -> GradeResult:
    """Grade one submission; never raises for anything the submission does."""
    started = time.monotonic()
    path = Path(path)
    who = student or student_id(path)
    lab = options.expected_lab
    try:
        submission = read_submission(path, expected_lab=options.expected_lab)
        lab = submission.lab
        setup = setup_sources(find_template(lab, options.labs_dir))
        run = _execute(lab, setup, submission.exercise_sources, options.limits)
    except GradingError as exc:
        return not_graded(path, who, lab, str(exc), started)
    except Exception as exc:  # noqa: BLE001 - e.g. the kernel could not start; one bad file must not stop a batch
        return not_graded(path, who, lab, f"could not grade: {type(exc).__name__}: {exc}", started)
    return assemble(path, who, lab, run, started)


def not_graded(path: Path, student: str, lab: str | None, note: str, started: float) -> GradeResult:
    """A result for a submission the grader could not run: every test of the lab at 0, the reason as a note."""
    tests = tuple(_zero_tests(lab, note)) if lab else ()
    return GradeResult(submission=path.name, student=student, lab=lab, status="error", tests=tests,
                       execution_time=time.monotonic() - started, notes=(note,))


def _zero_tests(lab: str, output: str) -> Iterable[TestResult]:
    for case in select(lab):
        yield TestResult(name=case.name, number=str(case.number), lab=lab, score=0, output=output)
    for index, test in enumerate(hidden_tests(lab), start=1):
        yield TestResult(name=test.name, number=f"H{index}", lab=lab, score=0, output=output, hidden=True)


def grading_request(lab: str, limits: Limits) -> dict[str, Any]:
    """What the kernel is asked to run: inputs only, never an expected value."""
    return {
        "lab": lab,
        "functions": list(LAB_FUNCTIONS[lab]),
        "time_limit": limits.cell_timeout,
        "checks": [case.number for case in select(lab)],
        "calls": [call.request() for call in hidden_calls(lab)],
    }


def _execute(lab: str, setup: tuple[str, ...], exercises: tuple[str, ...], limits: Limits) -> KernelRun:
    run = KernelRun()
    request = grading_request(lab, limits)
    items = len(request["checks"]) + len(request["calls"])
    with tempfile.TemporaryDirectory(prefix="course-grade-") as folder:
        kernel_dir = Path(folder) / "work"
        private = Path(folder) / uuid.uuid4().hex  # not the kernel's working directory
        kernel_dir.mkdir()
        private.mkdir()
        with Sandbox(kernel_dir, limits) as box:
            # The course's own setup gets the start-up allowance: a slow import is not the learner's fault.
            run.setup = [box.run(source, timeout=limits.startup_timeout) for source in setup]
            run.exercises = [box.run(source) for source in exercises]
            request_path, response_path = private / "request.json", private / "response.jsonl"
            request_path.write_text(json.dumps(request), encoding="utf-8")
            response_path.write_text("", encoding="utf-8")  # anything written here before is gone
            cell = (
                "import course_lib.grading.harness as _course_grader\n"
                f"_course_grader.serve(globals(), {str(request_path)!r}, {str(response_path)!r})\n"
                "del _course_grader"
            )
            run.grader = box.run(cell, timeout=limits.cell_timeout * (items + 2) + 10)
        run.events = read_events(response_path)
    return run


def read_events(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by a dying kernel
    return events


def assemble(path: Path, student: str, lab: str, run: KernelRun, started: float) -> GradeResult:
    """Score every test of the lab from what happened in the kernel."""
    notes: list[str] = []
    for number, cell in enumerate(run.setup, start=1):
        if cell.status != "ok":
            notes.append(f"the lab's setup cell {number} failed ({cell.error}); is course_lib installed in the kernel?")
    for number, cell in enumerate(run.exercises, start=1):
        if cell.status != "ok":
            notes.append(f"exercise cell {number}: {cell.error}")
    if run.grader is not None and run.grader.status not in ("ok", "skipped"):
        notes.append(f"the grading cell stopped: {run.grader.error}")

    checks = {e["key"]: e for e in run.events if e.get("event") == "check"}
    calls = {e["key"]: e for e in run.events if e.get("event") == "call"}
    started_keys = [e["key"] for e in run.events if e.get("event") == "start"]
    in_progress = next((key for key in reversed(started_keys) if key not in checks and key not in calls), None)
    functions = next((e["functions"] for e in run.events if e.get("event") == "functions"), None)

    blocked = _blocked(lab, functions, run)  # a reason every test of the lab scores 0, if any
    if blocked:
        notes.append(blocked)
    tests: list[TestResult] = []
    for case in select(lab):
        key = f"check-{case.number}"
        output = blocked or _check_output(checks.get(key), key == in_progress)
        tests.append(TestResult(name=case.name, number=str(case.number), lab=lab,
                                score=0 if output else 1, output=output or ""))
    for index, test in enumerate(hidden_tests(lab), start=1):
        output = blocked or _hidden_output(test, calls, in_progress)
        tests.append(TestResult(name=test.name, number=f"H{index}", lab=lab, score=0 if output else 1,
                                output=output or f"passed on {len(test.calls)} generated cases", hidden=True))

    reference = [e for e in [*checks.values(), *calls.values()] if e.get("reference")]
    if reference and not blocked:
        names = " and ".join(LAB_FUNCTIONS[lab])
        message = f"0 points: {names} ran course_lib's own implementation; write your own"
        notes.append(message)
        tests = [test.model_copy(update={"score": 0, "output": message}) for test in tests]

    status = _status(run, functions, [*checks.values(), *calls.values()], in_progress)
    return GradeResult(submission=path.name, student=student, lab=lab, status=status, tests=tuple(tests),
                       execution_time=time.monotonic() - started, notes=tuple(notes))


def _blocked(lab: str, functions: dict[str, Any] | None, run: KernelRun) -> str | None:
    if functions is None:
        if run.grader is not None and run.grader.status == "timeout":
            return "the grading cell ran out of time before it could start"
        return "not graded: the kernel stopped before the checks could run"
    for name in LAB_FUNCTIONS[lab]:
        report = functions.get(name, {})
        if report.get("reference"):
            return f"0 points: {report['reference']}; write your own"
        if not report.get("defined"):
            cause = next((cell.error for cell in run.exercises if cell.status != "ok"), None)
            because = f" (an exercise cell failed: {cause})" if cause else ""
            return f"{name} is not defined after running your exercise cells{because}"
    return None


def _check_output(event: dict[str, Any] | None, was_running: bool) -> str | None:
    if event is None:
        if was_running:
            return "the kernel stopped while this check ran (os._exit, a crash, or a limit)"
        return "not run: the kernel stopped before this check"
    if event.get("reference"):
        return "ran course_lib's own implementation"
    status, message = event["status"], event.get("message", "")
    if status == "passed":
        return None
    if status == "not implemented yet":
        return f"not implemented yet: {message}"
    return message or status


def _hidden_output(test: HiddenTest, calls: dict[str, dict[str, Any]], in_progress: str | None) -> str | None:
    failures = []
    for call in test.calls:
        event = calls.get(call.key)
        if event is None and call.key == in_progress:
            reason = "the kernel stopped during this call (os._exit, a crash, or a limit)"
        else:
            reason = call_verdict(test, call, event)
        if reason:
            failures.append((call, reason))
    if not failures:
        return None
    if all(reason.startswith("not implemented yet") for _, reason in failures):
        return failures[0][1]
    call, reason = failures[0]
    return (f"{test.rules}: {test.hint}. Failed on {len(failures)} of {len(test.calls)} generated cases; "
            f"first: {call.description}: {reason}")


def _status(run: KernelRun, functions: dict[str, Any] | None, events: list[dict[str, Any]], in_progress: str | None) -> Status:
    """How grading went (results.py): a time limit first, then anything that stopped it, then a missing function."""
    course_cells = [*run.setup, *([run.grader] if run.grader else [])]
    cells = [*course_cells, *run.exercises]
    outcomes = [e.get("outcome", {}) for e in events]
    if (
        any(c.status == "timeout" for c in cells)
        or any(e.get("status") == "timeout" for e in events)
        or any(o.get("kind") == "timeout" for o in outcomes)
    ):
        return "timeout"
    memory = any(c.ename == "MemoryError" for c in cells) or any(
        o.get("type") == "MemoryError" or "MemoryError" in str(e.get("message", "")) for e, o in zip(events, outcomes)
    )
    stopped = any(c.status in ("died", "error") for c in course_cells) or any(c.status == "died" for c in run.exercises)
    if memory or stopped or functions is None or in_progress is not None:
        return "error"
    if any(not report.get("defined") for report in functions.values()):
        return "error" if any(c.status != "ok" for c in run.exercises) else "missing-function"
    return "ok"
