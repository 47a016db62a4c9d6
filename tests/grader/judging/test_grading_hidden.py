"""Hidden cases, the kernel-side harness and the outside judge, run in this process (no kernel).

The same functions the corpus grades in sandboxed kernels are exec'd here from
the course's notebooks, so a scoring rule can be pinned in milliseconds. (What
the reference's absence, time limits and the sandbox do is tested with real
kernels in test_grading_corpus.py and test_grading_hostile.py.)
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from grading_corpus import CORPUS, grade_in_process, learner, namespace, solution

from course_grader.judging import hidden, hidden_cases, lab_cases, labs, practice
from course_grader.judging.verdicts import GradeResult
from course_lib.checklist import harness
from course_lib.teaching import lab_registry

LABS = tuple(lab_registry.LABS)


def corpus(name: str):
    return next(s for s in CORPUS if s.name == name).make()


@pytest.mark.slow  # draws the lab's hidden cases twice more, seconds for Lab 11.5: make test, not make check
@pytest.mark.parametrize("lab", LABS)
def test_hidden_cases_are_deterministic(lab: str) -> None:
    """Fixed seeds: two generations of a lab's hidden cases are the same calls with the same expectations."""
    first = hidden_cases.GENERATORS[lab](random.Random(lab_registry.lab(lab).hidden_seed))
    second = hidden_cases.GENERATORS[lab](random.Random(lab_registry.lab(lab).hidden_seed))

    def dump(tests: tuple[hidden.HiddenTest, ...]) -> str:  # JSON, so a NaN option equals itself
        return json.dumps([[(c.request(), repr(c.expected)) for c in t.calls] for t in tests])

    assert dump(first) == dump(second)
    assert len(hidden_cases.hidden_calls(lab_registry.LABS[lab])) >= 15


def test_the_learner_may_read_no_labs_cases() -> None:
    """Each lab's module in ``judging/labs/`` (tests/test_lab_parts.py: one per lab) is among the files the
    Gradescope bundle checks the learner's account cannot read (``hidden_cases.SOURCES``)."""
    assert list(lab_cases.LAB_CASES) == list(LABS)
    folder = Path(labs.__file__ or "").parent
    assert set(folder.glob("*.py")) <= set(hidden_cases.SOURCES)
    assert all(path.is_file() for path in hidden_cases.SOURCES)


@pytest.mark.parametrize("lab", LABS)
def test_the_kernel_never_receives_an_expected_value(lab: str) -> None:
    """The requests hold inputs only: no expected outcome travels into the learner's kernel."""
    text = json.dumps([call.request() for call in hidden_cases.hidden_calls(lab_registry.LABS[lab])])
    assert "expected" not in text
    for call in hidden_cases.hidden_calls(lab_registry.LABS[lab]):
        if isinstance(call.expected, hidden.Returned) and call.function in ("build_context", "create_compaction_entry"):
            assert json.dumps(call.expected.value) not in text


@pytest.mark.slow  # grades a whole solution, every hidden case: make test, not make check
@pytest.mark.parametrize("lab", LABS)
def test_solutions_get_full_marks(lab: str, tmp_path: Path) -> None:
    """Every lab's solution passes its checklist and every hidden case (Lab 11.1's call into the
    course's parser for non-compaction entries is part of the lab, not a use of the reference)."""
    result = grade_in_process(lab, namespace(lab, solution(lab)))
    assert [t.output for t in result.tests if not t.passed] == []
    assert result.status == "ok" and result.score == result.max_score == len(result.tests)


@pytest.mark.parametrize("lab", LABS)
def test_stubs_score_zero_as_not_implemented(lab: str, tmp_path: Path) -> None:
    result = grade_in_process(lab, namespace(lab, learner(lab)))
    assert result.score == 0 and result.status == "ok"
    assert all(t.output.count("not implemented yet") == 1 for t in result.tests)  # said once, not twice
    label = lab_registry.lab(lab).label
    assert all(
        any(f"{label} not implemented yet: {name}" in t.output for name in lab_registry.lab(lab).functions)
        for t in result.tests
    )


def test_answers_hard_coded_to_the_example_fail_the_hidden_cases(tmp_path: Path) -> None:
    result = grade_in_process("11.3", namespace("11.3", corpus("hard_coded_example")))
    # Check 8 pins only the chapter's example; checks 7 and 9 also build other paths, which the copied table lacks.
    assert [t.passed for t in result.tests if not t.hidden] == [False, True, False]
    assert [t.passed for t in result.tests if t.hidden] == [False] * 4


@pytest.fixture(scope="module")
def partly_correct() -> GradeResult:
    """Lab 11.3 with R19 broken, graded with its practice counterexamples (what both tests below read)."""
    return grade_in_process("11.3", namespace("11.3", corpus("partly_correct")))


@pytest.mark.slow  # grades a notebook and shrinks its counterexamples: make test runs it, make check does not
def test_a_failed_hidden_test_shows_a_shrunk_practice_counterexample(partly_correct: GradeResult) -> None:
    """The counterexample comes from the practice seed, is shrunk, and shows budget, expected and got at one path."""
    kept = next(t for t in partly_correct.tests if t.name == "generated_kept_groups_and_reason")
    lines = kept.output.splitlines()
    assert lines[1].startswith("Counterexample (a practice case, not a scored one): a generated session shrunk from ")
    assert lines[2].startswith("  path: ") and lines[3].startswith("  budget: max_tokens=")
    assert re.fullmatch(r"  keptEntryIds\[\d+\]: expected '[^']+', got '[^']+'", lines[4]), lines[4]
    scored = {json.dumps(call.path) for call in hidden_cases.hidden_calls(lab_registry.LABS["11.3"])}
    drawn = {
        json.dumps(call.path) for test in practice.practice_tests(lab_registry.LABS["11.3"]) for call in test.calls
    }
    assert drawn and scored & drawn == {"[]"}  # only the empty path is in both


@pytest.mark.slow  # grades a notebook and shrinks its counterexamples: make test runs it, make check does not
def test_feedback_names_the_rule_not_the_hidden_case(partly_correct: GradeResult) -> None:
    """A failing hidden test says which rule and which kind of session, never the expected answer or code."""
    kept = next(t for t in partly_correct.tests if t.name == "generated_kept_groups_and_reason")
    assert not kept.passed
    assert kept.output.startswith("R19 R20: ")
    assert "wrong keptEntryIds" in kept.output and "generated cases; first: a session of" in kept.output
    test = hidden_cases.hidden_tests(lab_registry.LABS["11.3"])[0]
    for call in test.calls:
        assert json.dumps(call.expected.value["keptEntryIds"]) not in kept.output
    assert not any(word in kept.output for word in ("def ", "lambda", "rng.", "random."))


def test_sys_exit_and_prints_stay_inside_the_harness(capsys: pytest.CaptureFixture[str]) -> None:
    def group_interactions(entries):
        print("learner output")
        raise SystemExit(3)

    call = hidden_cases.hidden_calls(lab_registry.LABS["11.2"])[0]
    reply = harness.call({"group_interactions": group_interactions}, json.dumps(call.request())).data
    assert reply["kind"] == "raised" and reply["type"] == "SystemExit"
    result = grade_in_process("11.2", {"group_interactions": group_interactions})
    assert result.score == 0 and all("SystemExit" in t.output for t in result.tests)


def test_changing_the_input_fails_r13(tmp_path: Path) -> None:
    """A function that returns the right groups but edits the caller's entries fails (R13)."""
    names = namespace("11.2", solution("11.2"))
    right = names["group_interactions"]

    def group_interactions(entries):
        groups = right(entries)
        for entry in entries:
            for block in getattr(entry.message, "content", ()):
                if getattr(block, "type", "") == "toolCall":
                    block.arguments["touched"] = True
        return groups

    names["group_interactions"] = group_interactions
    result = grade_in_process("11.2", names)
    generated = next(t for t in result.tests if t.name == "generated_groups")
    assert not generated.passed and "changed its input" in generated.output


def test_numbers_compare_by_value() -> None:
    """3 and 3.0 are the same token count, as in the checklist's comparisons."""
    assert hidden.describe_difference({"total": 3}, {"total": 3.0}) is None
    assert hidden.describe_difference({"total": 3, "reason": "x"}, {"total": 4, "reason": "x"}) == "wrong total"
    assert hidden.describe_difference([1, 2], [1]) == "1 items where the rules give 2"


@pytest.mark.parametrize("lab", LABS)
@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_every_seed_holds_the_fixed_covering_set(lab: str) -> None:
    """Every seed's run holds that seed's covering calls, with the same inputs and expectations."""
    for seed in (None, 0, 7):
        fixed = [
            (call.key, json.dumps(call.request()), repr(call.expected))
            for test in hidden_cases.covering_tests(lab_registry.LABS[lab], seed)
            for call in test.calls
        ]
        assert fixed and all(key.split("-")[-2] == "fixed" for key, _, _ in fixed)
        drawn = {
            call.key: (call.key, json.dumps(call.request()), repr(call.expected))
            for call in hidden_cases.hidden_calls(lab_registry.LABS[lab], seed)
        }
        assert all(drawn.get(item[0]) == item for item in fixed)
    assert [t.name for t in hidden_cases.covering_tests(lab_registry.LABS[lab])] == [
        t.name for t in hidden_cases.hidden_tests(lab_registry.LABS[lab])
    ]


def test_an_unbounded_recovery_loop_ends_and_fails() -> None:
    """A retry loop without a cap stops at the harness's send() limit instead of hanging the grader (L4)."""

    def retry_after_overflow(send, compact, *, context_window, max_attempts):
        answer, attempts = send(), 0
        while answer.stop_reason == "error":
            attempts += 1
            compact(attempts)
            answer = send()
        return answer, attempts

    test = next(
        t for t in hidden_cases.covering_tests(lab_registry.LABS["capstone"]) if t.name == "generated_overflow_recovery"
    )
    call = next(c for c in test.calls if "an overflow every time" in c.description)
    reply = harness.call({"retry_after_overflow": retry_after_overflow}, json.dumps(call.request())).data
    assert reply["kind"] == "raised" and reply["type"] == "ScriptExhaustedError"
    assert hidden.call_verdict(test, call, reply).startswith("raised ScriptExhaustedError")


def test_a_parser_must_return_a_new_frozen_entry_when_handed_a_parsed_one() -> None:
    """Lab 11.1's already-parsed input: returning the entry itself, or a changeable one, fails (R3)."""
    names = namespace("11.1", solution("11.1"))
    right = names["parse_session_entry"]
    test = next(
        t
        for t in hidden_cases.covering_tests(lab_registry.LABS["11.1"])
        if t.name == "generated_compactions_round_trip"
    )
    reparsed = [call for call in test.calls if call.reparse]
    assert reparsed
    for call in reparsed:
        reply = json.loads(json.dumps(harness.call(names, json.dumps(call.request())).data))
        assert hidden.call_verdict(test, call, reply) is None
    names["parse_session_entry"] = lambda value: value if not isinstance(value, dict) else right(value)
    reply = json.loads(json.dumps(harness.call(names, json.dumps(reparsed[0].request())).data))
    assert "wrong" in (hidden.call_verdict(test, reparsed[0], reply) or "")
