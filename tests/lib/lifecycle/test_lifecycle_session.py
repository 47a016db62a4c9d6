"""The simulated session: the six steps, L4 (bounded recovery), L5 (single append path), L6 (event order)."""

from __future__ import annotations

import pytest
from lifecycle_support import answer, edit_then, event_types, history, small_session, stored

from course_lib import path_to
from course_lib.lifecycle import (
    LIFECYCLE_EVENTS,
    CompactionSettings,
    Failure,
    OverflowRecoveryError,
    Reply,
    capstone_session,
)
from course_lib.models import AssistantMessage

LONG = " ".join(["word"] * 60)  # about 75 tokens of user text
KEEP_120 = CompactionSettings(reserve_tokens=100, keep_recent_tokens=120)  # halves to 60, then 30 (L4)


def grow_until_threshold() -> tuple[list[str], list[Reply]]:
    """Four long prompts: the fourth run ends above the threshold of 400 - 100 (L2)."""
    prompts = [f"Request {n}: {LONG}" for n in range(1, 5)]
    return prompts, [answer(f"Answer {n}.") for n in range(1, 5)]


def test_L6_a_threshold_compaction_comes_after_agent_end_in_order() -> None:
    prompts, replies = grow_until_threshold()
    session, _, _ = small_session(replies)
    for prompt in prompts:
        session.prompt(prompt)
    last_turn = [e for e in session.events if e.turn == 4]
    assert event_types(last_turn) == [
        "agent_start",
        "message_end",
        "message_end",
        "agent_end",
        "compaction_start",
        "compaction_end",
    ]
    start, end = last_turn[-2:]
    assert start.reason == end.reason == "threshold"
    assert end.will_retry is False
    assert end.first_kept_entry_id == "u4"
    assert end.tokens_before is not None and end.tokens_after is not None and start.context_tokens is not None
    assert end.tokens_before == start.context_tokens > 400 - 100  # L2 on the reported usage
    assert end.tokens_after < end.tokens_before  # step 5: the context is replaced for accounting
    assert all(e.type != "compaction_start" for e in session.events if e.turn < 4)


def test_L6_an_overflow_turn_runs_agent_end_compaction_then_continue() -> None:
    script = edit_then("Edited.") + [Failure("prompt is too long: 999 tokens"), answer("Recovered.")]
    session, _, _ = small_session(script, store=stored(history(3).entries))
    session.prompt("First, edit app.py.")
    result = session.prompt("Second.")
    turn = [e for e in session.events if e.turn == 5]
    assert event_types(turn, LIFECYCLE_EVENTS) == [
        "agent_start",
        "message_end",
        "message_end",
        "agent_end",
        "compaction_start",
        "compaction_end",
        "agent_start",
        "message_end",
        "agent_end",
    ]
    end = next(e for e in turn if e.type == "compaction_end")
    assert (end.reason, end.attempt, end.will_retry) == ("overflow", 1, True)
    assert result.answer.content[0].text == "Recovered."
    assert result.overflow_attempts == 1


def test_overflow_failed_response_stays_in_the_log_but_not_in_the_retry_context() -> None:
    script = [Failure("prompt is too long"), answer("Retried.")]
    session, model, store = small_session(script, store=stored(history(3).entries))
    session.prompt("Prompt 4.")
    entries = store.entries()
    failed = next(e for e in entries if e.type == "message" and getattr(e.message, "stop_reason", "") == "error")
    compaction = next(e for e in entries if e.type == "compaction")
    assert compaction.parent_id == failed.parent_id == "u4", "the compaction branches off before the failure"
    assert failed.id in {e.id for e in entries}, "the failure is still in the log (L5)"
    assert session.leaf_id is not None
    assert failed.id not in {e.id for e in path_to(entries, session.leaf_id)}, "but not on the active path"
    retry_sent = model.requests[-1].messages
    assert all(m.get("stopReason") != "error" for m in retry_sent), "the failed response is not resent"
    assert retry_sent[-1]["content"][0]["text"] == "Prompt 4."


@pytest.mark.parametrize("cap", [0, 1, 2, 3])
def test_L4_a_model_that_always_overflows_fails_after_exactly_the_cap(cap: int) -> None:
    store = stored(history(12, words=2).entries)  # groups of about 25 tokens: room for three cuts
    session, model, _ = small_session(store=store, settings=KEEP_120, always_overflow=True, max_overflow_attempts=cap)
    with pytest.raises(OverflowRecoveryError, match=f"cap of {cap} compact-and-retry attempts") as caught:
        session.prompt("One more step.")
    assert caught.value.attempts == cap
    starts = [e for e in session.events if e.type == "compaction_start"]
    assert [e.attempt for e in starts] == list(range(1, cap + 1)), "attempts are visible in the events"
    assert all(e.reason == "overflow" for e in starts)
    failed = session.events[-1]
    assert (failed.type, failed.attempt) == ("overflow_recovery_failed", cap)
    assert len(model.requests) == cap + 1, "one first try plus one retry per attempt, then stop"
    assert sum(e.type == "compaction" for e in store.entries()) == cap


def test_L4_each_further_attempt_keeps_less_so_a_retry_is_not_a_repeat() -> None:
    store = stored(history(12, words=2).entries)
    session, _, _ = small_session(store=store, settings=KEEP_120, always_overflow=True, max_overflow_attempts=3)
    with pytest.raises(OverflowRecoveryError):
        session.prompt("One more step.")
    kept = [e.first_kept_entry_id for e in session.events if e.type == "compaction_end"]
    assert len(set(kept)) == 3, kept


def test_L4_nothing_left_to_compact_surfaces_single_group_overflow() -> None:
    session, model, _ = small_session([answer("ok")], window=400)
    huge = " ".join(["token"] * 400)  # one group far above the window
    with pytest.raises(OverflowRecoveryError, match="single_group_overflow") as caught:
        session.prompt(huge)
    warning = next(e for e in session.events if e.type == "context_warning")
    assert warning.reason == "single_group_overflow", "build_context's verdict is surfaced before the request"
    assert caught.value.attempts == 1
    assert caught.value.entry_id == "u1"
    assert len(model.requests) == 1


def test_L4_an_error_that_is_not_an_overflow_does_not_compact() -> None:
    session, _, store = small_session([Failure("rate limited, try later")])
    result = session.prompt("Hello.")
    assert result.answer.stop_reason == "error"
    assert not any(e.type.startswith("compaction") for e in session.events)
    assert all(e.type != "compaction" for e in store.entries())


def test_L4_with_compaction_disabled_an_overflow_fails_without_compacting() -> None:
    settings = CompactionSettings(enabled=False, reserve_tokens=100, keep_recent_tokens=60)
    session, _, store = small_session(store=stored(history(4).entries), settings=settings, always_overflow=True)
    with pytest.raises(OverflowRecoveryError, match="compaction is disabled") as caught:
        session.prompt("Next.")
    assert caught.value.attempts == 0
    assert all(e.type != "compaction" for e in store.entries())


def test_L3_threshold_crossed_with_nothing_to_cut_is_reported_not_hidden() -> None:
    session, _, _ = small_session([answer("Noted.")])
    session.prompt(" ".join(["word"] * 260))  # one group above the threshold, below the window
    kinds = event_types(session.events)
    assert kinds[-1] == "compaction_skipped"
    assert "compaction_start" not in kinds


def test_L5_every_entry_goes_through_the_store_and_the_log_only_grows() -> None:
    session, _, prompts = capstone_session()
    store = session.store
    snapshots = []
    for prompt in prompts:
        session.prompt(prompt)
        snapshots.append([e.model_dump() for e in store.entries()])
    for before, after in zip(snapshots, snapshots[1:]):
        assert after[: len(before)] == before, "nothing earlier is rewritten or deleted"
    compactions = [e for e in store.entries() if e.type == "compaction"]
    assert len(compactions) == 3
    ids = {e.id for e in store.entries()}
    for entry in compactions:
        assert entry.first_kept_entry_id in ids
        assert entry.parent_id in ids


def test_L5_compactions_use_the_same_append_call_as_messages() -> None:
    prompts, replies = grow_until_threshold()
    session, _, store = small_session(replies)
    for prompt in prompts:
        session.prompt(prompt)
    assert store.appended == [e.id for e in store.entries()]
    assert "c1" in store.appended


def test_capstone_crosses_the_threshold_twice_and_recovers_one_overflow() -> None:
    session, _, prompts = capstone_session()
    results = [session.prompt(p) for p in prompts]
    ends = [e for e in session.events if e.type == "compaction_end"]
    assert [e.reason for e in ends] == ["threshold", "overflow", "threshold"]
    assert [r.overflow_attempts for r in results].count(1) == 1
    assert all(isinstance(r.answer, AssistantMessage) and r.answer.stop_reason == "stop" for r in results)
    assert not any(e.type in {"context_warning", "compaction_skipped"} for e in session.events)
    assert len(prompts) == 40


def test_the_simulation_is_deterministic() -> None:
    runs = []
    for _ in range(2):
        session, _, prompts = capstone_session()
        for prompt in prompts:
            session.prompt(prompt)
        runs.append(([e.to_dict() for e in session.events], [e.model_dump() for e in session.store.entries()]))
    assert runs[0] == runs[1]


def test_a_session_resumes_on_an_existing_store_and_records_its_budget() -> None:
    store = stored(history(2).entries)
    session, _, _ = small_session([answer("Resumed.")], store=store)
    budget = [e for e in store.entries() if e.type == "metadata"]
    assert len(budget) == 1 and budget[0].parent_id == "hf2"
    session.prompt("Go on.")
    assert [e.id for e in store.entries()][-2:] == ["u3", "a3.1"]


def test_any_callable_can_be_the_summarizer() -> None:
    from course_lib import InMemorySessionStore
    from course_lib.lifecycle import AgentSession, RequestBudget, ScriptedModel

    seen = []

    def summarizer(request):  # a stand-in for a real model client; returns the wire format
        seen.append(request)
        return {
            "goal": "Custom.",
            "constraints": [],
            "completed": [],
            "decisions": [],
            "changedFiles": [],
            "unresolved": [],
            "next": [],
        }

    prompts, replies = grow_until_threshold()
    model = ScriptedModel(replies, context_window=400)
    session = AgentSession(
        store=InMemorySessionStore(),
        model=model,
        tools=model.run_tool,
        budget=RequestBudget(context_window=400),
        settings=CompactionSettings(reserve_tokens=100, keep_recent_tokens=60),
        summarizer=summarizer,
    )
    for prompt in prompts:
        session.prompt(prompt)
    compaction = next(e for e in session.store.entries() if e.type == "compaction")
    assert compaction.summary.goal == "Custom."
    assert seen[0].reason == "threshold" and len(seen[0].messages) == 6
