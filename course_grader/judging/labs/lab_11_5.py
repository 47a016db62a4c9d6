"""Lab 11.5's hidden cases: ``build_context`` on resumed paths (R15–R23, R18 above all).

The drawn cases build generated sessions holding up to three compactions
under budgets around their cost and on the edges of R17–R19, under bad budgets
and estimates (R15), and with a latest compaction that keeps from an entry
that is not a user message before it (R18). The covering set builds a path
resumed twice and the plain cost ladder under every edge budget, and makes
its compaction keep from every wrong kind of entry. What this lab shares with
Lab 11.3 is in ``build_context``.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from course_lib.models import SessionEntry
from course_lib.parsing import to_json_dict
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import say

from .. import shapes
from ..calls import FIXED, Calls, describe_path
from ..draws import Covering, Draw
from ..generate import SessionRecipe, random_session
from ..hidden import HiddenCall, HiddenTest
from .build_context import (
    covering_builds,
    covering_rejections,
    drawn_builds,
    drawn_rejections,
    edge_calls,
    good_budget,
    projection_tests,
)

WRONG_KINDS = ("assistant", "toolResult", "system", "metadata", "after", "assistant")
"""What the drawn cases' latest compaction keeps from (R18): one generated session each, in this order."""

WRONG_TARGETS = (
    (say("an assistant message"), "a2"),
    (say("a tool call's message"), "c4"),
    (say("a tool result"), "r4t"),
    (say("a system message"), "patch-1"),
    (say("a metadata entry"), "meta-0"),
    (say("the older compaction"), "compact-0"),
    (say("a user message after it"), "u5"),
    (say("an unknown entry"), "missing-1"),
)
"""What the covering set's latest compaction keeps from (R18), by the resumed path's names."""


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = Calls("11.5", "build_context")
    made = []
    for number in range(12):
        recipe = SessionRecipe(groups=(2, 7), compactions=(1, 1, 2, 3, 0)[number % 5], system=number % 6 != 5)
        made += drawn_builds(calls, rng, random_session(rng.randrange(10**6), recipe))
    for _ in range(4):
        made += edge_calls(
            calls, rng, random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), compactions=1))
        )
    rejected = drawn_rejections(
        calls, random_session(rng.randrange(10**6), SessionRecipe(groups=(3, 5), compactions=1))
    )
    rejected += _drawn_resume_points(calls, rng)
    return (
        *projection_tests("11.5", "generated_resume", tuple(made)),
        HiddenTest(
            "bad_budgets_and_resume_points_rejected",
            "11.5",
            "R15 R18",
            message(
                "budgets and estimates must be finite numbers >= 0, every candidate estimated; a compaction must keep "
                "from a user message before it; anything else is a ValueError naming the entry"
            ),
            tuple(rejected),
        ),
    )


def _drawn_resume_points(calls: Calls, rng: random.Random) -> list[HiddenCall]:
    """R18: the latest compaction keeps from an entry that is not a user message before it."""
    made = []
    for kind in WRONG_KINDS:
        path = [
            to_json_dict(e) for e in random_session(rng.randrange(10**6), SessionRecipe(groups=(3, 6), compactions=1))
        ]
        at = max(i for i, e in enumerate(path) if e["type"] == "compaction")
        if kind == "after":
            pool = [e["id"] for e in path[at + 1 :] if e["type"] == "message" and e["message"]["role"] == "user"]
        elif kind == "metadata":
            pool = [e["id"] for e in path[:at] if e["type"] == "metadata"]
        else:
            pool = [e["id"] for e in path[:at] if e["type"] == "message" and e["message"]["role"] == kind]
        if pool:
            target = rng.choice(pool)
            path[at] = path[at] | {"firstKeptEntryId": target}
            what = say("an entry after it") if kind == "after" else say("a {kind} entry", kind=kind)
            made.append(
                calls.make(
                    say(
                        "{path}; the compaction keeps from {what} ({target})",
                        path=describe_path(path),
                        what=what,
                        target=repr(target),
                    ),
                    path=path,
                    options={"max_tokens": 200, "reserved_output": 4, "safety_margin": 2},
                    estimator="teaching",
                    reject=(target,),
                )
            )
    return made


def covering(draw: Draw) -> Covering:
    calls = Calls("11.5", "build_context", FIXED)
    resumed = shapes.resumed_path(draw)
    made = covering_builds(draw, calls, resumed) + covering_builds(draw, calls, shapes.plain_path(draw.fresh()))
    shared = tuple(made)
    rejected = covering_rejections(draw, calls, resumed) + _covering_resume_points(draw, calls, resumed)
    return {
        "generated_resume_kept_groups_and_reason": shared,
        "generated_resume_token_projection": shared,
        "generated_resume_messages": shared,
        "bad_budgets_and_resume_points_rejected": tuple(rejected),
    }


def _covering_resume_points(draw: Draw, calls: Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R18: the latest compaction keeps from something that is not a user message before it, or from nothing."""
    wire = shapes.wire(path)
    at = max(n for n, entry in enumerate(wire) if entry["type"] == "compaction")
    marked = copy.deepcopy(wire)
    marked.insert(at, _metadata_before(draw, marked[at - 1]))
    options = good_budget(draw) | {"max_tokens": draw.between(150, 400)}
    made = []
    for what, name in WRONG_TARGETS:
        target = draw.id(name)
        changed = copy.deepcopy(marked)
        changed[at + 1] = changed[at + 1] | {"firstKeptEntryId": target}
        made.append(
            calls.make(
                say(
                    "{path}; the compaction keeps from {what} ({target})",
                    path=describe_path(changed),
                    what=what,
                    target=repr(target),
                ),
                path=changed,
                options=options,
                estimator="teaching",
                reject=(target,),
            )
        )
    return made


def _metadata_before(draw: Draw, previous: dict[str, Any]) -> dict[str, Any]:
    """A metadata entry right before the latest compaction, so a compaction can keep from one (R18)."""
    return {
        "type": "metadata",
        "id": draw.id("meta-0"),
        "parentId": previous["id"],
        "timestamp": previous["timestamp"],
        "key": "label",
        "value": draw.text(1, 3),
    }
