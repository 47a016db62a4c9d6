"""Pitfall 1 and L6: a consumer must end the turn at agent_end, not at a message_end."""

from __future__ import annotations

import pytest

from course_lib.lifecycle import AgentEndConsumer, MessageEndConsumer, capstone_session

Pairs = dict[int, tuple[MessageEndConsumer, AgentEndConsumer]]


@pytest.fixture(scope="module")
def consumers() -> Pairs:
    """Both consumers listen to every capstone turn; keyed by turn number."""
    session, _, prompts = capstone_session()
    consumers = {}
    for turn, prompt in enumerate(prompts, start=1):
        pair = (MessageEndConsumer(), AgentEndConsumer())
        for consumer in pair:
            session.log.subscribe(consumer)
        session.prompt(prompt)
        for consumer in pair:
            session.log.unsubscribe(consumer)
        consumers[turn] = pair
    return consumers


def test_on_the_overflow_turn_a_message_end_consumer_reports_the_failure_and_misses_the_retry(consumers: Pairs) -> None:
    early, patient = consumers[25]
    assert early.verdict.startswith("failed (error in a25.2)")
    assert [e.type for e in early.missed][:3] == ["agent_end", "compaction_start", "compaction_end"]
    assert patient.done and patient.verdict == "answered (a25.3)"


def test_on_quiet_turns_both_consumers_agree(consumers: Pairs) -> None:
    for turn in (1, 2, 10):
        early, patient = consumers[turn]
        assert early.verdict == patient.verdict


def test_a_threshold_compaction_happens_after_what_the_message_end_consumer_saw(consumers: Pairs) -> None:
    early, patient = consumers[16]
    assert "compaction_end" in [e.type for e in early.missed]
    assert patient.seen[-1].type == "compaction_end" and patient.verdict == early.verdict


def test_the_verdicts_are_said_in_the_readers_language(consumers: Pairs, monkeypatch: pytest.MonkeyPatch) -> None:
    """``verdict`` is what code compares, in every language; ``said`` is the sentence a notebook shows (issue 45)."""
    early, patient = consumers[25]
    assert (early.said, patient.said) == (early.verdict, patient.verdict)  # English: the same words
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert early.said == "失败（a25.2 以 error 结束）" and patient.said == "已回答（a25.3）"
    assert early.verdict.startswith("failed (error in a25.2)") and patient.verdict == "answered (a25.3)"
    assert AgentEndConsumer().said == "仍在运行" and MessageEndConsumer().said == "没有回答"
