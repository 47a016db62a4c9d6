"""Generated sessions (course_grader/judging/generate.py): reproducible, valid, and varied where the rules look."""

from __future__ import annotations

import random

import pytest

from course_grader.judging.generate import SessionRecipe, group_starts, random_session
from course_lib import InMemorySessionStore, build_context, group_interactions, path_to, to_json_dict, tool_facts
from course_lib.fixtures import teaching_estimator

SEEDS = range(40)


def test_same_seed_same_session_different_seed_different_session() -> None:
    """Hidden grading cases must be the same on every run (fixed seeds)."""
    assert to_json_dict(random_session(7)) == to_json_dict(random_session(7))
    assert to_json_dict(random_session(random.Random(7))) == to_json_dict(random_session(7))
    assert to_json_dict(random_session(7)) != to_json_dict(random_session(8))


@pytest.mark.parametrize("compactions", [0, 1, 3])
def test_sessions_are_valid_paths_r7_r10(compactions: int) -> None:
    """Every generated session stores (unique ids, known parents) and walks back from its leaf (R7, R10)."""
    for seed in SEEDS:
        path = random_session(seed, SessionRecipe(compactions=compactions))
        store = InMemorySessionStore()
        for entry in path:
            store.append(entry)
        assert to_json_dict(path_to(store.entries(), path[-1].id)) == to_json_dict(path)


def test_groups_and_budgets_follow_the_reference_r11_r20() -> None:
    """Message entries group without error (R11, R12); every build is one of the three reasons (R20)."""
    reasons = set()
    for seed in SEEDS:
        path = random_session(seed, SessionRecipe(compactions=seed % 3))
        groups = group_interactions([e for e in path if e.type == "message"])
        assert [g.entries[0].id for g in groups] == group_starts(path)
        for max_tokens in (0, 40, 400):
            result = build_context(
                path, max_tokens=max_tokens, reserved_output=4, safety_margin=2, estimate_tokens=teaching_estimator
            )
            reasons.add(result.reason)
    assert reasons == {"within_budget", "trimmed", "single_group_overflow"}


def test_varied_where_the_rules_look_r12_r14_r18() -> None:
    """Across seeds: results out of declaration order, progress and system messages inside groups,
    metadata, and compactions that keep from a group start other than the first (R12, R14, R18, R27)."""
    out_of_order = inside_patch = progress = metadata = later_first_kept = False
    for seed in SEEDS:
        path = random_session(seed, SessionRecipe(compactions=2))
        messages = [e for e in path if e.type == "message"]
        for group in group_interactions(messages):
            declared = [call_id for e in group.entries for call_id in tool_facts.tool_call_ids(e)]
            answered = [call_id for e in group.entries if (call_id := tool_facts.answered_call_id(e))]
            out_of_order |= answered != [c for c in declared if c in answered]
            progress |= any(e.id.startswith("progress") for e in group.entries)
        starts = set(group_starts(path))
        inside_patch |= any(  # a result after a patch: the patch sits inside a group
            e.id.startswith("patch") and after.type == "message" and after.message.role == "toolResult"
            for e, after in zip(path, path[1:])
        )
        metadata |= any(e.type == "metadata" for e in path)
        later_first_kept |= any(e.type == "compaction" and e.first_kept_entry_id != group_starts(path)[0] for e in path)
        assert all(e.first_kept_entry_id in starts for e in path if e.type == "compaction")
    assert (out_of_order, inside_patch, progress, metadata, later_first_kept) == (True,) * 5


def test_recipe_bounds() -> None:
    for seed in SEEDS:
        path = random_session(
            seed, SessionRecipe(groups=(3, 4), compactions=2, system=False, metadata=False, max_tool_calls=0)
        )
        assert 3 <= len(group_starts(path)) <= 4
        assert sum(e.type == "compaction" for e in path) == 2
        assert not any(e.type == "metadata" for e in path)
        assert not any(e.type == "message" and e.message.role == "toolResult" for e in path)
        assert path[0].type == "message" and path[0].message.role == "user"
