"""Step 3: the deterministic offline summarizer fills the seven fields from the transcript."""

from __future__ import annotations

from typing import Any

import pytest

from course_lib import PathBuilder, compaction_summary_text, estimate_tokens_chars
from course_lib.lifecycle import OfflineSummarizer, SummaryRequest, capstone_session
from course_lib.models import CompactionSummary, TextContent, UserMessage


def transcript() -> tuple:
    entries = (
        PathBuilder()
        .user("u1", "Goal: add a --dry-run flag. It must never write files.")
        .assistant("a1", "", tool_calls=[("c1", "edit", {"path": "cli.py"}), ("c2", "read", {"path": "notes.md"})])
        .tool_result("r1", "c1", "edit", "edited cli.py")
        .tool_result("r2", "c2", "read", "notes")
        .assistant("f1", "Added the flag. Decision: keep it CLI-only. Next: run the tests.")
        .user("u2", "Run the tests.")
        .assistant("a2", "", tool_calls=[("c3", "test", {"pattern": ""})])
        .tool_result("r3", "c3", "test", "1 failed", is_error=True)
        .assistant("f2", "One test fails.")
        .entries
    )
    return tuple(e.message for e in entries)


def summarize(messages: tuple, previous: CompactionSummary | None = None, **options: Any) -> CompactionSummary:
    return OfflineSummarizer(**options)(SummaryRequest(messages, previous, "threshold"))


def test_fields_are_read_off_the_transcript() -> None:
    summary = summarize(transcript(), max_summary_tokens=200)
    assert summary.goal == "add a --dry-run flag."
    assert summary.constraints == ("It must never write files.",)
    assert summary.completed == ("Added the flag.",), "'One test fails.' is unresolved work, not completed work"
    assert summary.decisions == ("keep it CLI-only.",)
    assert summary.changed_files == ("cli.py",), "only write-like tool calls change files"
    assert summary.unresolved == ("test: 1 failed",)
    assert summary.next == ("run the tests.",)


def test_a_later_success_of_the_same_tool_resolves_a_failure() -> None:
    fixed = (
        PathBuilder(clock=100)
        .user("u3", "Fix it.")
        .assistant("a3", "", tool_calls=[("c4", "test", {})])
        .tool_result("r4", "c4", "test", "12 passed")
        .assistant("f3", "Fixed.")
        .entries
    )
    summary = summarize(transcript() + tuple(e.message for e in fixed), max_summary_tokens=200)
    assert summary.unresolved == ()


def test_the_previous_summary_is_carried_forward() -> None:
    previous = CompactionSummary(
        goal="Ship the flag.",
        constraints=("Keep diffs small.",),
        completed=(),
        decisions=(),
        changed_files=("old.py",),
        unresolved=(),
        next=("Earlier step.",),
    )
    summary = summarize(transcript(), previous, max_summary_tokens=200)
    assert summary.goal == "Ship the flag."
    assert summary.constraints[0] == "Keep diffs small."
    assert summary.changed_files == ("old.py", "cli.py")
    assert summary.next == ("run the tests.",), "a newer next step replaces the old one"


@pytest.mark.parametrize("budget", [60, 80, 120])
def test_the_summary_stays_within_its_token_budget(budget: int) -> None:
    summary = summarize(transcript() * 6, max_summary_tokens=budget)
    text = compaction_summary_text(summary)
    assert estimate_tokens_chars(UserMessage(content=(TextContent(text=text),), timestamp=0)) <= budget
    assert summary.constraints, "constraints are the last thing to be dropped"


def test_a_budget_that_cannot_hold_an_empty_summary_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot hold even an empty summary"):
        OfflineSummarizer(max_summary_tokens=10)


def test_min_reserve_is_the_summary_budget() -> None:
    assert OfflineSummarizer(max_summary_tokens=96).min_reserve_tokens == 96


def test_the_summarizer_is_deterministic() -> None:
    assert summarize(transcript()) == summarize(transcript())


def test_an_answer_after_a_failure_that_stays_open_is_not_completed() -> None:
    summary = summarize(transcript(), max_summary_tokens=200)
    assert "One test fails." not in summary.completed
    assert summary.unresolved == ("test: 1 failed",)


def test_an_answer_after_a_failure_fixed_in_the_same_interaction_is_completed() -> None:
    fixed_in_place = (
        PathBuilder()
        .user("u1", "Run the tests and fix what fails.")
        .assistant("a1", "", tool_calls=[("c1", "test", {})])
        .tool_result("r1", "c1", "test", "1 failed", is_error=True)
        .assistant("a2", "", tool_calls=[("c2", "test", {})])
        .tool_result("r2", "c2", "test", "12 passed")
        .assistant("f1", "Fixed; all 12 tests pass.")
        .entries
    )
    summary = summarize(tuple(e.message for e in fixed_in_place), max_summary_tokens=200)
    assert summary.completed == ("Fixed; all 12 tests pass.",)
    assert summary.unresolved == ()


def test_a_sentence_longer_than_max_item_chars_is_kept_whole() -> None:
    """Cutting it would leave "…do not cop…" or "…reaches sync.run as…": a fragment the model must guess."""
    messages = tuple(
        e.message
        for e in PathBuilder()
        .user("u1", "Only print the plan in dry-run mode, do not copy.")
        .assistant("f1", "Decision: the flag goes in cli.py and reaches sync.run as dry_run.")
        .entries
    )
    summary = summarize(messages, max_summary_tokens=200, max_item_chars=48)
    assert summary.constraints == ("Only print the plan in dry-run mode, do not copy.",)
    assert summary.decisions == ("the flag goes in cli.py and reaches sync.run as dry_run.",)


def test_a_long_item_is_shortened_at_a_sentence_boundary() -> None:
    messages = tuple(
        e.message
        for e in PathBuilder()
        .user("u1", "Wire the flag.")
        .assistant("f1", "Added the flag to the parser. Wired it to sync.run. Documented it in the README.")
        .entries
    )
    summary = summarize(messages, max_summary_tokens=200, max_item_chars=60)
    assert summary.completed == ("Added the flag to the parser. Wired it to sync.run.",)


def test_a_goal_too_long_for_the_budget_is_replaced_not_cut() -> None:
    goal = "Goal: " + " ".join(["rewrite"] * 120) + "."
    summary = summarize((UserMessage(content=(TextContent(text=goal),), timestamp=0),), max_summary_tokens=60)
    assert summary.goal == "Continue the session's task."
    text = compaction_summary_text(summary)
    assert estimate_tokens_chars(UserMessage(content=(TextContent(text=text),), timestamp=0)) <= 60


def test_the_capstone_summaries_are_whole_sentences() -> None:
    session, _, prompts = capstone_session()
    for prompt in prompts:
        session.prompt(prompt)
    summaries = [e.summary for e in session.store.entries() if e.type == "compaction"]
    assert summaries
    for summary in summaries:
        prose = [summary.goal, *summary.constraints, *summary.completed, *summary.decisions, *summary.next]
        assert all(item.endswith((".", "!", "?")) and "…" not in item for item in prose), prose
        assert "One test fails." not in summary.completed
