"""Lab 11.2's checks: interaction groups (R11–R14), each a copy of the caller's entries."""

from __future__ import annotations

import functools
from typing import Any

from ... import fixtures, tool_facts
from ...teaching.catalogues import broken_tool_facts
from ...teaching.catalogues.shorthand import shorthand_path
from ..check import Implementation, LabChecks
from ..expect import expect, expect_equal, expect_independent, expect_rejects, wire
from .shared import GROUP_3

CHECKS = LabChecks("11.2")


def _ids(groups: Any) -> list[list[str]]:
    return [[entry.id for entry in group.entries] for group in groups]


@CHECKS.case(4, "R11 R13")
def test_two_groups_as_isolated_copies(impl: Implementation) -> None:
    path = fixtures.opening_path()[1:5]  # u1, a1, u2, a2
    before = wire(path)
    groups = impl.group_interactions(path)
    expect_equal(_ids(groups), [["u1", "a1"], ["u2", "a2"]], "R11", "groups of [u1, a1, u2, a2]")
    expect_independent(path, [group.entries for group in groups], "R13", "the input and the groups")
    expect(
        all(a is not b for group in groups for a in group.entries for b in path),
        "R13",
        "groups must hold copies of the entries, not the caller's objects",
    )
    expect_equal(wire(path), before, "R13", "the input after grouping")
    opening = impl.group_interactions(fixtures.opening_path())
    expect_equal(
        _ids(opening), [["u1", "a1"], ["u2", "a2"], GROUP_3], "R11/R14", "groups of the opening path (sys in none)"
    )


@CHECKS.case(5, "R12 R13 R14")
def test_out_of_order_results_stay_one_group(impl: Implementation) -> None:
    for case in broken_tool_facts.GROUPABLE:
        path = shorthand_path(case.shorthand)
        before = wire(path)
        groups = impl.group_interactions(path)
        expect_equal(_ids(groups), case.groups, case.rule, case.why)
        calls = next((entry for group in groups for entry in group.entries if tool_facts.tool_call_ids(entry)), None)
        if calls is not None:
            calls.message.content[1].arguments["path"] = "changed.ts"
        expect_equal(wire(path), before, "R13", "the input after changing a grouped tool call's arguments")


@CHECKS.case(6, "R11 R12")
def test_broken_tool_facts_are_rejected(impl: Implementation) -> None:
    for broken in broken_tool_facts.BROKEN:
        expect_rejects(
            "R11/R12", broken.what, functools.partial(impl.group_interactions, broken.chapter_path()), broken.names
        )
