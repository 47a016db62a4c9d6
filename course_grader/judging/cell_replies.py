"""What a grading cell's reply says: a checklist check's record, a hidden or practice call's outcome.

A cell that ended badly (a time-out, a died kernel, a removed harness) or sent
nothing back still becomes a record or an outcome, its reason as the message,
so judging never meets a missing reply. Running the kernel (``kernel_run.py``,
for the practice counterexamples) and assembling the result (``assemble.py``)
both read replies this one way.
"""

from __future__ import annotations

from typing import Any

from course_lib.checklist.runner import CheckRecord, judge_record, select
from course_lib.teaching import i18n
from course_lib.teaching.lab_registry import Lab
from course_lib.teaching.wording import UNKNOWN

from ..messages import MESSAGES
from ..sandbox.cell_run import CellRun


def check_record(lab: Lab, number: int, cell: CellRun, language: str = i18n.DEFAULT) -> CheckRecord:
    """Check ``number``'s record: the check's reply judged against the grader's own run of it (``judge_record``).

    Its message is said in ``language``, the run's (the checklist's verdicts are ``course_lib``'s own messages).
    """
    case = next(c for c in select(lab.id) if c.number == number)
    if cell.status == "ok" and isinstance(cell.reply, dict):
        return judge_record(case, cell.reply, language)
    problem = (
        MESSAGES("the check sent no record back", language) if cell.status == "ok" else _cell_problem(cell, language)
    )
    return CheckRecord(case.number, case.lab, case.name, case.rules, "error", problem)


HARNESS_KINDS = ("returned", "raised", "not-implemented", "bad-return")
"""What a kernel's harness may say a call did (``harness.call``); ``skipped`` and ``timeout`` are the grader's own,
whose message a verdict shows as it is, so a kernel's reply claiming one is not taken (issue 43)."""


def call_outcome(cell: CellRun, language: str = i18n.DEFAULT) -> dict[str, Any]:
    """What one call of the learner's function did, as ``hidden.call_verdict`` reads it."""
    if cell.status == "ok" and isinstance(cell.reply, dict) and cell.reply.get("kind") in HARNESS_KINDS:
        return cell.reply
    if cell.status == "ok" and isinstance(cell.reply, dict) and "kind" in cell.reply:
        return {"kind": "skipped", "message": i18n.MESSAGES(UNKNOWN, language)}
    if cell.status == "ok":
        return {"kind": "skipped", "message": MESSAGES("the call sent no outcome back", language)}
    return {"kind": "timeout" if cell.status == "timeout" else "skipped", "message": _cell_problem(cell, language)}


def _cell_problem(cell: CellRun, language: str) -> str:
    if cell.status == "error":
        said = MESSAGES("{error} (the grading cell itself failed: was the harness removed?)", language)
        return said.format(error=cell.error)
    return cell.evalue or cell.status
