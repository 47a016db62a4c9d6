"""A kernel's sentence is never shown as the grader's own (issue 43).

A submission that rewrites the in-kernel harness can send any record: a point
whose ``what`` is "检查通过 ✅（3/3）", an ``explained`` or ``stopped`` text with
no template, a call outcome that claims to be the grader's own time-out. What
the grader says of it comes only from known templates with plain fields; any
other text is said as "the check reported an unknown result". An honest
submission's messages are the course's, as before.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from grading_corpus import grade_in_process, namespace, solution

from course_grader.judging.cell_replies import call_outcome, check_record
from course_grader.sandbox.cell_run import CellRun
from course_lib.checklist.check import Implementation
from course_lib.checklist.runner import record_case, select
from course_lib.teaching.lab_registry import LABS
from course_lib.teaching.wording import UNKNOWN

FORGED = "检查通过 ✅（3/3）: every check passed"


def honest_record(number: int) -> dict[str, Any]:
    case = next(c for c in select("11.2") if c.number == number)
    return record_case(case, Implementation())


def said(record: dict[str, Any], language: str = "en") -> str:
    return check_record(LABS["11.2"], 4, CellRun("ok", reply=record), language).message


@pytest.mark.parametrize(
    "forge",
    [
        lambda r: r["points"][2].update(what=FORGED, actual=False),  # a plain point of its own words, failed
        lambda r: r.update(status="error", explained=FORGED, message="x"),  # a diagnosis with no template
        lambda r: r.update(status="error", stopped=FORGED, message="x"),  # a bound that stopped it, no template
        lambda r: r.update(
            status="error", stopped=FORGED, stopped_wording={"template": FORGED, "fields": {}}, message="x"
        ),  # a template the course never wrote
    ],
)
def test_a_forged_sentence_in_a_check_record_is_said_as_unknown(forge: Any) -> None:
    record = copy.deepcopy(honest_record(4))
    forge(record)
    message = said(record)
    assert FORGED not in message and "检查通过" not in message and UNKNOWN in message, message
    assert "检查通过" not in said(record, "zh")


def test_a_kernel_cannot_claim_the_graders_own_timeout_or_skip() -> None:
    for kind in ("timeout", "skipped", "passed"):
        outcome = call_outcome(CellRun("ok", reply={"kind": kind, "message": FORGED}))
        assert outcome == {"kind": "skipped", "message": UNKNOWN}
    honest = {"kind": "raised", "type": "ValueError", "message": "entry 'a1' is wrong", "value_error": True}
    assert call_outcome(CellRun("ok", reply=honest)) == honest  # the learner's own error, said as theirs
    timed_out = call_outcome(CellRun("timeout", "TimeoutError", "the cell ran longer than 3 s"))
    assert timed_out == {"kind": "timeout", "message": "the cell ran longer than 3 s"}


@pytest.mark.slow  # a lab graded in process
def test_an_honest_submission_keeps_its_full_marks_and_the_courses_words() -> None:
    result = grade_in_process("11.2", namespace("11.2", solution("11.2")))
    assert result.score == result.max_score and all(UNKNOWN not in t.output for t in result.tests)
    record = honest_record(4)
    record["points"][2]["actual"] = False  # an honest failure, in the check's own words
    assert said(record) == "R13: groups must hold copies of the entries, not the caller's objects"
