"""L3: the cut point keeps about ``keep_recent_tokens`` of whole interaction groups."""

from __future__ import annotations

from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import PathBuilder, create_compaction_entry, estimate_tokens_chars
from course_lib import fixtures as fx
from course_lib.fixtures import teaching_estimator
from course_lib.grouping import interaction_spans
from course_lib.lifecycle import context_groups, find_cut_point, messages_to_summarize
from course_lib.models import UserMessage


def cut(path: list[Any], keep: float) -> str | None:
    return find_cut_point(path, keep_recent_tokens=keep, estimate_tokens=teaching_estimator)


@pytest.mark.parametrize(
    ("keep", "expected"),
    [(1, "u3"), (15, "u3"), (16, "u2"), (22, "u2"), (23, None), (1000, None)],
)
def test_L3_opening_path_walks_whole_groups_newest_to_oldest(keep: int, expected: str | None) -> None:
    # groups cost [u1,a1]=7, [u2,a2]=7, [u3..a3]=15 with the teaching estimator (§7)
    assert cut(fx.opening_path(), keep) == expected


def test_L3_never_cuts_inside_a_tool_round_trip() -> None:
    # 15 would be reached inside the third group counting from its end; the cut still opens the group
    for keep in range(1, 23):
        assert cut(fx.opening_path(), keep) in {"u2", "u3"}


def test_L3_after_a_compaction_only_groups_from_first_kept_onward_count() -> None:
    path = fx.resumed_path()  # compact-1 keeps from u2; then u4 -> a4 (8)
    assert cut(path, 8) == "u4"
    assert cut(path, 9) == "u3"
    assert cut(path, 23) == "u3"
    assert cut(path, 24) is None  # the oldest candidate group [u2,a2] is needed: nothing to compact
    assert [group[0].id for group in context_groups(path)] == ["u2", "u3", "u4"]


def test_L3_system_messages_are_never_a_cut_point() -> None:
    path = fx.system_replay_path()
    for keep in range(1, 30):
        assert cut(path, keep) not in {"sys", "patch-1", "patch-2"}


def test_L3_messages_to_summarize_are_the_context_groups_before_the_cut() -> None:
    texts = [m.role for m in messages_to_summarize(fx.opening_path(), "u3")]
    assert texts == ["user", "assistant", "user", "assistant"]
    with pytest.raises(ValueError, match="a1"):
        messages_to_summarize(fx.opening_path(), "a1")


@pytest.mark.parametrize("keep", [0, -1, float("nan"), True])
def test_L3_keep_recent_tokens_must_be_positive(keep: Any) -> None:
    with pytest.raises(ValueError, match="keep_recent_tokens"):
        cut(fx.opening_path(), keep)


def test_L3_estimator_results_are_checked_and_see_copies() -> None:
    seen: list[Any] = []

    def bad(message: Any) -> Any:
        seen.append(message)
        return -1

    with pytest.raises(ValueError, match="estimate_tokens returned -1"):
        find_cut_point(fx.opening_path(), keep_recent_tokens=5, estimate_tokens=bad)
    path = fx.opening_path()
    assert all(message is not entry.message for message in seen for entry in path)


# --- property: random sessions --------------------------------------------------------------


@st.composite
def sessions(draw: Any) -> tuple[list[Any], int]:
    builder = PathBuilder()
    if draw(st.booleans()):
        builder.system("sys", "base prompt " * draw(st.integers(0, 5)))
    groups = draw(st.integers(1, 8))
    compact_after = draw(st.integers(0, groups))  # 0: no compaction
    calls = 0
    for g in range(1, groups + 1):
        builder.user(f"u{g}", "word " * draw(st.integers(0, 12)))
        for step in range(draw(st.integers(0, 2))):
            ids = [f"c{calls + i}" for i in range(draw(st.integers(1, 2)))]
            calls += len(ids)
            calls_spec = [(i, "edit", {"path": i}) for i in ids]
            builder.assistant(f"a{g}.{step}", "x " * draw(st.integers(0, 6)), tool_calls=calls_spec)
            for i in reversed(ids) if draw(st.booleans()) else ids:
                builder.tool_result(f"r-{i}", i, "edit", "ok " * draw(st.integers(0, 8)))
        if draw(st.booleans()):
            builder.system(f"patch{g}", "extra rule")
        builder.assistant(f"f{g}", "done " * draw(st.integers(0, 8)))
        if g == compact_after and g > 1:
            first_kept = f"u{draw(st.integers(1, g))}"
            builder.add(
                create_compaction_entry(
                    builder.entries,
                    id=f"cmp{g}",
                    timestamp=builder.clock + 1,
                    summary=fx.compact_1_summary(),
                    first_kept_entry_id=first_kept,
                    tokens_before=1,
                )
            )
    return builder.entries, draw(st.integers(1, 200))


@settings(max_examples=examples(150), deadline=None)
@given(sessions())
def test_L3_property_cut_is_a_group_start_and_keeps_just_enough(case: tuple[list[Any], int]) -> None:
    path, keep = case
    estimate = estimate_tokens_chars
    groups = context_groups(path)
    costs = [sum(estimate(e.message) for e in group) for group in groups]
    first_kept = find_cut_point(path, keep_recent_tokens=keep, estimate_tokens=estimate)
    if first_kept is None:
        assert sum(costs[1:]) < keep, "None only when even the oldest candidate group is needed"
        return
    all_starts = {group[0].id for group in interaction_spans([e for e in path if e.type == "message"])}
    assert first_kept in all_starts, "the cut opens a whole group"
    entry = next(e for e in path if e.id == first_kept)
    assert isinstance(entry.message, UserMessage)
    index = [group[0].id for group in groups].index(first_kept)
    assert index > 0, "something older is left to summarise"
    assert sum(costs[index:]) >= keep, "the kept part reaches the target"
    assert sum(costs[index + 1 :]) < keep, "and no group more than needed is kept"
    create_compaction_entry(
        path, id="new", timestamp=999, summary=fx.compact_1_summary(), first_kept_entry_id=first_kept, tokens_before=0
    )  # R27 accepts it
