"""Assemble one notebook's ``GradeResult`` from what its kernel run reported; every verdict is made here.

The kernel only reported what the learner's functions did (``kernel_run.py``).
Here, in the grader's process, checklist records are judged against the
grader's own run of each check (``checklist.runner.judge_record``), hidden
outcomes against the reference (``hidden.py``), and the notes say why a test
scored 0 (``diagnose.py``). The lab's reference is withheld from the sandbox
(``view.py``); calling it scores 0 for the lab's function.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from nbformat import NotebookNode

from course_lib.checklist.runner import CheckRecord, select
from course_lib.teaching import i18n
from course_lib.teaching.i18n import MESSAGES as COURSE_MESSAGES
from course_lib.teaching.i18n import message
from course_lib.teaching.lab_registry import Lab

from ..messages import MESSAGES
from ..sandbox.limits import Limits
from . import diagnose
from .cell_replies import call_outcome, check_record
from .grade_options import GradeOptions
from .hidden import HiddenTest, call_verdict, described
from .hidden_cases import hidden_tests
from .judging_settings import JudgingSettings
from .kernel_run import KernelRun
from .verdicts import GradeResult, Status, TestResult

BORROWED = "NotAvailableWhileGrading"
FAILED_ON = message("{rules}: {hint}. Failed on {failed} of {total} generated cases")
"""What a failed hidden test says first: its rules, its hint, how many of its cases failed."""
FIRST_CASE = message("; first: {case}: {reason}")
"""Then the first case it failed and why (``report_messages.without_case`` leaves the case out again)."""


def assemble(
    path: Path,
    student: str,
    source: str,
    lab: Lab,
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
    language = options.judging.language
    blocked = _blocked(lab, run, language)
    records = {number: check_record(lab, number, cell, language) for number, cell in run.checks.items()}
    outcomes = {key: call_outcome(cell, language) for key, cell in run.calls.items()}
    tests = [
        *_checklist_results(lab, records, blocked, language),
        *_hidden_results(lab, outcomes, run.counterexamples, blocked, options.judging),
    ]
    # Why a name is missing goes before ``blocked``: it is the cause of what the notes after it say.
    notes = [
        *_run_notes(run, options.sandbox.limits, language),
        *_explanations(lab, run, records, outcomes, notebook, language),
        *([blocked] if blocked else []),
    ]
    borrowed = None if blocked else _borrowed(lab, records, outcomes, language)
    if borrowed:
        notes.append(borrowed)
        tests = [test.model_copy(update={"score": 0, "output": borrowed}) for test in tests]
    return GradeResult(
        submission=path.name,
        student=student,
        student_source=source,
        lab=lab.id,
        status=_status(run, records),
        tests=tuple(tests),
        execution_time=time.monotonic() - started,
        budget=options.sandbox.limits.budget,
        seed=options.judging.seed,
        sandbox="bubblewrap" if options.sandbox.isolate else "none",
        notes=tuple(notes),
    )


def _run_notes(run: KernelRun, limits: Limits, language: str) -> list[str]:
    """What went wrong while the cells ran: a failed setup cell, the exercise cells, the budget, the sandbox."""
    setup = MESSAGES(
        "the lab's setup cell {number} failed ({error}); is course_lib installed for the kernel?", language
    )
    notes = [
        setup.format(number=number, error=cell.error)
        for number, cell in enumerate(run.setup, start=1)
        if cell.status != "ok"
    ]
    notes += diagnose.exercise_notes(run.exercises, run.functions, limits.cell_timeout, language)
    if run.expired:
        said = MESSAGES("the submission's time budget of {seconds} s ran out; its sandbox was stopped", language)
        notes.append(said.format(seconds=f"{limits.budget:g}"))
    notes.extend(run.sandbox_notes)
    return notes


def _checklist_results(
    lab: Lab, records: dict[int, CheckRecord], blocked: str | None, language: str
) -> list[TestResult]:
    """One test per checklist check of the lab, scored from its record (or 0, ``blocked``)."""
    tests = []
    for case in select(lab.id):
        output = blocked or check_output(records.get(case.number), language)
        tests.append(
            TestResult(
                name=case.name, number=str(case.number), lab=lab.id, score=0 if output else 1, output=output or ""
            )
        )
    return tests


def _hidden_results(
    lab: Lab,
    outcomes: dict[str, dict[str, Any]],
    counterexamples: dict[str, str],
    blocked: str | None,
    judging: JudgingSettings,
) -> list[TestResult]:
    """One test per hidden test of the lab, scored from its calls' outcomes (or 0, ``blocked``)."""
    tests = []
    passed = MESSAGES("passed on {count} generated cases", judging.language)
    for index, test in enumerate(hidden_tests(lab, judging.seed), start=1):
        output = blocked or _hidden_output(test, outcomes, counterexamples.get(test.name), judging.language)
        tests.append(
            TestResult(
                name=test.name,
                number=f"H{index}",
                lab=lab.id,
                score=0 if output else 1,
                output=output or passed.format(count=len(test.calls)),
                hidden=True,
            )
        )
    return tests


def _explanations(
    lab: Lab,
    run: KernelRun,
    records: dict[int, CheckRecord],
    outcomes: dict[str, dict[str, Any]],
    notebook: NotebookNode | None,
    language: str,
) -> list[str]:
    """Why the lab's functions are missing or unfinished, in the learner's words (``diagnose.explain``)."""
    defined = run.functions.reply if run.functions and isinstance(run.functions.reply, dict) else {}
    errors = [
        *(cell.error for cell in run.exercises),
        *(r.message for r in records.values()),
        *(f"{o.get('type')}: {o.get('message')}" for o in outcomes.values() if o.get("type") == "NameError"),
    ]
    unimplemented = any(r.status == "not implemented yet" for r in records.values()) or any(
        o.get("type") == "NotImplementedError" for o in outcomes.values()
    )
    return diagnose.explain(
        notebook,
        run.exercises,
        lab.functions,
        defined,
        map(str, errors),
        unimplemented=unimplemented,
        language=language,
    )


def _borrowed(
    lab: Lab, records: dict[int, CheckRecord], outcomes: dict[str, dict[str, Any]], language: str
) -> str | None:
    """The note (and every test's output) when the lab's functions called the withheld reference: 0 points."""
    borrowed = [r.message[r.message.index(BORROWED) :] for r in records.values() if BORROWED in r.message] + [
        o.get("message", "") for o in outcomes.values() if o.get("type") == BORROWED
    ]
    if not borrowed:
        return None
    names = MESSAGES(" and ", language).join(lab.functions)
    said = MESSAGES("0 points: {names} called course_lib's own implementation ({detail})", language)
    return said.format(names=names, detail=borrowed[0][:160])


def check_output(record: CheckRecord | None, language: str = i18n.DEFAULT) -> str | None:
    """A check's feedback in the results (``None`` when it passed): the inline checklist's message, as it is."""
    if record is None:
        return MESSAGES("not run", language)
    if record.passed:
        return None
    if record.status == "not implemented yet":
        if COURSE_MESSAGES("not implemented yet", language) in record.message:  # the lab's stub says so: once is enough
            return record.message
        return MESSAGES("not implemented yet: {message}", language).format(message=record.message)
    return record.message or record.status


def _blocked(lab: Lab, run: KernelRun, language: str) -> str | None:
    """A reason every test of the lab scores 0, if any."""
    cell = run.functions
    if cell is None or cell.status != "ok" or not isinstance(cell.reply, dict):
        if cell is not None and cell.evalue:
            said = MESSAGES("not graded: the kernel stopped before the checks could run ({why})", language)
            return said.format(why=cell.evalue)
        return MESSAGES("not graded: the kernel stopped before the checks could run", language)
    for name in lab.functions:
        if cell.reply.get(name) is not True:
            cause = next((c.error for c in run.exercises if c.status != "ok"), None)
            if cause:
                said = MESSAGES(
                    "{name} is not defined after running your exercise cells (an exercise cell failed: {cause})",
                    language,
                )
                return said.format(name=name, cause=cause)
            return MESSAGES("{name} is not defined after running your exercise cells", language).format(name=name)
    return None


def _hidden_output(
    test: HiddenTest,
    outcomes: dict[str, dict[str, Any]],
    counterexample: str | None = None,
    language: str = i18n.DEFAULT,
) -> str | None:
    failures = [
        (call, reason) for call in test.calls if (reason := call_verdict(test, call, outcomes.get(call.key), language))
    ]
    if not failures:
        return None
    if all(outcomes.get(call.key, {}).get("kind") == "not-implemented" for call, _ in failures):
        return failures[0][1]  # a stub: what it said, once, not a count of cases
    call, reason = failures[0]
    output = MESSAGES(FAILED_ON, language).format(
        rules=test.rules, hint=MESSAGES(test.hint, language), failed=len(failures), total=len(test.calls)
    ) + MESSAGES(FIRST_CASE, language).format(case=described(call.description, language), reason=reason)
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
