"""Hidden cases no table can answer: the covering set drawn from the seed, copy rules judged on exact types.

A learner with the course pack can run the grader offline and record the
reference's answers. The covering set's shapes are fixed (so no seed skips an
edge case), but its ids, texts, costs and budgets come from the run's seed, so a
table recorded under one seed answers nothing under another
(``mutants.tricks``' tabulating mutants). And a result whose dicts are a
subclass that ignores writes no longer hides that it shares the caller's
objects: values are judged as exact types, the input against the harness's own
pristine copy.
"""

from __future__ import annotations

import json
from typing import Any

import corpus_verdicts as verdicts
import pytest
from grading_corpus import namespace, solution
from mutants import MUTANTS, Mutant, reference
from mutants.run import covering_failures, graded_under
from mutants.tricks import RECORDED_SEED
from pydantic import BaseModel

from course_grader.judging import hidden
from course_grader.judging.covering import COVERING, covering_calls
from course_grader.judging.draws import covering_draw
from course_grader.judging.hidden_cases import covering_tests
from course_lib.checklist import exact, harness
from course_lib.grouping import InteractionGroup
from course_lib.models import ToolCall
from course_lib.teaching import lab_registry

LABS = tuple(lab_registry.LABS)
SEEDS = (None, 0, 1, RECORDED_SEED)
TABULATING = [m for m in MUTANTS if m.name.endswith("_tabulated_covering_calls")]
SUBCLASS = next(m for m in MUTANTS if m.name == "11_2_shares_entries_behind_a_subclass")
PLAIN_SHARING = next(m for m in MUTANTS if m.name == "11_2_groups_share_entries")


def _shape(call: hidden.HiddenCall) -> tuple[Any, ...]:
    expected = call.expected
    kind = ("rejected", len(expected.names)) if isinstance(expected, hidden.Rejected) else ("returned",)
    return call.function, call.estimator, call.reparse, len(call.path or ()), tuple(sorted(call.options)), kind


def _ids(call: hidden.HiddenCall) -> set[str]:
    entries = [*(call.path or ()), *([call.value] if call.value and "id" in call.value else [])]
    return {entry["id"] for entry in entries if str(entry.get("id", "")).strip()}  # not the catalogue's blank id


def _inputs(call: hidden.HiddenCall) -> str:
    return json.dumps({k: v for k, v in call.request().items() if k != "key"}, sort_keys=True)


@pytest.mark.parametrize("lab", LABS)
def test_two_seeds_draw_other_ids_costs_and_budgets_in_the_same_shapes(lab: str) -> None:
    first, second = covering_calls(lab_registry.LABS[lab], 0), covering_calls(lab_registry.LABS[lab], 1)
    assert list(first) == list(second)
    for name in first:
        one, other = first[name], second[name]
        if name == "generated_cut_points":  # keep_recent_tokens around each drawn running total: as many as differ
            assert {_shape(call) for call in one} == {_shape(call) for call in other}
        elif lab != "11.2":  # Lab 11.2's session starts with a drawn number of plain groups: other lengths
            assert [_shape(call) for call in one] == [_shape(call) for call in other], name
        else:
            assert [_shape(call)[-1] for call in one] == [_shape(call)[-1] for call in other], name
        ids = set().union(*map(_ids, one)), set().union(*map(_ids, other))
        assert not ids[0] & ids[1], f"{name}: ids drawn under both seeds: {sorted(ids[0] & ids[1])[:5]}"
        drawn = [call for call in one if call.path or call.value or call.options]
        assert drawn and not {_inputs(c) for c in drawn} & {_inputs(c) for c in other}, name
    if lab in ("11.3", "11.5"):
        budgets = [
            [
                call.options.get("max_tokens")
                for call in calls["generated_messages" if lab == "11.3" else "generated_resume_messages"]
            ]
            for calls in (first, second)
        ]
        assert budgets[0] != budgets[1]


@pytest.mark.parametrize("lab", LABS)
def test_one_seed_draws_the_same_covering_set_every_time(lab: str) -> None:
    """A seed reproduces its run (``course-grade --seed``): drawn again, its covering calls are the same."""
    again = COVERING[lab](covering_draw(lab_registry.LABS[lab], 3))
    assert {name: [(_inputs(c), repr(c.expected)) for c in calls] for name, calls in again.items()} == {
        name: [(_inputs(c), repr(c.expected)) for c in calls]
        for name, calls in covering_calls(lab_registry.LABS[lab], 3).items()
    }


@pytest.mark.slow  # draws and runs four covering sets per lab: make test, not make check
@pytest.mark.parametrize("lab", LABS)
def test_the_solutions_pass_the_covering_set_under_every_seed(lab: str) -> None:
    """(Whatever seed a run draws, its covering set alone catches every mutant: tests/lib/checklist/test_mutants.py.)"""
    for seed in SEEDS:
        assert covering_failures(reference(lab), seed=seed) == [], seed


@pytest.mark.slow  # each seed grades the mutant whole
@pytest.mark.parametrize("mutant", TABULATING, ids=lambda m: m.name)
def test_a_table_recorded_under_one_seed_answers_nothing_under_another(mutant: Mutant) -> None:
    assert {m.lab for m in TABULATING} >= {"11.3", "11.2"}
    assert covering_failures(mutant, seed=RECORDED_SEED) == [], "the table must really answer its own seed's calls"
    for seed in (None, 0, 1, 2):
        assert covering_failures(mutant, first_only=True, seed=seed), f"the table answered seed {seed}'s covering set"
    for seed, result in graded_under(mutant, (RECORDED_SEED, 0, 1, 2)).items():
        assert any(not test.passed for test in result.tests if test.hidden), f"full hidden marks under seed {seed}"


@pytest.mark.slow  # two whole gradings (the corpus's verdicts, once per run)
def test_a_dict_subclass_that_ignores_writes_hides_no_shared_entries() -> None:
    """R13's shared entries behind a write-ignoring dict subclass lose what the plain bug loses, inline and graded."""
    tricked, plain = verdicts.graded(SUBCLASS), verdicts.graded(PLAIN_SHARING)
    assert tricked.score <= plain.score < tricked.max_score
    failed = {test.name: test.output for test in tricked.tests if not test.passed}
    assert {"out_of_order_results_stay_one_group", "generated_groups"} <= set(failed)
    shown = {record.name: record.message for record in verdicts.inline(SUBCLASS).records if not record.passed}
    assert shown["out_of_order_results_stay_one_group"] == failed["out_of_order_results_stay_one_group"]
    assert "subclass of dict" in shown["out_of_order_results_stay_one_group"]


def _settled_groups(share: bool) -> Any:
    class Quiet(dict):
        def __setitem__(self, key: str, value: Any) -> None:
            pass

    def group_interactions(entries: Any) -> list[InteractionGroup]:
        import copy

        grouped: list[list[Any]] = []
        for entry in entries:
            entry = entry if share else copy.deepcopy(entry)
            for block in getattr(entry.message, "content", ()):
                if isinstance(block, ToolCall):
                    object.__setattr__(block, "arguments", Quiet(block.arguments))
            if entry.message.role == "user":
                grouped.append([])
            if entry.message.role != "system":
                grouped[-1].append(entry)
        return [InteractionGroup(entries=tuple(group)) for group in grouped]

    return group_interactions


@pytest.mark.parametrize("share", [True, False], ids=["shared", "copied"])
def test_a_result_holding_a_subclass_is_a_bad_return_and_the_input_is_judged_on_a_pristine_copy(share: bool) -> None:
    test = next(t for t in covering_tests(lab_registry.LABS["11.2"]) if t.name == "generated_groups")
    call = test.calls[0]  # the whole session, with tool calls in three groups
    reply = json.loads(
        json.dumps(harness.call({"group_interactions": _settled_groups(share)}, json.dumps(call.request())).data)
    )
    assert reply["kind"] == "bad-return" and "subclass of dict" in reply["message"]
    assert (hidden.call_verdict(test, call, reply) or "").startswith("returned a list")


def test_the_input_changed_only_in_type_is_changed() -> None:
    """The harness compares the input with its own pristine copy type by type: a swap that prints the same is a change."""
    names = namespace("11.2", solution("11.2"))
    right = names["group_interactions"]

    def swaps_then_groups(entries: Any) -> Any:
        groups = right(entries)
        for entry in entries:
            for block in getattr(entry.message, "content", ()):
                if isinstance(block, ToolCall):
                    object.__setattr__(block, "arguments", type("Same", (dict,), {})(block.arguments))
        return groups

    test = next(t for t in covering_tests(lab_registry.LABS["11.2"]) if t.name == "generated_groups")
    call = test.calls[0]
    reply = json.loads(
        json.dumps(harness.call({"group_interactions": swaps_then_groups}, json.dumps(call.request())).data)
    )
    assert reply["kind"] == "returned" and reply["mutated"] is True
    assert (hidden.call_verdict(test, call, reply) or "").startswith("changed its input")


def test_exact_types_tell_a_subclass_from_the_real_thing() -> None:
    class Quiet(dict):
        pass

    class Items(list):
        pass

    class Group(InteractionGroup):
        pass

    class CompactionSummary(BaseModel):  # a learner's own model (Lab 11.1's) subclasses pydantic's, not a course type
        items: tuple[str, ...] = ()

    Impostor = type("InteractionGroup", (), {"__module__": "course_lib.grouping"})
    assert exact.inexact({"a": [1, 2.5, None, True, "x"], "b": (CompactionSummary(),)}) is None
    assert exact.inexact(InteractionGroup(entries=())) is None
    assert "subclass of dict" in (exact.inexact({"a": Quiet()}) or "")
    assert "subclass of list" in (exact.inexact([Items()]) or "")
    assert "subclass of InteractionGroup" in (exact.inexact([Group(entries=())]) or "")
    assert "claims" in (exact.inexact(Impostor()) or "")
    assert exact.differs({"a": [1, 2]}, {"a": [1, 2]}) is None
    assert exact.differs({"a": Quiet(x=1)}, {"a": {"x": 1}}) == "the input.a is a Quiet, was a dict"
    assert exact.differs([float("nan")], [float("nan")]) is None
    assert exact.differs([1], [True]) is not None
