"""Lab 11.3's hidden cases: ``build_context`` on paths without a compaction (R15–R23).

The drawn cases build generated sessions under budgets around their own cost,
on the edges of R17–R19, and under bad budgets and estimates (R15). The
covering set builds the cost ladder (``shapes.ladder``) with and without a
system prompt under every edge budget, and a path with a metadata entry that
the build must leave in place (R23). What this lab shares with Lab 11.5 is in
``build_context``.
"""

from __future__ import annotations

import random

from course_lib import fixtures
from course_lib.builders import PathBuilder
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import say

from .. import shapes
from ..calls import FIXED, Calls
from ..draws import Covering, Draw
from ..generate import SessionRecipe, random_session
from ..hidden import HiddenTest
from .build_context import (
    UNLIMITED,
    covering_builds,
    covering_rejections,
    drawn_builds,
    drawn_rejections,
    edge_calls,
    good_budget,
    projection_tests,
)


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = Calls("11.3", "build_context")
    made = [calls.make(say("an empty path"), path=[], options=fixtures.OPENING_BUDGET, estimator="teaching")]
    for number in range(10):
        recipe = SessionRecipe(groups=(1, 7), system=number % 4 != 0)
        made += drawn_builds(calls, rng, random_session(rng.randrange(10**6), recipe))
    for _ in range(3):
        made += edge_calls(calls, rng, random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5))))
    rejected = drawn_rejections(calls, random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 4))))
    return (
        *projection_tests("11.3", "generated", tuple(made)),
        HiddenTest(
            "bad_budgets_rejected",
            "11.3",
            "R15",
            message(
                "options and estimates must be finite numbers >= 0 (a bool is not a number); anything else is a ValueError"
            ),
            tuple(rejected),
        ),
    )


def covering(draw: Draw) -> Covering:
    calls = Calls("11.3", "build_context", FIXED)
    plain = shapes.plain_path(draw)
    no_system = [entry for entry in plain if not (entry.type == "message" and entry.message.role == "system")]
    made = [calls.make(say("an empty path"), path=[], options=good_budget(draw), estimator="teaching")]
    made += covering_builds(draw, calls, plain)
    made += covering_builds(draw, calls, no_system)
    head = PathBuilder(clock=draw.clock()).system(draw.id("sys"), draw.text(2, 6))
    labelled = shapes.ladder(draw, head.metadata(draw.id("meta-0"), "label", draw.text(1, 2)))
    made.append(  # R23: metadata is never sent, so only the caller's path shows a build that deleted it
        calls.make(
            say("a path with a metadata entry (it must still be there after the build)"),
            path=labelled.entries,
            options=UNLIMITED,
            estimator="teaching",
        )
    )
    shared = tuple(made)
    return {
        "generated_kept_groups_and_reason": shared,
        "generated_token_projection": shared,
        "generated_messages": shared,
        "bad_budgets_rejected": tuple(covering_rejections(draw, calls, plain)),
    }
