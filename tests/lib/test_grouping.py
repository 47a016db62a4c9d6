"""Interaction groups (R11–R14; §8 tests 4–6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import pytest
from wire_samples import shared_containers

from course_lib import (
    InteractionError,
    InteractionGroup,
    MessageEntry,
    PathBuilder,
    SessionEntry,
    group_interactions,
    to_json_dict,
)
from course_lib.fixtures import opening_path


def _group(entries: Sequence[SessionEntry]) -> list[InteractionGroup]:
    """``group_interactions`` on a builder's entries: typed as message entries, it refuses any other kind when run."""
    return group_interactions(cast(Sequence[MessageEntry], entries))


def _ids(groups: list) -> list[list[str]]:
    return [[entry.id for entry in group.entries] for group in groups]


def test_r11_two_exchanges_make_two_groups_as_isolated_copies() -> None:
    """§8 test 4."""
    path = PathBuilder().user("u1", "a").assistant("a1", "b").user("u2", "c").assistant("a2", "d").entries
    before = to_json_dict(path)
    groups = _group(path)
    assert _ids(groups) == [["u1", "a1"], ["u2", "a2"]]
    assert groups[0].entries[0] == path[0] and groups[0].entries[0] is not path[0]
    assert shared_containers(groups[0].entries, path) == []
    path.append(path[0])
    assert _ids(groups) == [["u1", "a1"], ["u2", "a2"]]
    assert to_json_dict(path[:4]) == before


def test_r13_groups_are_copies_even_for_mutable_tool_arguments() -> None:
    path = (
        PathBuilder()
        .user("u1", "go")
        .assistant("c", tool_calls=[("k", "read", {"p": ["x"]})])
        .tool_result("r", "k", "read", "ok")
        .entries
    )
    group = _group(path)[0]
    group.entries[1].message.content[0].arguments["p"].append("y")
    assert path[1].message.content[0].arguments == {"p": ["x"]}
    assert _group(path)[0].entries[1].message.content[0].arguments == {"p": ["x"]}


def test_r11_each_user_message_opens_a_group_even_without_a_reply() -> None:
    path = PathBuilder().user("u1", "a").user("u2", "b").assistant("a2", "c").user("u3", "d").entries
    assert _ids(_group(path)) == [["u1"], ["u2", "a2"], ["u3"]]


def test_r11_empty_input_has_no_groups() -> None:
    assert _group([]) == []


@pytest.mark.parametrize("first", ["assistant", "tool_result"])
def test_r11_a_non_system_message_before_the_first_user_is_an_error_naming_it(first: str) -> None:
    """§8 test 6 (orphan): an assistant or tool result with no user message before it."""
    builder = PathBuilder().system("sys", "S")
    if first == "assistant":
        builder.assistant("orphan", "hi")
    else:
        builder.tool_result("orphan", "k", "read", "ok")
    builder.user("u1", "a")
    with pytest.raises(InteractionError, match="'orphan'") as info:
        _group(builder.entries)
    assert info.value.entry_ids == ("orphan",)


def test_r12_out_of_order_results_with_progress_between_stay_one_group_in_path_order() -> None:
    """§8 test 5: completion order and position do not matter, only ids."""
    path = opening_path()
    extra = (
        PathBuilder(path)
        .user("u4", "again")
        .assistant("calls-2", tool_calls=[("x", "read", {}), ("y", "test", {}), ("z", "grep", {})])
        .tool_result("r-z", "z", "grep", "found")
        .assistant("progress", "two to go")
        .tool_result("r-x", "x", "read", "read it")
        .assistant("progress-2", "one to go")
        .tool_result("r-y", "y", "test", "passed")
        .assistant("a4", "done")
    ).entries
    groups = _group(extra)
    assert _ids(groups) == [
        ["u1", "a1"],
        ["u2", "a2"],
        ["u3", "calls", "r-test", "r-read", "a3"],
        ["u4", "calls-2", "r-z", "progress", "r-x", "progress-2", "r-y", "a4"],
    ]


def test_r12_calls_may_come_from_several_assistant_messages_of_one_group() -> None:
    path = (
        PathBuilder()
        .user("u1", "go")
        .assistant("c1", tool_calls=[("k1", "read", {})])
        .assistant("c2", tool_calls=[("k2", "read", {})])
        .tool_result("r2", "k2", "read", "b")
        .tool_result("r1", "k1", "read", "a")
    ).entries
    assert _ids(_group(path)) == [["u1", "c1", "c2", "r2", "r1"]]


def _bad_group(builder: PathBuilder) -> InteractionError:
    with pytest.raises(InteractionError) as info:
        _group(builder.entries)
    return info.value


def test_r12_result_for_an_unknown_call_names_call_and_entry() -> None:
    error = _bad_group(
        PathBuilder()
        .user("u1", "go")
        .assistant("c", tool_calls=[("k", "read", {})])
        .tool_result("r-k", "k", "read", "ok")
        .tool_result("r-q", "q", "read", "?")
    )
    assert error.call_id == "q"
    assert "r-q" in error.entry_ids
    assert "'q'" in str(error) and "'r-q'" in str(error)


def test_r12_result_for_a_call_of_another_group_is_unknown() -> None:
    """Calls are matched within the same group only."""
    builder = (
        PathBuilder()
        .user("u1", "go")
        .assistant("c", tool_calls=[("k", "read", {})])
        .tool_result("r-k", "k", "read", "ok")
        .user("u2", "more")
        .tool_result("r-k2", "k", "read", "again")
    )
    error = _bad_group(builder)
    assert (error.call_id, error.entry_ids) == ("k", ("r-k2",))


def test_r12_duplicate_call_names_call_and_both_entries() -> None:
    error = _bad_group(
        PathBuilder()
        .user("u1", "go")
        .assistant("c1", tool_calls=[("k", "read", {})])
        .assistant("c2", tool_calls=[("k", "read", {})])
        .tool_result("r", "k", "read", "ok")
    )
    assert error.call_id == "k"
    assert set(error.entry_ids) == {"c1", "c2"}
    assert "'c1'" in str(error) and "'c2'" in str(error)


def test_r12_duplicate_call_inside_one_message_is_refused() -> None:
    error = _bad_group(
        PathBuilder()
        .user("u1", "go")
        .assistant("c1", tool_calls=[("k", "read", {}), ("k", "test", {})])
        .tool_result("r", "k", "read", "ok")
    )
    assert error.call_id == "k"
    assert "c1" in error.entry_ids


def test_r12_duplicate_result_names_call_and_both_results() -> None:
    error = _bad_group(
        PathBuilder()
        .user("u1", "go")
        .assistant("c", tool_calls=[("k", "read", {})])
        .tool_result("r1", "k", "read", "ok")
        .tool_result("r2", "k", "read", "again")
    )
    assert error.call_id == "k"
    assert set(error.entry_ids) == {"r1", "r2"}


@pytest.mark.parametrize("closed_by_user", [True, False])
def test_r12_call_without_result_when_the_group_ends_names_call_and_entry(closed_by_user: bool) -> None:
    builder = (
        PathBuilder()
        .user("u1", "go")
        .assistant("c", tool_calls=[("k", "read", {}), ("m", "test", {})])
        .tool_result("r-k", "k", "read", "ok")
    )
    if closed_by_user:
        builder.user("u2", "next")
    error = _bad_group(builder)
    assert (error.call_id, error.entry_ids) == ("m", ("c",))
    assert "'m'" in str(error) and "'c'" in str(error)


def test_r12_result_before_its_call_still_matches_by_id() -> None:
    """Position does not matter: R12 checks ids per group, not order."""
    path = (
        PathBuilder()
        .user("u1", "go")
        .tool_result("r", "k", "read", "ok")
        .assistant("c", tool_calls=[("k", "read", {})])
        .entries
    )
    assert _ids(_group(path)) == [["u1", "r", "c"]]


def test_r14_system_messages_neither_split_nor_join_groups() -> None:
    path = (
        PathBuilder()
        .system("sys", "S")
        .user("u1", "go")
        .system("patch-in", "inside")
        .assistant("c", tool_calls=[("k", "read", {})])
        .system("patch-mid", "", sections={"x": "y"})
        .tool_result("r", "k", "read", "ok")
        .system("patch-between", "between")
        .user("u2", "next")
        .assistant("a2", "done")
        .system("patch-end", "end")
    ).entries
    assert _ids(_group(path)) == [["u1", "c", "r"], ["u2", "a2"]]


def test_r14_only_system_messages_make_no_groups() -> None:
    assert _group(PathBuilder().system("s1", "a").system("s2", "b").entries) == []


def test_r11_non_message_entries_are_refused() -> None:
    """``group_interactions`` takes message entries; a metadata entry is an error naming it."""
    path = PathBuilder().user("u1", "go").metadata("meta", "k", 1).entries
    with pytest.raises(InteractionError, match="'meta'"):
        _group(path)


def test_r13_fixture_groups_keep_path_order() -> None:
    """§7: the test finishes first, so r-test precedes r-read inside the third group."""
    assert _ids(_group(opening_path())) == [
        ["u1", "a1"],
        ["u2", "a2"],
        ["u3", "calls", "r-test", "r-read", "a3"],
    ]


def test_r12_the_first_broken_fact_of_a_group_is_the_one_reported() -> None:
    """Facts are gathered as the group goes by and judged when it closes: the first duplicate
    in path order wins, whether a call or a result, and a missing result only after that."""
    error = _bad_group(
        PathBuilder()
        .user("u1", "go")
        .assistant("c", tool_calls=[("k", "read", {}), ("m", "test", {})])
        .tool_result("r1", "k", "read", "ok")
        .tool_result("r2", "k", "read", "again")
        .assistant("c2", tool_calls=[("m", "test", {})])
    )
    assert (error.call_id, set(error.entry_ids)) == ("k", {"r1", "r2"})


def test_r11_an_entry_that_is_no_message_is_reported_before_its_groups_broken_facts() -> None:
    """The group is judged when it closes, so a later metadata entry inside it is named first."""
    path = (
        PathBuilder()
        .user("u1", "go")
        .assistant("c1", tool_calls=[("k", "read", {})])
        .assistant("c2", tool_calls=[("k", "read", {})])
        .metadata("meta", "k", 1)
        .entries
    )
    with pytest.raises(InteractionError, match="'meta'"):
        _group(path)
