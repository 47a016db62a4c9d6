"""The catalogues hold what they say (the reference refuses or keeps each entry as written), and every layer reads them."""

from __future__ import annotations

import random

import pytest

from course_grader.judging import covering, hidden_cases
from course_grader.judging.generate import SessionRecipe, random_session
from course_lib import MessageEntry, build_context, fixtures, group_interactions, parse_session_entry, to_json_dict
from course_lib.checklist import harness
from course_lib.errors import EstimateError, InteractionError, OptionError, SessionEntryError
from course_lib.teaching import lab_helpers, lab_registry
from course_lib.teaching.catalogues import broken_tool_facts, budgets, compactions
from course_lib.teaching.catalogues.shorthand import shorthand_path


@pytest.mark.parametrize("malformed", [*compactions.MALFORMED, compactions.BLANK_ID], ids=lambda m: m.what)
def test_each_malformed_record_is_refused_naming_its_field(malformed: compactions.Malformed) -> None:
    value, fields = malformed.applied(fixtures.compact_1_wire())
    with pytest.raises(SessionEntryError) as refused:
        parse_session_entry(value)
    assert any(field in str(refused.value) for field in fields)
    assert malformed is compactions.BLANK_ID or "compact-1" in str(refused.value)


@pytest.mark.parametrize("unusual", compactions.UNUSUAL, ids=lambda u: u.what)
def test_each_unusual_record_is_kept_as_given(unusual: compactions.Unusual) -> None:
    value = unusual.applied(fixtures.compact_1_wire())
    assert value != fixtures.compact_1_wire()
    assert to_json_dict(parse_session_entry(value)) == value


def test_leaf_is_the_last_key_of_a_field_path() -> None:
    assert [compactions.leaf(p) for p in ("summary.decisions[1]", "summary.goal", "tokensBefore")] == [
        "decisions",
        "goal",
        "tokensBefore",
    ]


@pytest.mark.parametrize("broken", broken_tool_facts.BROKEN, ids=lambda b: b.what)
def test_each_broken_fact_is_refused_in_the_example_and_when_drawn(broken: broken_tool_facts.Broken) -> None:
    with pytest.raises(InteractionError) as refused:
        group_interactions(broken.chapter_path())
    assert all(name in str(refused.value) for name in broken.names)
    rng = random.Random(3)
    for seed in range(20):
        entries = [
            to_json_dict(e)
            for e in random_session(seed, SessionRecipe(groups=(2, 4), max_tool_calls=3))
            if e.type == "message"
        ]
        if broken.applies_to(entries):
            names = broken.draw(entries, rng)
            with pytest.raises(InteractionError) as drawn:
                group_interactions([m for m in map(parse_session_entry, entries) if isinstance(m, MessageEntry)])
            assert names and all(name in str(drawn.value) for name in names)


@pytest.mark.parametrize("case", broken_tool_facts.GROUPABLE, ids=lambda c: c.shorthand)
def test_each_groupable_path_groups_as_written(case: broken_tool_facts.Groupable) -> None:
    assert [[e.id for e in g.entries] for g in group_interactions(shorthand_path(case.shorthand))] == case.groups


def test_each_bad_budget_and_estimate_is_refused() -> None:
    path = fixtures.opening_path()
    for name, value in budgets.BAD_OPTIONS:
        with pytest.raises(OptionError, match=name):
            build_context(
                path,
                **(fixtures.OPENING_BUDGET | {name: value}),
                estimate_tokens=fixtures.teaching_estimator,
            )
    for name, value in budgets.BAD_ESTIMATES.items():
        with pytest.raises(EstimateError, match="estimate_tokens returned"):
            build_context(path, **fixtures.OPENING_BUDGET, estimate_tokens=budgets.returning(value))
        assert repr(harness.ESTIMATORS[name](path[1].message)) == repr(value)  # a hidden call names it


def test_the_grader_tries_the_whole_catalogue() -> None:
    fixed = covering.covering_calls(lab_registry.LABS["11.1"])["generated_malformed_compactions"]
    assert [call.description for call in fixed] == [
        f"a compaction with {m.what}" for m in (*compactions.MALFORMED, compactions.BLANK_ID)
    ]
    drawn = {test.name: test for test in hidden_cases.GENERATORS["11.1"](random.Random(1101))}
    whats = {m.what for m in compactions.MALFORMED}
    assert all(
        call.description.removeprefix("a compaction with ") in whats
        for call in drawn["generated_malformed_compactions"].calls
    )
    broken = hidden_cases.GENERATORS["11.2"](random.Random(1102))[1].calls
    assert {call.description.rpartition(" with ")[2] for call in broken} == {b.what for b in broken_tool_facts.BROKEN}


def test_the_lab_tables_are_the_catalogue() -> None:
    """Lab 11.1's and Lab 11.2's tables: the catalogue's rows, with the keys the labs' predictions name."""
    variants = lab_helpers.compaction_variants(fixtures.compact_1_wire())
    assert {"tokensBefore 1000000 (wrong, but finite)", "tokensBefore true", "timestamp '100'"} <= set(variants)
    assert variants["unchanged"] == (fixtures.compact_1_wire(), "accepted")
    assert sum(answer == "accepted" for _, answer in variants.values()) == 3
    for value, answer in variants.values():
        if answer != "accepted":
            with pytest.raises(ValueError, match=answer.replace("[", r"\[")):
                parse_session_entry(value)
    cases = lab_helpers.tool_fact_cases()
    assert len(cases) == len(broken_tool_facts.GROUPABLE) + len(broken_tool_facts.BROKEN)
    assert all(
        isinstance(answer, tuple) == any(b.shorthand == text for b in broken_tool_facts.BROKEN)
        for text, answer in cases.items()
    )
