"""What Labs 11.3 and 11.5 share: both grade ``build_context``, on plain paths (11.3) and resumed ones (11.5).

Their budgets are computed from each path's own costs, so every reason of R20
comes up and every edge of R17–R19 is hit exactly: the newest groups filling
the room, one token short, fixed costs above ``max_tokens``, only a summary
that costs. Both labs judge one build three ways (``projection_tests``: kept
groups and reason, the token projection, the messages), and both reject the
same bad budgets and estimates (R15). What only a resumed path has (a
compaction keeping from the wrong entry, R18) is Lab 11.5's own.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from course_lib import context, fixtures, grouping
from course_lib.checklist import harness
from course_lib.models import SessionEntry
from course_lib.parsing import to_json_dict
from course_lib.teaching.catalogues import budgets
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import Wording, say

from .. import shapes
from ..calls import Calls, describe_path, reference_call
from ..draws import Draw
from ..hidden import HiddenCall, HiddenTest

UNLIMITED = {"max_tokens": 10**9, "reserved_output": 0, "safety_margin": 0}
"""A budget every path fits: its build reports what the whole path costs."""


def describe_budget(options: Mapping[str, Any], estimator: str | None) -> Wording:
    """A build's budget in words: the options given (as code), then the estimator."""
    budget = ", ".join(
        f"{k}={options[k]!r}" for k in ("max_tokens", "reserved_output", "safety_margin") if k in options
    )
    if not estimator:
        return say("{budget}", budget=budget)
    return say("{budget}, {estimator} estimator", budget=budget, estimator=estimator)


def _described(path: Iterable[Any], what: Wording, options: Mapping[str, Any], estimator: str | None) -> Wording:
    """A build's case in words: the path's shape, what it tests, its budget."""
    return say(
        "{path}; {what}; {budget}", path=describe_path(path), what=what, budget=describe_budget(options, estimator)
    )


def group_costs(path: list[SessionEntry]) -> list[int]:
    """The teaching estimator's cost of each candidate group (after the latest compaction's firstKeptEntryId)."""
    compaction = context.latest_compaction(path)
    messages = context.resume_candidates(path, compaction) if compaction else [e for e in path if e.type == "message"]
    return [
        sum(fixtures.teaching_estimator(e.message) for e in group.entries)
        for group in grouping.group_interactions(messages)
    ]


def projection_tests(lab: str, prefix: str, calls: tuple[HiddenCall, ...]) -> tuple[HiddenTest, ...]:
    """One lab's builds judged three ways, each its own hidden test with its own rules."""
    return (
        HiddenTest(
            f"{prefix}_kept_groups_and_reason",
            lab,
            "R19 R20",
            message(
                "the newest whole groups that fit are kept, stopping at the first that does not; the reason names what happened"
            ),
            calls,
            view=lambda r: {"keptEntryIds": r["keptEntryIds"], "reason": r["reason"]},
        ),
        HiddenTest(
            f"{prefix}_token_projection",
            lab,
            "R16 R17 R22",
            message(
                "tokens: fixed costs first, available never below 0, total = system + messages + reserved + margin"
            ),
            calls,
            view=lambda r: {"tokens": r["tokens"]},
        ),
        HiddenTest(
            f"{prefix}_messages",
            lab,
            "R16 R18 R21",
            message("messages: the replayed system message, the summary (if any), then the kept messages"),
            calls,
            view=lambda r: {"messages": r["messages"]},
        ),
    )


def unwalked_estimate(calls: Calls, wire: list[dict[str, Any]], first: str) -> HiddenCall:
    """R15: an estimate of -1 for the oldest candidate group (``first`` opens it), which max_tokens=0 never reaches."""
    marked = copy.deepcopy(wire)
    entry = next(e for e in marked if e["id"] == first)
    entry["message"]["content"][0]["text"] = f"{harness.MARK} {entry['message']['content'][0]['text']}"
    return calls.make(
        say("{path}; an estimate of -1 for the oldest candidate group, max_tokens=0", path=describe_path(marked)),
        path=marked,
        options={"max_tokens": 0, "reserved_output": 0, "safety_margin": 0},
        estimator="marked",
        reject=(),
    )


# The drawn cases ---------------------------------------------------------------------------


def drawn_budget(rng: random.Random, path: list[SessionEntry]) -> tuple[dict[str, Any], str]:
    """A budget around what the whole path costs, so all three reasons of R20 come up."""
    estimator = rng.choice(("teaching", "teaching", "chars"))
    reserved, margin = rng.choice((0, 1, 4, 8)), rng.choice((0, 2, 1.5))
    whole = reference_call("build_context", [to_json_dict(e) for e in path], None, UNLIMITED, estimator)["tokens"][
        "total"
    ]
    fits = math.ceil(whole + reserved + margin)
    max_tokens = rng.choice((rng.randint(0, fits), rng.randint(fits // 2, fits), rng.randint(fits, fits + 10)))
    return {"max_tokens": max_tokens, "reserved_output": reserved, "safety_margin": margin}, estimator


def drawn_builds(calls: Calls, rng: random.Random, path: list[SessionEntry], count: int = 2) -> list[HiddenCall]:
    """``count`` builds of one generated path, each under its own drawn budget."""
    made = []
    for _ in range(count):
        options, estimator = drawn_budget(rng, path)
        made.append(
            calls.make(
                say("{path}; {budget}", path=describe_path(path), budget=describe_budget(options, estimator)),
                path=path,
                options=options,
                estimator=estimator,
            )
        )
    return made


def edge_calls(calls: Calls, rng: random.Random, path: list[SessionEntry]) -> list[HiddenCall]:
    """Budgets on the edges of R17–R19 for one path, and an estimator that marks what it is handed (R15).

    The newest groups fill the room exactly (a ``>=`` instead of ``>`` shows);
    fixed costs above max_tokens (a missing clamp shows); only the summary has
    a cost and it exceeds what is available (room for groups is 0, never
    negative, so the free groups still fit).
    """
    wire_path = [to_json_dict(e) for e in path]
    tokens = reference_call("build_context", wire_path, None, UNLIMITED, "teaching")["tokens"]
    costs = group_costs(path)
    summary = tokens["messages"] - sum(costs)
    newest = rng.randint(1, len(costs))
    reserved = rng.choice((0, 4))
    edges = [
        (
            {
                "max_tokens": tokens["system"] + summary + sum(costs[-newest:]) + reserved,
                "reserved_output": reserved,
                "safety_margin": 0,
            },
            "teaching",
            say("the newest {count} group(s) fill the room exactly", count=newest),
        ),
        (
            {"max_tokens": rng.randint(0, tokens["system"] + 8), "reserved_output": 8, "safety_margin": 2},
            "teaching",
            say("fixed costs above max_tokens"),
        ),
        (
            {"max_tokens": sum(costs) + tokens["system"] + summary + 4, "reserved_output": 4, "safety_margin": 0},
            "touching",
            say("an estimator that marks the tool calls it is handed (on copies, harmless)"),
        ),
    ]
    if summary:
        edges.append(
            (
                {"max_tokens": rng.randint(0, summary - 1), "reserved_output": 0, "safety_margin": 0},
                "summary-only",
                say("only the summary costs, more than is available"),
            )
        )
    return [
        calls.make(
            _described(path, what, options, estimator),
            path=path,
            options=options,
            estimator=estimator,
        )
        for options, estimator, what in edges
    ]


def drawn_rejections(calls: Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R15: options and estimates that are not finite numbers >= 0, and an invalid estimate the selection never walks to."""
    good = {"max_tokens": 40, "reserved_output": 4, "safety_margin": 2}
    rejected = [
        calls.make(
            say("{path}; {option}", path=describe_path(path), option="=".join((name, repr(value)))),
            path=path,
            options=good | {name: value},
            estimator="teaching",
            reject=(),
        )
        for name, value in budgets.BAD_OPTIONS
    ]
    rejected += [
        calls.make(
            say("{path}; an estimator returning {kind}", path=describe_path(path), kind=kind),
            path=path,
            options=good,
            estimator=kind,
            reject=(),
        )
        for kind in budgets.BAD_ESTIMATORS
    ]
    wire = [to_json_dict(e) for e in path]
    compaction = context.latest_compaction(path)
    first = (
        compaction.first_kept_entry_id
        if compaction
        else next(e["id"] for e in wire if e.get("message", {}).get("role") == "user")
    )
    rejected.append(unwalked_estimate(calls, wire, first))
    return rejected


# The covering set --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Room:
    """One path's covering budgets: max_tokens is its fixed costs (system, summary, reserve, margin) plus a room."""

    calls: Calls
    path: list[SessionEntry]
    wire: list[dict[str, Any]]
    fixed: int
    """The system prompt's and the summary's cost."""
    reserved: int
    margin: int

    def budget(
        self,
        room: int | float,
        what: Wording,
        *,
        reserved_output: int | float | None = None,
        safety_margin: int | float | None = None,
        estimator: str = "teaching",
    ) -> HiddenCall:
        """A build whose room for groups is exactly ``room`` (reserve and margin the path's own unless given)."""
        reserved_output = self.reserved if reserved_output is None else reserved_output
        safety_margin = self.margin if safety_margin is None else safety_margin
        options = {
            "max_tokens": self.fixed + reserved_output + safety_margin + room,
            "reserved_output": reserved_output,
            "safety_margin": safety_margin,
        }
        return self.calls.make(
            _described(self.path, what, options, estimator),
            path=self.wire,
            options=options,
            estimator=estimator,
        )


def covering_builds(draw: Draw, calls: Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """Budgets on every edge of R17–R20 for ``path``, computed from its own (drawn) costs."""
    wire = shapes.wire(path)
    tokens = reference_call("build_context", wire, None, UNLIMITED, "teaching")["tokens"]
    costs = group_costs(path)
    summary = tokens["messages"] - sum(costs)
    reserved, margin = draw.between(1, 8), draw.between(1, 4)
    room = _Room(calls, path, wire, tokens["system"] + summary, reserved, margin)
    made = _room_edges(draw, room, costs)
    fixed = room.fixed + reserved + margin
    over = f"max_tokens={fixed - 2}, reserved_output={reserved}, safety_margin={margin}"
    made.append(
        calls.make(
            say(
                "{path}; fixed costs above max_tokens; {budget}",
                path=describe_path(path),
                budget=over,
            ),
            path=wire,
            estimator="teaching",
            options={"max_tokens": fixed - 2, "reserved_output": reserved, "safety_margin": margin},
        )
    )
    if summary:
        made.append(
            calls.make(
                say("{path}; only the summary costs, one token more than is available", path=describe_path(path)),
                path=wire,
                estimator="summary-only",
                options={"max_tokens": summary - 1, "reserved_output": 0, "safety_margin": 0},
            )
        )
    return made


def _room_edges(draw: Draw, room: _Room, costs: list[int]) -> list[HiddenCall]:
    """R17–R19: every group, the two newest, the newest alone, each exactly and one token short; a skipped group."""
    blocked = len(costs) - 3  # the group right before the two newest
    cheaper = min(costs[:blocked])
    assert cheaper < costs[blocked], "the covering path needs an older group cheaper than the one that does not fit"
    newest_two = costs[-1] + costs[-2]
    budget = room.budget
    return [
        budget(sum(costs), say("every group fits exactly")),
        budget(sum(costs) - 1, say("one token short of every group")),
        budget(newest_two, say("the two newest groups fit exactly")),
        budget(newest_two - 1, say("one token short of the two newest groups")),
        budget(newest_two + cheaper, say("the next group does not fit, an older and cheaper one would")),
        budget(costs[-1], say("the newest group fits exactly")),
        budget(costs[-1] - 1, say("the newest group alone is one token too big")),
        budget(0, say("nothing is left for messages")),
        budget(
            newest_two,
            say("the two newest groups fit exactly, with a fractional margin"),
            safety_margin=draw.between(0, 3) + 0.5,
        ),
        budget(
            newest_two,
            say("the two newest groups fit exactly, with no reserve or margin"),
            reserved_output=0,
            safety_margin=0,
        ),
        budget(
            sum(costs),
            say("an estimator that marks the tool calls it is handed (on copies, harmless)"),
            estimator="touching",
        ),
    ]


def good_budget(draw: Draw) -> dict[str, Any]:
    return {
        "max_tokens": draw.between(20, 90),
        "reserved_output": draw.between(1, 8),
        "safety_margin": draw.between(1, 4),
    }


def covering_rejections(draw: Draw, calls: Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R15: every kind of bad option and estimate, and a bad estimate for a group the selection never walks to."""
    wire = shapes.wire(path)
    good = good_budget(draw)
    bad_options = [
        ("max_tokens", float("nan")),
        ("max_tokens", -1),
        ("max_tokens", True),
        ("max_tokens", str(good["max_tokens"])),
        ("max_tokens", None),
        ("reserved_output", float("inf")),
        ("reserved_output", -2),
        ("reserved_output", True),
        ("safety_margin", str(good["safety_margin"])),
        ("safety_margin", False),
        ("safety_margin", float("-inf")),
        ("safety_margin", -0.5),
    ]
    made = [
        calls.make(
            say("{path}; {option}", path=describe_path(path), option="=".join((name, repr(value)))),
            path=wire,
            options=good | {name: value},
            estimator="teaching",
            reject=(),
        )
        for name, value in bad_options
    ]
    made += [
        calls.make(
            say("{path}; an estimator returning {kind}", path=describe_path(path), kind=kind),
            path=wire,
            options=good,
            estimator=kind,
            reject=(),
        )
        for kind in ("negative", "nan", "infinite", "bool", "text")
    ]
    candidates = _candidate_ids(path)
    first_user = next(
        entry for entry in wire if entry.get("message", {}).get("role") == "user" and entry["id"] in candidates
    )
    made.append(unwalked_estimate(calls, wire, first_user["id"]))
    return made


def _candidate_ids(path: list[SessionEntry]) -> set[str]:
    compaction = context.latest_compaction(path)
    entries = context.resume_candidates(path, compaction) if compaction else path
    return {entry.id for entry in entries}
