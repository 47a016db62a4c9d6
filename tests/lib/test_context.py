"""The budgeted projection ``build_context`` (R15–R23; §7; §8 tests 7–9 and 12–15)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from wire_samples import compaction_wire, shared_containers

from course_lib import (
    CompactionError,
    InMemorySessionStore,
    InteractionError,
    PathBuilder,
    SystemMessage,
    ToolCall,
    build_context,
    compaction_summary_text,
    estimate_tokens_chars,
    parse_session_entry,
    path_to,
    to_json_dict,
)
from course_lib import fixtures as fx
from course_lib.fixtures import teaching_estimator

NO_FIXED_COSTS = {"reserved_output": 0, "safety_margin": 0}


def _build(path: list, **budget: Any) -> Any:
    options = {**NO_FIXED_COSTS, **budget}
    options.setdefault("estimate_tokens", teaching_estimator)
    return build_context(path, **options)


def _words(n: int) -> str:
    return " ".join(["w"] * n)


def _groups(*costs: int) -> PathBuilder:
    """One user message per group, each costing exactly ``cost`` under the teaching estimator."""
    builder = PathBuilder()
    for index, cost in enumerate(costs, start=1):
        builder.user(f"u{index}", _words(cost))
    return builder


# --- §7: the chapter's numbers ---------------------------------------------------------------


def test_r17_r19_r22_chapter_opening_budget_exact_result() -> None:
    """§7 / §8 test 7: system 3, available 22, keeps u2..a3, reason trimmed, exact tokens."""
    path = fx.opening_path()
    result = build_context(path, **fx.OPENING_BUDGET, estimate_tokens=teaching_estimator)
    assert list(result.kept_entry_ids) == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
    assert result.reason == "trimmed"
    assert to_json_dict(result.tokens) == {
        "maxTokens": 31,
        "system": 3,
        "messages": 22,
        "reservedOutput": 4,
        "safetyMargin": 2,
        "availableForMessages": 22,
        "total": 31,
    }
    by_id = {entry.id: entry for entry in path}
    expected = [by_id["sys"].message] + [by_id[i].message for i in result.kept_entry_ids]
    assert list(result.messages) == expected
    assert set(to_json_dict(result)) == {"messages", "keptEntryIds", "reason", "tokens"}


def test_fixture_costs_match_the_chapter_table() -> None:
    """§7's cost column, so the other numbers can be checked by hand."""
    assert {e.id: teaching_estimator(e.message) for e in fx.opening_path()} == fx.OPENING_COSTS
    assert fx.OPENING_COSTS == {
        "sys": 3,
        "u1": 3,
        "a1": 4,
        "u2": 3,
        "a2": 4,
        "u3": 3,
        "calls": 3,
        "r-test": 3,
        "r-read": 3,
        "a3": 3,
    }


def test_r20_tight_budget_returns_the_newest_group_whole_with_overflow() -> None:
    """§7 / §8 test 8: 10 left for messages, the third group costs 15."""
    result = build_context(fx.opening_path(), **fx.TIGHT_BUDGET, estimate_tokens=teaching_estimator)
    assert result.reason == "single_group_overflow"
    assert list(result.kept_entry_ids) == ["u3", "calls", "r-test", "r-read", "a3"]
    assert result.tokens.available_for_messages == 10
    assert result.tokens.messages == 15
    assert result.tokens.total == 3 + 15 + 4 + 2 > fx.TIGHT_BUDGET["max_tokens"]
    assert [m.role for m in result.messages] == ["system", "user", "assistant", "toolResult", "toolResult", "assistant"]


def test_r18_resumed_fixture_path_within_budget() -> None:
    """§7: after compact-1 and u4 → a4 the rebuild is [sys, summary, u2 … a3, u4, a4]."""
    path = fx.resumed_path()
    compaction = next(e for e in path if e.type == "compaction")
    assert (compaction.id, compaction.parent_id, compaction.first_kept_entry_id) == ("compact-1", "a3", "u2")
    result = build_context(path, **fx.RESUME_BUDGET, estimate_tokens=teaching_estimator)
    assert result.reason == "within_budget"
    assert list(result.kept_entry_ids) == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]
    summary = result.messages[1]
    assert summary.role == "user" and summary.timestamp == 100
    assert summary.content[0].text == compaction_summary_text(compaction.summary)
    assert [m.role for m in result.messages[:2]] == ["system", "user"]
    by_id = {e.id: e for e in path}
    assert list(result.messages[2:]) == [by_id[i].message for i in result.kept_entry_ids]
    summary_cost = teaching_estimator(summary)
    assert result.tokens.messages == summary_cost + sum(fx.OPENING_COSTS[i] for i in result.kept_entry_ids[:7]) + 4 + 4
    assert result.tokens.total <= fx.RESUME_BUDGET["max_tokens"]


def test_r16_r18_system_replay_path_projects_across_the_compaction() -> None:
    """§7 / §8 test 15: the replayed system (R6) comes from the whole path, then the summary, then u2..a3."""
    path = fx.system_replay_path()
    result = build_context(path, **fx.RESUME_BUDGET, estimate_tokens=teaching_estimator)
    assert list(result.kept_entry_ids) == ["u2", "a2", "u3", "a3"]
    assert result.reason == "within_budget"
    system, summary, *rest = result.messages
    assert to_json_dict(system) == {
        "role": "system",
        "content": "BASE\n\nPrefer small diffs.",
        "sections": {"rules": "RULE v2"},
        "timestamp": 1,
    }
    assert summary.role == "user" and summary.content[0].text.startswith("[Compaction summary]\n")
    assert "BASE" not in summary.content[0].text and "RULE" not in summary.content[0].text
    by_id = {e.id: e for e in path}
    assert rest == [by_id[i].message for i in ("u2", "a2", "u3", "a3")]
    assert result.tokens.system == teaching_estimator(system) == 6


# --- R15 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["max_tokens", "reserved_output", "safety_margin"])
@pytest.mark.parametrize("bad", [-1, math.nan, math.inf, True, "10", None])
def test_r15_budget_options_must_be_finite_non_negative_numbers(option: str, bad: Any) -> None:
    options: dict[str, Any] = {"max_tokens": 100, "reserved_output": 0, "safety_margin": 0}
    options[option] = bad
    with pytest.raises(ValueError, match=option):
        build_context(fx.opening_path(), **options, estimate_tokens=teaching_estimator)


@pytest.mark.parametrize("bad", [-1, math.nan, -math.inf, math.inf, True, False, "3", None])
def test_r15_estimator_values_must_be_finite_non_negative_numbers(bad: Any) -> None:
    with pytest.raises(ValueError, match="estimate_tokens"):
        _build(fx.opening_path(), max_tokens=100, estimate_tokens=lambda message: bad)


def test_r15_zero_and_float_budgets_and_costs_are_fine() -> None:
    result = _build(_groups(1, 1).entries, max_tokens=2.5, estimate_tokens=lambda m: 1.25)
    assert result.reason == "within_budget"
    assert result.tokens.messages == 2.5
    empty = _build(_groups(1).entries, max_tokens=0, estimate_tokens=lambda m: 0)
    assert empty.reason == "within_budget"


def test_r15_the_estimator_sees_copies_never_the_callers_objects() -> None:
    path = fx.opening_path()
    before = to_json_dict(path)
    originals = {id(e.message) for e in path}
    seen: list[Any] = []

    def meddling(message: Any) -> int:
        seen.append(message)
        for block in getattr(message, "content", ()):
            if isinstance(block, ToolCall):
                block.arguments["path"] = "hacked.ts"
                block.arguments["new"] = [1]
        if isinstance(message, SystemMessage) and message.sections is not None:
            message.sections["evil"] = "x"
        return teaching_estimator(message)

    result = _build(path, max_tokens=1000, estimate_tokens=meddling)
    assert seen and not originals & {id(m) for m in seen}
    assert to_json_dict(path) == before
    calls = next(m for m in result.messages if m.role == "assistant" and len(m.content) > 1)
    assert calls.content[1].arguments == {"path": "context.ts"}


# --- R16, R17 ----------------------------------------------------------------------------------


def test_r16_without_a_system_message_system_costs_zero_and_everything_fits() -> None:
    """§8 test 7, second half."""
    path = fx.opening_path()[1:]
    result = build_context(path, **fx.OPENING_BUDGET, estimate_tokens=teaching_estimator)
    assert result.tokens.system == 0
    assert result.tokens.available_for_messages == 25
    assert result.reason == "trimmed"  # 29 > 25
    wide = build_context(path, max_tokens=35, reserved_output=4, safety_margin=2, estimate_tokens=teaching_estimator)
    assert wide.reason == "within_budget"
    assert list(wide.kept_entry_ids) == [e.id for e in path]
    assert wide.messages[0].role == "user"


def test_r16_system_prompt_before_a_compaction_still_applies() -> None:
    path = fx.resumed_path()
    result = _build(path, max_tokens=1000)
    assert result.messages[0] == path[0].message
    assert "sys" not in result.kept_entry_ids


def test_r16_system_messages_are_replayed_from_anywhere_on_the_path_and_counted_once() -> None:
    path = (
        PathBuilder()
        .user("u1", "a b")
        .system("late", "S T U")
        .assistant("a1", "c")
        .system("later", "", sections={"k": "V W"})
        .entries
    )
    costs: list[str] = []

    def counting(message: Any) -> int:
        costs.append(message.role)
        return teaching_estimator(message)

    result = _build(path, max_tokens=100, estimate_tokens=counting)
    assert result.messages[0].role == "system"
    assert result.tokens.system == 5
    assert costs.count("system") == 1
    assert [m.role for m in result.messages] == ["system", "user", "assistant"]
    assert list(result.kept_entry_ids) == ["u1", "a1"]


def test_r17_fixed_costs_are_deducted_first_and_available_never_negative() -> None:
    result = build_context(
        fx.opening_path(), max_tokens=5, reserved_output=4, safety_margin=2, estimate_tokens=teaching_estimator
    )
    assert result.tokens.available_for_messages == 0
    assert result.reason == "single_group_overflow"
    assert result.tokens.total == 3 + 15 + 4 + 2


def test_r17_each_fixed_cost_shrinks_what_is_left_for_messages() -> None:
    path = _groups(5, 5, 5).entries
    assert _build(path, max_tokens=15).reason == "within_budget"
    assert list(_build(path, max_tokens=15, reserved_output=1).kept_entry_ids) == ["u2", "u3"]
    assert list(_build(path, max_tokens=15, safety_margin=1).kept_entry_ids) == ["u2", "u3"]
    with_system = PathBuilder(path).system("sys", "s").entries
    assert list(_build(with_system, max_tokens=15).kept_entry_ids) == ["u2", "u3"]


# --- R18 ---------------------------------------------------------------------------------------


def _compaction(path: list, first_kept: str, id: str = "compact-x", **summary: Any) -> Any:
    wire = compaction_wire(id=id, parent=path[-1].id)
    wire["firstKeptEntryId"] = first_kept
    wire["timestamp"] = path[-1].timestamp + 1
    wire["summary"].update(summary)
    return parse_session_entry(wire)


def test_r18_only_the_latest_compaction_is_read() -> None:
    """§8 test 13: the first summary is superseded; empty lists render ``- (none)``."""
    builder = _groups(1, 1, 1, 1)
    builder.add(_compaction(builder.entries, "u2", id="c-old", goal="OLD GOAL"))
    builder.user("u5", "w")
    builder.add(
        _compaction(
            builder.entries,
            "u4",
            id="c-new",
            goal="NEW GOAL",
            constraints=[],
            completed=[],
            decisions=[],
            changedFiles=[],
            unresolved=[],
            next=[],
        )
    )
    result = _build(builder.entries, max_tokens=1000)
    texts = [m.content[0].text for m in result.messages if m.role == "user"]
    assert sum("[Compaction summary]" in t for t in texts) == 1
    assert "NEW GOAL" in texts[0] and "OLD GOAL" not in "".join(texts)
    assert texts[0].count("- (none)") == 6
    assert list(result.kept_entry_ids) == ["u4", "u5"]


def test_r18_summary_cost_is_deducted_before_groups_are_chosen() -> None:
    builder = _groups(2, 2, 2)
    compaction = _compaction(builder.entries, "u1")
    builder.add(compaction)
    summary_cost = len(compaction_summary_text(compaction.summary).split())
    result = _build(builder.entries, max_tokens=summary_cost + 4)
    assert list(result.kept_entry_ids) == ["u2", "u3"]
    assert result.reason == "trimmed"
    assert result.tokens.messages == summary_cost + 4
    assert _build(builder.entries, max_tokens=summary_cost + 6).reason == "within_budget"


def test_r18_summary_message_comes_right_after_system_with_compaction_timestamp() -> None:
    builder = PathBuilder().system("sys", "S").user("u1", "a").user("u2", "b")
    compaction = _compaction(builder.entries, "u2")
    builder.add(compaction).user("u3", "c")
    result = _build(builder.entries, max_tokens=1000)
    assert [m.role for m in result.messages] == ["system", "user", "user", "user"]
    summary = result.messages[1]
    assert summary.timestamp == compaction.timestamp
    assert to_json_dict(summary)["content"] == [{"type": "text", "text": compaction_summary_text(compaction.summary)}]
    assert list(result.kept_entry_ids) == ["u2", "u3"]


def test_r18_metadata_compaction_and_suffix_system_entries_are_skipped() -> None:
    builder = PathBuilder().system("sys", "base").user("u1", "a").user("u2", "b").metadata("m1", "k", 1)
    builder.add(_compaction(builder.entries, "u2"))
    builder.system("patch", "more").metadata("m2", "k", 2).assistant("a2", "c")
    result = _build(builder.entries, max_tokens=1000)
    assert list(result.kept_entry_ids) == ["u2", "a2"]
    assert result.messages[0].content == "base\n\nmore"
    assert [m.role for m in result.messages] == ["system", "user", "user", "assistant"]


@pytest.mark.parametrize(
    ("first_kept", "reason"),
    [
        ("a1", "not a user message"),
        ("ghost", "not on the path"),
        ("u3", "not on the path before it"),
        ("m1", "not a user message"),
        ("compact-x", "not a user message"),  # itself: on the path, not after itself, and no message
    ],
)
def test_r18_first_kept_must_be_a_user_message_before_the_compaction(first_kept: str, reason: str) -> None:
    """A hand-written (or foreign) compaction entry that breaks R18 is refused when resuming."""
    builder = PathBuilder().user("u1", "a").assistant("a1", "b").metadata("m1", "k", 0)
    builder.add(_compaction(builder.entries, first_kept)).user("u3", "c")
    with pytest.raises(CompactionError, match=reason) as info:
        _build(builder.entries, max_tokens=1000)
    assert info.value.entry_id == first_kept


def test_r12_r18_a_broken_group_after_first_kept_is_an_error() -> None:
    """Groups are still checked after a resume: a result without its call is refused."""
    builder = (
        PathBuilder()
        .user("u1", "a")
        .assistant("c", tool_calls=[("k", "read", {})])
        .tool_result("r", "k", "read", "ok")
        .user("u2", "b")
    )
    builder.add(_compaction(builder.entries, "u2")).tool_result("stray", "k", "read", "late")
    with pytest.raises(InteractionError, match="'stray'"):
        _build(builder.entries, max_tokens=1000)


# --- R19, R20 ------------------------------------------------------------------------------------


def test_r19_stops_at_the_first_group_that_does_not_fit() -> None:
    """An older, smaller group that would fit is not kept: the kept part stays contiguous."""
    path = _groups(1, 10, 2).entries
    result = _build(path, max_tokens=5)
    assert list(result.kept_entry_ids) == ["u3"]
    assert result.reason == "trimmed"
    assert result.tokens.messages == 2


def test_r19_trims_only_at_group_boundaries() -> None:
    """§8 test 9: a budget that would fit part of a group drops the whole group."""
    path = fx.opening_path()
    for max_tokens in range(9, 40):
        result = build_context(
            path, max_tokens=max_tokens, reserved_output=4, safety_margin=2, estimate_tokens=teaching_estimator
        )
        kept = list(result.kept_entry_ids)
        assert kept in (
            ["u3", "calls", "r-test", "r-read", "a3"],
            ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"],
            ["u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3"],
        ), max_tokens


def test_r19_a_group_that_fits_exactly_is_kept() -> None:
    result = _build(_groups(3, 4).entries, max_tokens=7)
    assert result.reason == "within_budget"
    assert result.tokens.total == 7


def test_r20_empty_path_is_within_budget() -> None:
    result = _build([], max_tokens=10, reserved_output=3)
    assert (result.messages, result.kept_entry_ids, result.reason) == ((), (), "within_budget")
    assert to_json_dict(result.tokens) == {
        "maxTokens": 10, "system": 0, "messages": 0, "reservedOutput": 3,
        "safetyMargin": 0, "availableForMessages": 7, "total": 3,
    }  # fmt: skip


def test_r20_system_only_path_is_within_budget() -> None:
    result = _build(PathBuilder().system("sys", "a b").entries, max_tokens=1)
    assert result.reason == "within_budget"
    assert [m.role for m in result.messages] == ["system"]
    assert result.kept_entry_ids == ()


def test_r20_overflow_when_the_summary_leaves_no_room_for_the_newest_group() -> None:
    builder = _groups(1, 1)
    compaction = _compaction(builder.entries, "u2")
    builder.add(compaction)
    summary_cost = len(compaction_summary_text(compaction.summary).split())
    result = _build(builder.entries, max_tokens=summary_cost)
    assert result.reason == "single_group_overflow"
    assert list(result.kept_entry_ids) == ["u2"]
    assert result.tokens.total == summary_cost + 1


# --- R21, R22, R23 -------------------------------------------------------------------------------


def test_r21_messages_are_deep_copies_and_kept_ids_are_originals_only() -> None:
    path = fx.resumed_path()
    result = _build(path, max_tokens=1000)
    assert shared_containers(result.messages, path) == []
    ids = {e.id for e in path}
    assert set(result.kept_entry_ids) <= ids
    assert len(result.messages) == len(result.kept_entry_ids) + 2


def test_r22_tokens_add_up_with_the_chars_estimator() -> None:
    path = fx.resumed_path()
    result = build_context(
        path, max_tokens=60, reserved_output=7, safety_margin=3, estimate_tokens=estimate_tokens_chars
    )
    tokens = result.tokens
    assert tokens.system == estimate_tokens_chars(path[0].message)
    assert tokens.messages == sum(estimate_tokens_chars(m) for m in result.messages[1:])
    assert tokens.total == tokens.system + tokens.messages + 7 + 3
    assert tokens.available_for_messages == max(0, 60 - tokens.system - 7 - 3)


def test_r23_two_builds_are_deep_equal_and_independent() -> None:
    """§8 tests 9 and 13: mutate tool arguments of one result; the path and a later build are unchanged."""
    path = fx.opening_path()
    before = to_json_dict(path)
    first = _build(path, max_tokens=1000)
    second = _build(path, max_tokens=1000)
    assert first == second
    assert shared_containers(first, second) == []
    calls = next(m for m in first.messages if m.role == "assistant" and len(m.content) > 1)
    calls.content[1].arguments["path"] = "evil.ts"
    calls.content[2].arguments.clear()
    assert to_json_dict(path) == before
    assert _build(path, max_tokens=1000) == second


def test_r23_summary_in_one_result_cannot_leak_into_the_next() -> None:
    path = fx.resumed_path()
    first = _build(path, max_tokens=1000)
    data = to_json_dict(first)
    data["messages"][1]["content"][0]["text"] = "tampered"
    with pytest.raises(Exception):  # noqa: B017,PT011 - frozen pydantic model
        first.messages[1].content[0].text = "tampered"
    again = _build(path, max_tokens=1000)
    assert again == first
    assert again.messages[1].content[0].text.startswith("[Compaction summary]")


def test_r23_build_context_accepts_wire_dicts_and_leaves_them_alone() -> None:
    wires = to_json_dict(fx.opening_path())
    snapshot = to_json_dict(fx.opening_path())
    result = build_context(wires, **fx.OPENING_BUDGET, estimate_tokens=teaching_estimator)
    assert result.kept_entry_ids[0] == "u2"
    assert wires == snapshot


# --- §8 tests 12 and 14 ---------------------------------------------------------------------------


def test_r18_resume_through_path_to_with_a_sibling_branch() -> None:
    """§8 test 12: only the latest summary plus the kept suffix; sibling and summarized messages absent."""
    store = InMemorySessionStore()
    for entry in fx.resumed_path():
        store.append(entry)
    store.append(PathBuilder(fx.opening_path()).user("side", "a sibling branch from a3").entries[-1])
    path = path_to(store.entries(), "a4")
    result = build_context(path, **fx.RESUME_BUDGET, estimate_tokens=teaching_estimator)
    assert list(result.kept_entry_ids) == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]
    assert result.messages[1].content[0].text == (
        "[Compaction summary]\n"
        "Goal: Verify session restore and JSONL writes.\n"
        "Constraints:\n- History is append-only.\n"
        "Completed:\n- Checked the session-restore logic.\n"
        "Decisions:\n- Restore only the active path.\n"
        "Changed files:\n- (none)\n"
        "Unresolved:\n- (none)\n"
        "Next:\n- Add a regression test."
    )
    all_text = str(to_json_dict(result.messages))
    for absent in ("a sibling branch", "Check session-restore logic.", "Restores only chosen branch."):
        assert absent not in all_text


def test_r19_tight_budget_after_resume_trims_only_whole_groups() -> None:
    """§8 test 14 (budget half)."""
    path = fx.resumed_path()
    summary_cost = 40
    for room in range(40):
        result = _build(path, max_tokens=3 + summary_cost + room)
        kept = list(result.kept_entry_ids)
        assert kept in (
            ["u4", "a4"],
            ["u3", "calls", "r-test", "r-read", "a3", "u4", "a4"],
            ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "u4", "a4"],
        ), room
    assert _build(path, max_tokens=3 + summary_cost + 7).reason == "single_group_overflow"


# --- where the chapter's reference decides (run side by side with it) -------------------


def test_r17_r18_a_summary_larger_than_the_allowance_leaves_zero_room_not_less() -> None:
    """The summary (7) exceeds the 5 available: groups get max(0, 5 - 7) = 0, so zero-cost groups still fit."""
    from course_lib import PathBuilder
    from course_lib.fixtures import compact_1_wire

    path = PathBuilder().user("u1", "").assistant("a1", "").user("u2", "").entries
    path = [*path, parse_session_entry(compact_1_wire(parent_id="u2", firstKeptEntryId="u1"))]

    def estimate(message: object) -> int:
        text = getattr(message, "content", ())
        return 7 if text and getattr(text[0], "text", "").startswith("[Compaction summary]") else 0

    result = build_context(path, max_tokens=5, reserved_output=0, safety_margin=0, estimate_tokens=estimate)
    assert list(result.kept_entry_ids) == ["u1", "a1", "u2"]
    assert result.reason == "within_budget"
    assert (result.tokens.available_for_messages, result.tokens.messages, result.tokens.total) == (5, 7, 7)


def test_r15_every_candidate_is_estimated_even_one_the_selection_never_reaches() -> None:
    """u1's estimate is invalid; the budget would stop before u1, yet the build is refused (R15)."""
    from course_lib import PathBuilder

    path = PathBuilder().user("u1", "x").user("u2", "y").user("u3", "z").entries
    costs = {"x": -1, "y": 5, "z": 3}
    with pytest.raises(ValueError, match="u1"):
        build_context(
            path,
            max_tokens=4,
            reserved_output=0,
            safety_margin=0,
            estimate_tokens=lambda message: costs[message.content[0].text],
        )
