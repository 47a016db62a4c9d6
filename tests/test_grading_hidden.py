"""Hidden cases and the kernel-side harness, run in this process (no kernel): fast checks of the scoring.

The same functions the corpus grades in real kernels are exec'd here from the
course's notebooks, so a scoring rule can be pinned in milliseconds.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from grading_corpus import CORPUS, FUNCTION, grade_in_process, learner, namespace, solution

from course_lib.grading import harness, hidden, hidden_cases
from course_lib.grading.grade import grading_request
from course_lib.grading.sandbox import Limits

LABS = ("11.1", "11.2", "11.3", "11.4", "11.5")


def corpus(name: str):  # noqa: ANN201
    return next(s for s in CORPUS if s.name == name).make()


@pytest.mark.parametrize("lab", LABS)
def test_hidden_cases_are_deterministic(lab: str) -> None:
    """Fixed seeds: two generations of a lab's hidden cases are the same calls with the same expectations."""
    first = hidden_cases.GENERATORS[lab](random.Random(hidden_cases.SEEDS[lab]))
    second = hidden_cases.GENERATORS[lab](random.Random(hidden_cases.SEEDS[lab]))
    def dump(tests: tuple[hidden.HiddenTest, ...]) -> str:  # JSON, so a NaN option equals itself
        return json.dumps([[(c.request(), repr(c.expected)) for c in t.calls] for t in tests])

    assert dump(first) == dump(second)
    assert len(hidden_cases.hidden_calls(lab)) >= 15


@pytest.mark.parametrize("lab", LABS)
def test_the_kernel_never_receives_an_expected_value(lab: str) -> None:
    """The request holds inputs only: no expected outcome travels into the learner's kernel."""
    request = grading_request(lab, Limits())
    text = json.dumps(request)
    assert "expected" not in text
    for call in hidden_cases.hidden_calls(lab):
        if isinstance(call.expected, hidden.Returned) and call.function in ("build_context", "create_compaction_entry"):
            assert json.dumps(call.expected.value) not in text


@pytest.mark.parametrize("lab", LABS)
def test_solutions_get_full_marks(lab: str, tmp_path: Path) -> None:
    """Every lab's solution passes its checklist and every hidden case (Lab 11.1's call into the
    course's parser for non-compaction entries is part of the lab, not a use of the reference)."""
    result = grade_in_process(lab, namespace(lab, solution(lab)), tmp_path)
    assert [t.output for t in result.tests if not t.passed] == []
    assert result.status == "ok" and result.score == result.max_score == len(result.tests)


@pytest.mark.parametrize("lab", LABS)
def test_stubs_score_zero_as_not_implemented(lab: str, tmp_path: Path) -> None:
    result = grade_in_process(lab, namespace(lab, learner(lab)), tmp_path)
    assert result.score == 0 and result.status == "ok"
    assert all(t.output.startswith("not implemented yet") for t in result.tests)
    assert all(f"Lab {lab} not implemented yet: {FUNCTION[lab]}" in t.output for t in result.tests)


def test_answers_hard_coded_to_the_example_fail_the_hidden_cases(tmp_path: Path) -> None:
    result = grade_in_process("11.3", namespace("11.3", corpus("hard_coded_example")), tmp_path)
    assert [t.passed for t in result.tests if not t.hidden] == [True, True, True]
    assert [t.passed for t in result.tests if t.hidden] == [False] * 4


def test_feedback_names_the_rule_not_the_hidden_case(tmp_path: Path) -> None:
    """A failing hidden test says which rule and which kind of session, never the expected answer or code."""
    result = grade_in_process("11.3", namespace("11.3", corpus("partly_correct")), tmp_path)
    kept = next(t for t in result.tests if t.name == "generated_kept_groups_and_reason")
    assert not kept.passed
    assert kept.output.startswith("R19 R20: ")
    assert "wrong keptEntryIds" in kept.output and "generated cases; first: a session of" in kept.output
    test = hidden_cases.hidden_tests("11.3")[0]
    for call in test.calls:
        assert json.dumps(call.expected.value["keptEntryIds"]) not in kept.output
    assert not any(word in kept.output for word in ("def ", "lambda", "rng.", "random."))


@pytest.mark.parametrize(("name", "says"), [("imports_reference", "reference implementation"),
                                            ("wraps_reference", "course_lib's own implementation")])
def test_the_reference_scores_zero(name: str, says: str, tmp_path: Path) -> None:
    submission = next(s for s in CORPUS if s.name == name)
    result = grade_in_process(submission.lab, namespace(submission.lab, submission.make()), tmp_path)
    assert result.score == 0
    assert all(says in t.output for t in result.tests)
    assert any(says in note for note in result.notes)


def test_reference_origin_sees_through_aliases() -> None:
    import functools

    import course_lib
    from course_lib import context

    assert harness.reference_origin(course_lib.build_context, "build_context")
    assert harness.reference_origin(functools.partial(context.build_context), "build_context")
    assert harness.reference_origin(course_lib.fixtures.teaching_estimator, "build_context")  # any course_lib function
    assert harness.reference_origin(lambda path: path, "build_context") is None


def _serve(tmp_path: Path, lab: str, names: dict[str, object], time_limit: float) -> list[dict[str, object]]:
    request = grading_request(lab, Limits(cell_timeout=time_limit))
    (tmp_path / "request.json").write_text(json.dumps(request))
    harness.serve(names, str(tmp_path / "request.json"), str(tmp_path / "response.jsonl"))
    return [json.loads(line) for line in (tmp_path / "response.jsonl").read_text().splitlines()]


def test_a_loop_costs_one_time_limit_then_the_rest_is_skipped(tmp_path: Path) -> None:
    """The alarm stops an endless learner function (even one catching Exception), once."""

    def group_interactions(entries):  # noqa: ANN001, ANN202
        while True:
            try:
                pass
            except Exception:  # noqa: BLE001, S110 - a learner's catch-all must not swallow the limit
                pass

    events = _serve(tmp_path, "11.2", {"group_interactions": group_interactions}, time_limit=0.2)
    results = [e for e in events if e["event"] in ("check", "call")]
    assert results[0]["status"] == "timeout"
    assert all(e.get("status") == "skipped" or e.get("outcome", {}).get("kind") == "skipped" for e in results[1:])
    assert events[-1] == {"event": "end"}


def test_sys_exit_and_prints_stay_inside_the_harness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def group_interactions(entries):  # noqa: ANN001, ANN202
        print("learner output")
        raise SystemExit(3)

    events = _serve(tmp_path, "11.2", {"group_interactions": group_interactions}, time_limit=2)
    calls = [e for e in events if e["event"] == "call"]
    assert {e["outcome"]["type"] for e in calls} == {"SystemExit"}
    assert "learner output" not in capsys.readouterr().out


def test_changing_the_input_fails_r13(tmp_path: Path) -> None:
    """A function that returns the right groups but edits the caller's entries fails (R13)."""
    names = namespace("11.2", solution("11.2"))
    right = names["group_interactions"]

    def group_interactions(entries):  # noqa: ANN001, ANN202
        groups = right(entries)
        for entry in entries:
            for block in getattr(entry.message, "content", ()):
                if getattr(block, "type", "") == "toolCall":
                    block.arguments["touched"] = True
        return groups

    names["group_interactions"] = group_interactions
    result = grade_in_process("11.2", names, tmp_path)
    generated = next(t for t in result.tests if t.name == "generated_groups")
    assert not generated.passed and "changed its input" in generated.output


def test_numbers_compare_by_value() -> None:
    """3 and 3.0 are the same token count, as in the checklist's comparisons."""
    assert hidden.describe_difference({"total": 3}, {"total": 3.0}) is None
    assert hidden.describe_difference({"total": 3, "reason": "x"}, {"total": 4, "reason": "x"}) == "wrong total"
    assert hidden.describe_difference([1, 2], [1]) == "1 items where the rules give 2"
