"""Creating compaction entries and the summary text (R24–R28, §5; §8 tests 10, 11, 14, 15)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from wire_samples import compaction_wire, shared_containers

from course_lib import (
    CompactionEntry,
    CompactionError,
    CompactionSummary,
    InMemorySessionStore,
    JsonlSessionStore,
    PathBuilder,
    SessionEntryError,
    build_context,
    compaction_summary_text,
    create_compaction_entry,
    to_json_dict,
)
from course_lib import fixtures as fx
from course_lib.fixtures import teaching_estimator


def _summary_wire() -> dict[str, Any]:
    return compaction_wire()["summary"]


def _create(path: list, **overrides: Any) -> CompactionEntry:
    options: dict[str, Any] = {
        "id": "compact-1",
        "timestamp": 100,
        "summary": _summary_wire(),
        "first_kept_entry_id": "u2",
        "tokens_before": 29,
    }
    options.update(overrides)
    return create_compaction_entry(path, **options)


def test_r25_parent_id_is_the_paths_last_entry() -> None:
    """§7 / §8 test 10: compact-1's parent is a3."""
    assert fx.compact_1().parent_id == "a3"
    path = PathBuilder(fx.opening_path()).metadata("meta", "k", 1).entries
    assert _create(path).parent_id == "meta"


def test_r24_pure_the_path_is_unchanged_and_nothing_is_written(tmp_path: Any) -> None:
    path = fx.opening_path()
    before = to_json_dict(path)
    entry = _create(path)
    assert to_json_dict(path) == before
    assert len(path) == 10
    assert isinstance(entry, CompactionEntry)
    assert list(tmp_path.iterdir()) == []


def test_r24_the_caller_appends_it_explicitly_to_either_store(tmp_path: Any) -> None:
    path = fx.opening_path()
    entry = _create(path)
    memory = InMemorySessionStore()
    with JsonlSessionStore.open(tmp_path / "s.jsonl") as jsonl:
        for item in [*path, entry]:
            memory.append(item)
            jsonl.append(item)
    assert JsonlSessionStore.open(tmp_path / "s.jsonl").entries() == memory.entries()
    assert memory.entries()[-1] == entry


def test_r25_empty_path_is_an_error() -> None:
    """§8 test 11."""
    with pytest.raises(CompactionError, match="empty"):
        _create([])


def test_r26_id_already_on_the_path_is_an_error() -> None:
    """§8 test 11 (duplicate id)."""
    with pytest.raises(CompactionError, match="'a2'") as info:
        _create(fx.opening_path(), id="a2")
    assert info.value.entry_id == "a2"


@pytest.mark.parametrize(
    ("first_kept", "what"),
    [
        ("a1", "assistant message"),
        ("calls", "assistant message"),
        ("r-test", "toolResult message"),
        ("r-read", "toolResult message"),
        ("sys", "system message"),
        ("ghost", "not on the path"),
        ("meta", "metadata entry"),
    ],
)
def test_r27_first_kept_must_open_an_interaction_group(first_kept: str, what: str) -> None:
    """§8 test 11: in-group, system, metadata and unknown ids are refused, naming the id."""
    path = PathBuilder(fx.opening_path()).metadata("meta", "k", 1).entries
    with pytest.raises(CompactionError, match=f"'{first_kept}'.*{what}") as info:
        _create(path, first_kept_entry_id=first_kept)
    assert info.value.entry_id == first_kept


@pytest.mark.parametrize("first_kept", ["u1", "u2", "u3"])
def test_r27_every_group_start_is_accepted(first_kept: str) -> None:
    assert _create(fx.opening_path(), first_kept_entry_id=first_kept).first_kept_entry_id == first_kept


def test_r27_patch_2_cannot_be_first_kept_on_the_system_replay_path() -> None:
    """§7 / §8 test 15."""
    path = fx.system_replay_path()
    assert [e.id for e in path] == ["sys", "u1", "a1", "patch-1", "u2", "a2", "compact-1", "patch-2", "u3", "a3"]
    with pytest.raises(CompactionError, match="'patch-2'") as info:
        create_compaction_entry(
            path,
            id="compact-2",
            timestamp=200,
            summary=fx.compact_1_summary(),
            first_kept_entry_id="patch-2",
            tokens_before=10,
        )
    assert info.value.entry_id == "patch-2"
    assert (
        create_compaction_entry(
            path,
            id="compact-2",
            timestamp=200,
            summary=fx.compact_1_summary(),
            first_kept_entry_id="u3",
            tokens_before=10,
        ).parent_id
        == "a3"
    )


def test_r27_a_user_message_inside_a_summarized_part_is_still_a_group_start() -> None:
    """Groups are computed over all message entries of the path, compactions skipped."""
    path = fx.resumed_path()
    assert _create(path, id="compact-2", first_kept_entry_id="u1").first_kept_entry_id == "u1"
    with pytest.raises(CompactionError, match="'compact-1'"):
        _create(path, id="compact-2", first_kept_entry_id="compact-1")


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"tokens_before": -1}, "tokensBefore"),
        ({"tokens_before": float("inf")}, "tokensBefore"),
        ({"tokens_before": True}, "tokensBefore"),
        ({"timestamp": "100"}, "timestamp"),
        ({"id": " "}, "id"),
    ],
)
def test_r28_the_result_goes_through_the_strict_parser(override: dict[str, Any], field: str) -> None:
    with pytest.raises(SessionEntryError) as info:
        _create(fx.opening_path(), **override)
    assert info.value.path == field


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda s: s.update(files=s.pop("changedFiles")), "summary.files"),
        (lambda s: s.update(nextSteps=s.pop("next")), "summary.nextSteps"),
        (lambda s: s.pop("constraints"), "summary.constraints"),
        (lambda s: s.update(goal=""), "summary.goal"),
        (lambda s: s["decisions"].append(1), "summary.decisions[2]"),
    ],
)
def test_r28_a_bad_summary_is_refused_naming_the_field(mutate: Any, field: str) -> None:
    summary = _summary_wire()
    mutate(summary)
    with pytest.raises(SessionEntryError) as info:
        _create(fx.opening_path(), summary=summary)
    assert info.value.path == field
    assert "compact-1" in str(info.value)


def test_r28_result_shares_nothing_with_the_inputs() -> None:
    """§8 test 10: mutating the summary input afterwards changes nothing; neither does mutating the result's dump."""
    path = fx.opening_path()
    summary = _summary_wire()
    entry = _create(path, summary=summary)
    expected = copy.deepcopy(to_json_dict(entry))
    summary["decisions"].append("smuggled")
    summary["goal"] = "changed"
    assert to_json_dict(entry) == expected
    assert shared_containers(entry, summary) == []
    assert shared_containers(entry, path) == []
    assert entry.summary.decisions == ("Restore only the active path.", "Keep whole groups.")


def test_r28_accepts_a_summary_model_and_round_trips() -> None:
    summary = fx.compact_1_summary()
    entry = _create(fx.opening_path(), summary=summary)
    assert entry.summary == summary
    assert to_json_dict(entry) == {
        "type": "compaction",
        "id": "compact-1",
        "parentId": "a3",
        "timestamp": 100,
        "summary": to_json_dict(summary),
        "firstKeptEntryId": "u2",
        "tokensBefore": 29,
    }


def test_r4_r28_tokens_before_is_kept_as_passed() -> None:
    assert _create(fx.opening_path(), tokens_before=123456).tokens_before == 123456
    assert _create(fx.opening_path(), tokens_before=0).tokens_before == 0


# --- §5 summary text ------------------------------------------------------------------------------


def test_summary_text_has_the_fixed_layout() -> None:
    text = compaction_summary_text(_summary_wire())
    assert text == (
        "[Compaction summary]\n"
        "Goal: Verify session restore and JSONL writes.\n"
        "Constraints:\n"
        "- History is append-only.\n"
        "Completed:\n"
        "- Checked the session-restore logic.\n"
        "Decisions:\n"
        "- Restore only the active path.\n"
        "- Keep whole groups.\n"
        "Changed files:\n"
        "- context.py\n"
        "Unresolved:\n"
        "- (none)\n"
        "Next:\n"
        "- Add a regression test."
    )


def test_summary_text_renders_every_empty_list_as_none() -> None:
    summary = CompactionSummary(
        goal="g", constraints=(), completed=(), decisions=(), changed_files=(), unresolved=(), next=()
    )
    assert compaction_summary_text(summary) == "\n".join(
        ["[Compaction summary]", "Goal: g"]
        + [
            line
            for title in ("Constraints", "Completed", "Decisions", "Changed files", "Unresolved", "Next")
            for line in (f"{title}:", "- (none)")
        ]
    )


def test_summary_text_refuses_a_legacy_summary() -> None:
    summary = _summary_wire()
    summary["nextSteps"] = summary.pop("next")
    with pytest.raises(SessionEntryError, match="nextSteps"):
        compaction_summary_text(summary)


# --- §8 test 14 ---------------------------------------------------------------------------------


def test_r25_r27_a_resumed_path_can_be_compacted_again() -> None:
    """§8 test 14: compact the resumed path from u4; the new summary replaces the old one."""
    path = fx.resumed_path()
    second = _create(
        path,
        id="compact-2",
        timestamp=200,
        first_kept_entry_id="u4",
        summary={**_summary_wire(), "goal": "Second goal."},
    )
    assert second.parent_id == "a4"
    resumed = PathBuilder([*path, second]).user("u5", "and more").assistant("a5", "ok").entries
    result = build_context(resumed, **fx.RESUME_BUDGET, estimate_tokens=teaching_estimator)
    assert list(result.kept_entry_ids) == ["u4", "a4", "u5", "a5"]
    assert "Goal: Second goal." in result.messages[1].content[0].text
    assert result.reason == "within_budget"
