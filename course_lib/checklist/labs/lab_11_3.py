"""Lab 11.3's checks: ``build_context`` without compaction, its fixed costs, its budget and whole groups (R15–R23)."""

from __future__ import annotations

from ... import fixtures
from ...builders import PathBuilder
from ...teaching.wording import say
from ..check import Implementation, LabChecks
from ..expect import expect, expect_equal, wire
from .shared import (
    GROUP_2_AND_3,
    GROUP_3,
    PATCHED_SYSTEM,
    Selection,
    build,
    change_a_tool_argument,
    costed,
    expect_budget_guards,
    expect_history_stays,
    observe_head,
)

CHECKS = LabChecks("11.3")

OPENING_TOKENS = {
    "maxTokens": 31, "system": 3, "messages": 22, "reservedOutput": 4,
    "safetyMargin": 2, "availableForMessages": 22, "total": 31,
}  # fmt: skip
TIGHT_TOKENS = {
    "maxTokens": 19, "system": 3, "messages": 15, "reservedOutput": 4,
    "safetyMargin": 2, "availableForMessages": 10, "total": 24,
}  # fmt: skip
"""The tokens of a build at the chapter's tight budget (max 19): named here, since Babel reads a sentence after a
dict literal in a call as the wrong argument."""


@CHECKS.case(7, "R15 R16 R17 R22")
def test_fixed_costs_come_first(impl: Implementation) -> None:
    result = build(impl, fixtures.opening_path(), fixtures.OPENING_BUDGET)
    observe_head(result, say("the chapter's budget"))
    expect_equal(wire(result.tokens), OPENING_TOKENS, "R17/R22", "tokens for max 31, reserved 4, margin 2")
    expect_equal(list(result.kept_entry_ids), GROUP_2_AND_3, "R19", "kept_entry_ids for the chapter's budget")
    expect_equal(result.reason, "trimmed", "R20", "reason when group 1 is dropped")
    expect_equal(
        [m.role for m in result.messages],
        ["system", "user", "assistant", "user", "assistant", "toolResult", "toolResult", "assistant"],
        "R21",
        "message roles (system first, then groups 2 and 3)",
    )
    bigger_reserve = build(impl, fixtures.opening_path(), fixtures.OPENING_BUDGET, reserved_output=10)
    expect_equal(bigger_reserve.tokens.available_for_messages, 16, "R17", "available with reserved_output 10")
    expect_equal(list(bigger_reserve.kept_entry_ids), GROUP_2_AND_3[2:], "R19", "kept ids when only 16 are left")
    starved = build(impl, fixtures.opening_path(), fixtures.OPENING_BUDGET, max_tokens=5)
    expect_equal(
        starved.tokens.available_for_messages, 0, "R17", "available when fixed costs exceed max_tokens (never negative)"
    )
    no_system = build(impl, fixtures.opening_path()[1:], {"max_tokens": 31, "reserved_output": 0, "safety_margin": 2})
    expect_equal(no_system.tokens.system, 0, "R16", "tokens.system without a system message")
    expect_equal(no_system.reason, "within_budget", "R20", "reason when all 29 tokens fit")
    expect_equal(no_system.messages[0].role, "user", "R21", "first message without a system message")
    empty = build(impl, [], fixtures.OPENING_BUDGET)
    expect_equal(
        (list(empty.kept_entry_ids), len(empty.messages), empty.reason, empty.tokens.total),
        ([], 0, "within_budget", 6),
        "R20",
        "an empty path (kept ids, messages, reason, total)",
    )
    patching = (
        PathBuilder().system("sys", "BASE", sections={"rules": "RULE v1"}).user("u1", "Hi.").assistant("a1", "Hello.")
    )
    patched = patching.system("patch", "Prefer small diffs.", sections={"rules": "RULE v2"}).user("u2", "More.").entries
    replayed = build(impl, patched, {"max_tokens": 200, "reserved_output": 0, "safety_margin": 0})
    expect_equal(
        wire(replayed.messages[0]),
        PATCHED_SYSTEM,
        "R5/R16",
        "the system message replayed from every system message on the path",
    )
    expect_budget_guards(impl, fixtures.opening_path())
    labelled = PathBuilder(fixtures.opening_path()).metadata("label", "label", "reviewed")
    expect_history_stays(
        impl, labelled.user("u4", "Add a test.").assistant("a4", "Added.").entries, say("a path with metadata")
    )


@CHECKS.case(8, "R20")
def test_newest_group_alone_over_budget(impl: Implementation) -> None:
    result = build(impl, fixtures.opening_path(), fixtures.TIGHT_BUDGET)
    expect_equal(result.reason, "single_group_overflow", "R20", "reason when only 10 are left for a group of 15")
    expect_equal(list(result.kept_entry_ids), GROUP_2_AND_3[2:], "R20", "the newest group must still be returned whole")
    expect_equal(result.tokens.total, 24, "R22", "total (3 + 15 + 4 + 2)")
    expect_equal(wire(result.tokens), TIGHT_TOKENS, "R22", "tokens for max 19, reserved 4, margin 2")
    expect(
        result.tokens.total > result.tokens.max_tokens, "R20", "total may exceed max_tokens for a single group overflow"
    )


@CHECKS.case(9, "R19 R21 R23")
def test_trims_only_at_group_boundaries(impl: Implementation) -> None:
    opening = Selection([["u1", "a1"], ["u2", "a2"], GROUP_3], [7, 7, 15], fixed=9)
    for max_tokens in range(9, 42):
        result = build(impl, fixtures.opening_path(), fixtures.OPENING_BUDGET, max_tokens=max_tokens)
        expect_equal(
            {"kept_entry_ids": list(result.kept_entry_ids), "reason": result.reason},
            opening.expected(max_tokens, "kept_entry_ids", "reason"),
            "R19/R20",
            say("kept ids and reason at max_tokens={max_tokens}", max_tokens=max_tokens),
        )
    ladder = PathBuilder().user("u1", "u1").user("u2", "u2").user("u3", "u3").entries
    stopped = impl.build_context(
        ladder, max_tokens=10, reserved_output=0, safety_margin=0, estimate_tokens=costed({"u1": 2, "u2": 14, "u3": 3})
    )
    expect_equal(
        list(stopped.kept_entry_ids),
        ["u3"],
        "R19",
        "kept ids when u2 (14) does not fit after u3 (3) in 10, though u1 (2) would: the selection stops there",
    )
    path = fixtures.opening_path()
    before = wire(path)
    first = build(impl, path, fixtures.OPENING_BUDGET)
    change_a_tool_argument(first)
    expect_equal(wire(path), before, "R23", "the session after changing a returned tool argument")
    second = build(impl, path, fixtures.OPENING_BUDGET)
    expect(wire(second) != wire(first), "R23", "a later build must not see a change made to an earlier result")
