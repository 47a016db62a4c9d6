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
from course_lib.lab_registry import Lab

from ..sandbox.cell_run import CellRun


def check_record(lab: Lab, number: int, cell: CellRun) -> CheckRecord:
    """Check ``number``'s record: the check's reply judged against the grader's own run of it (``judge_record``)."""
    case = next(c for c in select(lab.id) if c.number == number)
    if cell.status == "ok" and isinstance(cell.reply, dict):
        return judge_record(case, cell.reply)
    if cell.status == "ok":
        return CheckRecord(case.number, case.lab, case.name, case.rules, "error", "the check sent no record back")
    return CheckRecord(case.number, case.lab, case.name, case.rules, "error", _cell_problem(cell))


def call_outcome(cell: CellRun) -> dict[str, Any]:
    """What one call of the learner's function did, as ``hidden.call_verdict`` reads it."""
    if cell.status == "ok" and isinstance(cell.reply, dict) and "kind" in cell.reply:
        return cell.reply
    if cell.status == "ok":
        return {"kind": "skipped", "message": "the call sent no outcome back"}
    return {"kind": "timeout" if cell.status == "timeout" else "skipped", "message": _cell_problem(cell)}


def _cell_problem(cell: CellRun) -> str:
    if cell.status == "error":
        return f"{cell.error} (the grading cell itself failed: was the harness removed?)"
    return cell.evalue or cell.status
