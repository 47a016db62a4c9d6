"""Lab 11.2's hidden cases: ``group_interactions`` on generated sessions and broken tool facts (R11–R14).

The drawn cases group generated sessions (with and without system messages,
up to four tool calls a turn) and break one tool fact of each of eight more
(``course_lib.teaching.catalogues.broken_tool_facts``). The covering set holds one
session of three tool-calling groups (results out of order, a result before
its call, system messages inside and between groups) and every way of
breaking its tool facts, each naming the call or entry the error must name.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from typing import Any

from course_lib.builders import PathBuilder
from course_lib.models import SessionEntry
from course_lib.parsing import to_json_dict
from course_lib.teaching.catalogues import broken_tool_facts
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import Wording, say

from ..calls import FIXED, Calls, describe_path
from ..draws import Covering, Draw
from ..generate import SessionRecipe, random_session
from ..hidden import HiddenTest

BROKEN = (
    "before_first_user",
    "unknown_call",
    "declared_twice",
    "answered_twice",
    "unanswered",
    "answered_in_next_group",
    "unknown_call",
    "unanswered",
)
"""The catalogue's changes the drawn cases make, one generated session each, in this order."""


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = Calls("11.2", "group_interactions")
    valid = []
    for number in range(8):
        recipe = SessionRecipe(groups=(1, 6), max_tool_calls=rng.choice((1, 3, 4)), system=number % 3 != 0)
        entries = _message_entries(random_session(rng.randrange(10**6), recipe))
        valid.append(calls.make(describe_path(entries), path=entries))
    valid.append(calls.make(say("an empty list of entries"), path=[]))

    broken = []
    for name in BROKEN:
        change = broken_tool_facts.BY_NAME[name]
        entries = _tool_group(rng)
        names = change.draw(entries, rng)
        broken.append(
            calls.make(
                say("{path} with {what}", path=describe_path(entries), what=change.what), path=entries, reject=names
            )
        )
    return (
        HiddenTest(
            "generated_groups",
            "11.2",
            "R11 R13 R14",
            message("groups of generated sessions: one per user message, system messages skipped, path order kept"),
            tuple(valid),
        ),
        HiddenTest(
            "generated_broken_tool_facts",
            "11.2",
            "R11 R12",
            message("each broken tool fact is rejected with a ValueError naming the call id or entry id"),
            tuple(broken),
        ),
    )


def _message_entries(path: Iterable[SessionEntry]) -> list[dict[str, Any]]:
    return [to_json_dict(e) for e in path if e.type == "message"]


def _tool_group(rng: random.Random) -> list[dict[str, Any]]:
    """Message entries of a generated session in which at least one group has tool calls."""
    while True:
        entries = _message_entries(random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), max_tool_calls=3)))
        if any(e["message"]["role"] == "toolResult" for e in entries):
            return entries


def covering(draw: Draw) -> Covering:
    calls = Calls("11.2", "group_interactions", FIXED)
    i = draw.id
    whole = _message_entries(_tool_session(draw).entries)
    by_id = {entry["id"]: entry for entry in whole}
    without_system = [entry for entry in whole if entry["message"]["role"] != "system"]
    valid = [
        calls.make(
            say(
                "{path}: results out of order, a result before its call, system messages inside and between groups",
                path=describe_path(whole),
            ),
            path=whole,
        ),
        calls.make(
            say("{path}: the same without system messages", path=describe_path(without_system)), path=without_system
        ),
        calls.make(say("a lone user message"), path=[by_id[i("u1")]]),
        calls.make(say("a system message only"), path=[by_id[i("sys")]]),
        calls.make(say("an empty list of entries"), path=[]),
    ]
    return {
        "generated_groups": tuple(valid),
        "generated_broken_tool_facts": tuple(
            calls.make(
                say("{path} with {what}", path=describe_path(path), what=what), path=path, reject=tuple(map(i, names))
            )
            for what, path, names in _broken(draw, whole)
        ),
    }


def _tool_session(draw: Draw) -> PathBuilder:
    """Three groups with tool calls: results out of order, a result before its call, system messages inside and between.

    Zero to two plain groups of drawn length come first, so not even the order
    of roles is the same in every run.
    """
    i, t = draw.id, draw.text
    builder = PathBuilder(clock=draw.clock()).system(i("sys"), t(2, 5))
    for number in range(draw.between(0, 2)):
        builder.user(i(f"lead-u{number}"), t(1, 6))
        for reply in range(draw.between(1, 2)):
            builder.assistant(i(f"lead-a{number}-{reply}"), t(1, 6))
    read, test, write = draw.tool(), draw.tool(), draw.tool()
    return (
        builder.user(i("u1"), t(2, 6))
        .assistant(
            i("c1"), t(1, 3), tool_calls=[(i("read-a"), read, draw.arguments()), (i("read-b"), read, draw.arguments())]
        )
        .tool_result(i("r-b"), i("read-b"), read, t(1, 4))
        .system(i("patch-1"), "", sections={"rules": t(2, 4)})
        .assistant(i("progress"), t(1, 4))
        .tool_result(i("r-a"), i("read-a"), read, t(1, 4))
        .assistant(i("a1"), t(1, 4))
        .system(i("patch-2"), t(1, 4))
        .user(i("u2"), t(2, 6))
        .tool_result(i("r-early"), i("test-1"), test, t(1, 4))  # R12: by id only, so a result may come first
        .assistant(i("c2"), t(1, 3), tool_calls=[(i("test-1"), test, draw.arguments())])
        .assistant(i("a2"), t(1, 4))
        .user(i("u3"), t(2, 6))
        .assistant(i("c3"), t(1, 3), tool_calls=[(i("write-1"), write, draw.arguments())])
        .tool_result(i("r-w"), i("write-1"), write, t(1, 4))
        .assistant(i("a3"), t(1, 4))
    )


def _broken(draw: Draw, whole: list[dict[str, Any]]) -> list[tuple[Wording, list[dict[str, Any]], tuple[str, ...]]]:
    """(what, path, names the error must name): every way of breaking the session's tool facts (R11, R12)."""
    i = draw.id
    by_id = {entry["id"]: entry for entry in whole}

    def drop(*names: str) -> list[dict[str, Any]]:
        return [entry for entry in whole if entry["id"] not in map(i, names)]

    def moved(name: str, after: str) -> list[dict[str, Any]]:
        rest = [entry for entry in whole if entry["id"] != i(name)]
        at = next(n for n, entry in enumerate(rest) if entry["id"] == i(after)) + 1
        return rest[:at] + [by_id[i(name)]] + rest[at:]

    def retagged(name: str, call: str) -> list[dict[str, Any]]:
        path = copy.deepcopy(whole)
        next(entry for entry in path if entry["id"] == i(name))["message"]["toolCallId"] = i(call)
        return path

    def again(name: str, new: str) -> list[dict[str, Any]]:
        path = copy.deepcopy(whole)
        at = next(n for n, entry in enumerate(path) if entry["id"] == i(name))
        return path[: at + 1] + [copy.deepcopy(path[at]) | {"id": i(new)}] + path[at + 1 :]

    orphan = copy.deepcopy(by_id[i("a1")]) | {"id": i("early")}
    return [  # whole[0] is the system prompt, right before the first user message
        (say("an assistant message before the first user message"), whole[:1] + [orphan] + whole[1:], ("early",)),
        (say("a tool result before the first user message"), whole[:1] + [by_id[i("r-b")]] + drop("r-b")[1:], ("r-b",)),
        (say("a result for a call no message made"), retagged("r-a", "ghost-1"), ("ghost-1", "r-a")),
        (say("a result for a call of another group"), retagged("r-w", "read-a"), ("read-a",)),
        (say("a result moved into the next group"), moved("r-a", "u2"), ("read-a",)),
        (say("a call declared twice"), again("c2", "c2-again"), ("test-1",)),
        (say("a second result for one call"), again("r-b", "r-b-again"), ("read-b",)),
        (say("a call without a result in the first group"), drop("r-a"), ("read-a",)),
        (say("a call without a result in the middle group"), drop("r-early"), ("test-1",)),
        (say("a call without a result in the last group"), drop("r-w"), ("write-1",)),
        (say("a result for an unknown call in the last group"), retagged("r-w", "ghost-2"), ("ghost-2", "r-w")),
    ]
