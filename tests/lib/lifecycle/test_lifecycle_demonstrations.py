"""The three benefits of append-only history: replay, prefix reuse (and see the writer-lock tests)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from course_lib import AgentMessage, JsonlSessionStore, PathBuilder, SystemMessage, TextContent, UserMessage
from course_lib.lifecycle import (
    capstone_session,
    compare_with_sent,
    demonstrate_prefix_reuse,
    demonstrate_replay,
    measure_prefix_reuse,
    open_session_writer,
    replay_request,
    rewrite_history_requests,
)


@pytest.fixture(scope="module")
def capstone() -> tuple:
    session, model, prompts = capstone_session()
    for prompt in prompts:
        session.prompt(prompt)
    return session, model


def test_replay_rebuilds_what_was_sent_for_every_request(capstone: tuple) -> None:
    session, model = capstone
    checks = demonstrate_replay(session.store.entries(), model.requests)
    assert len(checks) == len(model.requests) == 65
    assert all(check.matches for check in checks)
    overflowed = [r.index for r in model.requests if r.outcome == "overflow"]
    assert overflowed == [42], "the failed request is replayed too"


def test_replay_notices_a_difference(capstone: tuple) -> None:
    session, model = capstone
    sent = list(model.requests)
    tampered = dict(sent[10].messages[-1], timestamp=-1)
    sent[10] = dataclasses.replace(sent[10], messages=[*sent[10].messages[:-1], tampered])
    checks = compare_with_sent(session.store.entries(), sent)
    assert [c.request for c in checks if not c.matches] == [11]


def test_replay_works_from_the_jsonl_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "capstone.jsonl"
    with open_session_writer(path, fsync=False) as store:
        session, model, prompts = capstone_session(store=store)
        for prompt in prompts:
            session.prompt(prompt)
    from_disk = JsonlSessionStore.open(path).entries()
    assert all(check.matches for check in compare_with_sent(from_disk, model.requests))


def test_replay_refuses_an_entry_that_is_not_a_response(capstone: tuple) -> None:
    session, _ = capstone
    with pytest.raises(ValueError, match="'u1' is not an assistant response"):
        replay_request(session.store.entries(), "u1")


def test_append_only_reuses_the_prefix_and_breaks_it_only_at_compactions(capstone: tuple) -> None:
    session, _ = capstone
    append_only, rewrite = demonstrate_prefix_reuse(session.store.entries())
    compactions = sum(e.type == "compaction" for e in session.store.entries())
    assert append_only.prefix_breaks == compactions == 3
    assert rewrite.prefix_breaks > 30
    assert append_only.token_ratio > 0.85 > 0.5 > rewrite.token_ratio
    assert append_only.message_ratio > rewrite.message_ratio


def test_measure_prefix_reuse_counts_leading_identical_messages() -> None:
    def user(text: str) -> UserMessage:
        return UserMessage(content=(TextContent(text=text),), timestamp=1)

    system = SystemMessage(content="sys prompt", timestamp=0)
    requests: list[list[AgentMessage]] = [
        [system, user("a")],
        [system, user("a"), user("bbbb")],
        [system, user("x"), user("bbbb")],
    ]
    report = measure_prefix_reuse("t", requests)
    assert [(r.messages, r.shared_messages) for r in report.rows] == [(2, 0), (3, 2), (3, 1)]
    assert report.message_ratio == 3 / 6
    assert report.prefix_breaks == 1


def test_the_rewrite_strategy_resummarises_older_interactions_every_request() -> None:
    entries = (
        PathBuilder()
        .system("sys", "base")
        .user("u1", "one")
        .assistant("a1", "First done.")
        .user("u2", "two")
        .assistant("a2", "Second done.")
        .user("u3", "three")
        .assistant("a3", "ok")
        .entries
    )
    requests = rewrite_history_requests(entries)
    assert len(requests) == 3
    assert [len(r) for r in requests] == [2, 3, 3]  # [sys, u] then [sys, summary, u]
    assert requests[1][1].content[0].text != requests[2][1].content[0].text
