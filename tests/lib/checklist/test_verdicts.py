"""One verdict per check: the inline checklist and the grader judge each check the same way.

``checklist.run`` (what a lab's checklist cell shows) records a check and
judges the record against the reference's, exactly as ``course-grade`` does with
a kernel's reply. The whole mutant corpus is run both ways (its verdicts come
from ``corpus_verdicts``, computed once per test run), and every check must get
the same verdict and the same message. A failure names the
rule that is broken, and a crash names the rule of the observation it stopped.
"""

from __future__ import annotations

from typing import Any

import corpus_verdicts as verdicts
import pytest
from grading_corpus import grade_in_process
from mutants import MUTANTS, Mutant, reference
from mutants.run import lab_functions

import course_lib
from course_grader.judging.assemble import check_output
from course_lib import checklist, tool_facts
from course_lib.checklist import NotRecording
from course_lib.checklist.expect import Point, expect_equal, verdict
from course_lib.checklist.runner import run_case
from course_lib.errors import InteractionError

CHAPTER_LABS = ("11.1", "11.2", "11.3", "11.4", "11.5")


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [*map(reference, CHAPTER_LABS), *MUTANTS], ids=lambda m: m.name)
def test_inline_and_graded_verdicts_agree(mutant: Mutant) -> None:
    shown = verdicts.inline(mutant)
    result = verdicts.graded(mutant)
    scored = {test.number: test for test in result.tests if not test.hidden}
    assert sorted(scored) == sorted(str(record.number) for record in shown.records)
    for record in shown.records:
        test = scored[str(record.number)]
        assert (test.score == 1) == record.passed, (record.number, record.status, record.message, test.output)
        assert test.output == (check_output(record) or ""), (record.number, record.message, test.output)
    if not mutant.edits:
        assert shown.all_passed


def _mutant(name: str) -> Mutant:
    return next(m for m in MUTANTS if m.name == name)


@pytest.mark.slow  # grades a notebook (the corpus's verdict, once per run): make test runs it, make check does not
def test_system_replayed_from_the_suffix_is_r16_both_ways() -> None:
    """The row of the issue: inline ✅ and graded ❌ R23 before; now both ❌ naming R16."""
    mutant = _mutant("11_5_system_from_suffix")
    record = next(r for r in verdicts.inline(mutant).records if r.number == 13)
    assert record.status == "failed" and record.message.startswith("R16: "), record.message
    test = next(t for t in verdicts.graded(mutant).tests if t.number == "13")
    assert test.score == 0 and test.output == record.message


def test_builds_that_differ_from_each_other_fail_r23() -> None:
    """R23 compares two of the learner's own builds: a function that answers differently each time fails it."""
    calls = {"n": 0}

    def unstable(path: Any, **options: Any) -> Any:
        calls["n"] += 1
        result = course_lib.build_context(path, **options)
        return result.model_copy(update={"reason": "trimmed"}) if calls["n"] == 2 else result

    record = run_case(
        next(c for c in checklist.CASES if c.number == 13), checklist.Implementation(build_context=unstable)
    )
    assert record.message.startswith("R23: two builds of the same path and options differ at reason"), record.message


def strict_order_groups(entries: Any) -> Any:
    """Rejects a tool result placed before its call: valid under R12 (facts are paired by id, not position)."""
    declared: set[str] = set()
    for entry in entries:
        message = entry.message
        declared |= set(tool_facts.tool_call_ids(message))
        if message.role == "toolResult" and message.tool_call_id not in declared:
            raise InteractionError(f"result {entry.id!r} comes before its call {message.tool_call_id!r}")
    return course_lib.group_interactions(entries)


def test_a_learners_own_error_on_valid_input_names_the_rule() -> None:
    record = next(r for r in checklist.run(lab="11.2", group_interactions=strict_order_groups).records if r.number == 5)
    assert record.status == "error"
    assert record.message == (
        "R12: a result before its call (facts are paired by id, not position) — expected a result, "
        "but it raised InteractionError: result 'r-test' comes before its call 'test-1'"
    )
    names = {"group_interactions": strict_order_groups}
    test = next(t for t in grade_in_process("11.2", names).tests if t.number == "5")
    assert test.score == 0 and test.output == record.message


def test_a_crash_before_any_observation_names_the_first() -> None:
    def crashes(path: Any, **options: Any) -> Any:
        raise KeyError("missing")

    records = checklist.run(lab="11.5", build_context=crashes).records
    assert records[0].message == (
        "R16: the resumed path: the replayed system message — expected a result, but it raised KeyError: 'missing'"
    )


def test_expectations_are_never_judged_outside_a_recording() -> None:
    """There is no second way to judge a check: stated outside ``record_case`` an expectation refuses."""
    with pytest.raises(NotRecording, match="R1: x"):
        expect_equal(1, 1, "R1", "x")


def test_same_points_ignore_the_reference_value() -> None:
    trusted = Point("same", "R23", "two builds", actual=[{"a": 1}, {"a": 1}])
    assert verdict(Point("same", "R23", "two builds", actual=[{"a": 2}, {"a": 2}]), trusted) is None
    assert verdict(Point("same", "R23", "two builds", actual=[{"a": 1}, {"a": 2}]), trusted) == (
        "R23: two builds differ at a: 1, then 2"
    )


def test_mutant_functions_still_load() -> None:
    assert callable(lab_functions(_mutant("11_5_system_from_suffix"))["build_context"])


def test_same_points_from_a_kernel_cannot_exhaust_the_judge() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    trusted = Point("same", "R23", "two builds", actual=[[], []])
    assert verdict(Point("same", "R23", "two builds", actual=[deep, deep]), trusted) == "R23: two builds differ"
