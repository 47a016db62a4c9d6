"""The covering set: the edge cases every run of every lab's hidden tests includes, drawn afresh from its seed.

Seeded random cases find most mistakes, but whether a draw happens to hit an
exact boundary is luck, and a grade must not depend on luck. So each hidden
test also holds a covering set of cases whose *shapes* are fixed, with at
least one case that separates each plausible mistake class from the
reference: a group that does not fit between kept ones (R19: stop, never skip
to older groups), budgets that fit exactly and one token short (R17, R19), a
result placed before its call (R12), an entry that was already parsed (R3),
the capstone's exact threshold with compaction on and off (L1, L2), and every
path of overflow recovery (L4).

What a shape does not fix is drawn from the run's seed (``_Draw``): every entry
id, every text (and so every cost the teaching estimator gives), timestamps,
summaries, windows, reserves and margins. The boundaries are then computed
from the drawn costs, so "one token short" is one token short of *these*
groups. A table of answers recorded offline under one seed answers none of
another seed's covering calls, and ``course-grade`` draws a new seed for every
run. As for the drawn cases, each expectation is the reference's own outcome
on the same input (``hidden_cases._Calls``); nothing here types an expected
value in.

``tests/course_lib/checklist/test_mutants.py`` holds the set to that: it alone, without a single
drawn case, takes marks from every mutant in ``tests/mutants``, under several seeds.
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Callable
from typing import Any

from course_lib import chapter_example, context
from course_lib.builders import PathBuilder
from course_lib.catalogues import compactions
from course_lib.checklist import harness
from course_lib.lifecycle.cut_point import context_groups, group_cost
from course_lib.models import SessionEntry, StopReason
from course_lib.parsing import to_json_dict

from .generate import TOOLS, WORDS, random_summary
from .hidden import HiddenCall
from .hidden_cases import _Calls, _group_costs, describe_path, lab_seed, reference_call

Covering = dict[str, tuple[HiddenCall, ...]]
"""The covering calls of a lab's hidden tests, by test name (tests that share calls share them here too)."""

FIXED = "fixed-"
"""The covering calls' key part: their keys never collide with a drawn call's."""


class _Draw:
    """What the covering shapes leave open, drawn from one seed: ids, texts (so costs), times, numbers.

    ``id("u1")`` is the same id for the same name within one draw, and a new one
    (never a name the shape uses) in another; ``words(n)`` is a text of exactly
    ``n`` words, so the teaching estimator gives it ``n`` tokens.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._ids: dict[str, str] = {}

    def id(self, name: str) -> str:
        if name not in self._ids:
            taken = set(self._ids.values())
            stem = name.rstrip("0123456789-") or "e"
            while (made := f"{stem}-{self.rng.randrange(36**3):03x}{self.rng.choice('kmpqrvwxz')}") in taken:
                pass
            self._ids[name] = made
        return self._ids[name]

    def words(self, count: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(count)).capitalize() + "."

    def text(self, low: int, high: int) -> str:
        return self.words(self.rng.randint(low, high))

    def clock(self) -> int:
        return self.rng.randint(0, 10**6)

    def between(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def tool(self) -> str:
        return self.rng.choice(TOOLS)

    def arguments(self) -> dict[str, Any]:
        return {"path": f"src/{self.rng.choice(WORDS)}.py", "lines": [self.between(1, 99)]}

    def summary(self) -> dict[str, Any]:
        return to_json_dict(random_summary(self.rng))


def _draw(lab: str, seed: int | None) -> _Draw:
    """The covering set's own stream for one lab and seed (a string seed: apart from the drawn cases' stream)."""
    return _Draw(random.Random(f"covering {lab} {lab_seed(lab, seed)}"))


def _wire(path: list[SessionEntry]) -> list[dict[str, Any]]:
    return [to_json_dict(entry) for entry in path]


def _opening(draw: _Draw) -> PathBuilder:
    """The chapter's opening path's shape: sys, two plain groups, a group with two calls answered out of order."""
    i = draw.id
    return (
        PathBuilder(clock=draw.clock())
        .system(i("sys"), draw.text(2, 5))
        .user(i("u1"), draw.text(2, 6))
        .assistant(i("a1"), draw.text(2, 6))
        .user(i("u2"), draw.text(2, 6))
        .assistant(i("a2"), draw.text(2, 6))
        .user(i("u3"), draw.text(2, 6))
        .assistant(
            i("calls"),
            draw.text(1, 3),
            tool_calls=[(i("read-1"), "read", draw.arguments()), (i("test-1"), "test", draw.arguments())],
        )
        .tool_result(i("r-test"), i("test-1"), "test", draw.text(2, 5))  # the second call's result comes first
        .tool_result(i("r-read"), i("read-1"), "read", draw.text(2, 5))
        .assistant(i("a3"), draw.text(2, 6))
    )


def _compaction(draw: _Draw, builder: PathBuilder, name: str, keeps_from: str) -> SessionEntry:
    """A compaction at the end of ``builder`` under drawn id, summary and tokensBefore, keeping from ``keeps_from``."""
    return chapter_example.compact_1(
        builder.entries,
        id=draw.id(name),
        firstKeptEntryId=draw.id(keeps_from),
        timestamp=builder.clock + 1,
        summary=draw.summary(),
        tokensBefore=draw.between(0, 900),
    )


def _resumed(draw: _Draw) -> PathBuilder:
    """The chapter's resumed path's shape: the opening path, compact-1 keeping from u2, then u4 and a4."""
    builder = _opening(draw)
    builder.add(_compaction(draw, builder, "compact-1", "u2"))
    return builder.user(draw.id("u4"), draw.text(2, 6)).assistant(draw.id("a4"), draw.text(2, 6))


# Lab 11.1 ---------------------------------------------------------------------------------


def _compact_wire(draw: _Draw, parent: str, **overrides: Any) -> dict[str, Any]:
    return (
        chapter_example.compact_1_wire(
            draw.id(parent),
            id=draw.id("compact-1"),
            timestamp=draw.clock(),
            summary=draw.summary(),
            firstKeptEntryId=draw.id("u2"),
            tokensBefore=draw.between(1, 5000),
        )
        | overrides
    )


def _lab_11_1(draw: _Draw) -> Covering:
    calls = _Calls("11.1", "parse_session_entry", FIXED)
    valid = [("a compaction like the chapter's compact-1", _compact_wire(draw, "a3"))]
    valid += [
        (f"a compaction with {unusual.what}", unusual.applied(_compact_wire(draw, "a3")))
        for unusual in compactions.UNUSUAL
    ]
    opening = _opening(draw)
    others = _wire(opening.metadata(draw.id("meta-1"), "label", {"nested": [draw.between(0, 9), 2.5, None]}).entries)
    round_trip = [calls.make(what, value=value) for what, value in valid]
    round_trip += [calls.make(f"a {entry['type']} entry ({entry['id']})", value=entry) for entry in others]
    round_trip += [
        calls.make(f"{what}, handed over already parsed", value=value, reparse=True) for what, value in valid[:2]
    ]
    round_trip += [
        calls.make(f"a {entry['type']} entry ({entry['id']}), handed over already parsed", value=entry, reparse=True)
        for entry in others
        if entry["id"] in (draw.id("calls"), draw.id("meta-1"))
    ]
    rejected = []
    named = draw.id("ck-fixed")
    for malformed in compactions.MALFORMED:  # the catalogue the checklist tries on compact-1, here under a drawn id
        entry, fields = malformed.applied(_compact_wire(draw, "a3", id=named))
        rejected.append(
            calls.make(f"a compaction with {malformed.what}", value=entry, reject=(named, compactions.leaf(fields[0])))
        )
    blank, _ = compactions.BLANK_ID.applied(_compact_wire(draw, "a3"))
    rejected.append(calls.make(f"a compaction with {compactions.BLANK_ID.what}", value=blank, reject=("id",)))
    return {"generated_compactions_round_trip": tuple(round_trip), "generated_malformed_compactions": tuple(rejected)}


# Lab 11.2 ---------------------------------------------------------------------------------


def _tool_session(draw: _Draw) -> PathBuilder:
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


def _messages(builder: PathBuilder) -> list[dict[str, Any]]:
    return [to_json_dict(entry) for entry in builder.entries if entry.type == "message"]


def _lab_11_2(draw: _Draw) -> Covering:
    calls = _Calls("11.2", "group_interactions", FIXED)
    i = draw.id
    whole = _messages(_tool_session(draw))
    by_id = {entry["id"]: entry for entry in whole}
    without_system = [entry for entry in whole if entry["message"]["role"] != "system"]
    valid = [
        calls.make(
            f"{describe_path(whole)}: results out of order, a result before its call, system messages inside "
            "and between groups",
            path=whole,
        ),
        calls.make(f"{describe_path(without_system)}: the same without system messages", path=without_system),
        calls.make("a lone user message", path=[by_id[i("u1")]]),
        calls.make("a system message only", path=[by_id[i("sys")]]),
        calls.make("an empty list of entries", path=[]),
    ]

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
    broken = [  # whole[0] is the system prompt, right before the first user message
        ("an assistant message before the first user message", whole[:1] + [orphan] + whole[1:], ("early",)),
        ("a tool result before the first user message", whole[:1] + [by_id[i("r-b")]] + drop("r-b")[1:], ("r-b",)),
        ("a result for a call no message made", retagged("r-a", "ghost-1"), ("ghost-1", "r-a")),
        ("a result for a call of another group", retagged("r-w", "read-a"), ("read-a",)),
        ("a result moved into the next group", moved("r-a", "u2"), ("read-a",)),
        ("a call declared twice", again("c2", "c2-again"), ("test-1",)),
        ("a second result for one call", again("r-b", "r-b-again"), ("read-b",)),
        ("a call without a result in the first group", drop("r-a"), ("read-a",)),
        ("a call without a result in the middle group", drop("r-early"), ("test-1",)),
        ("a call without a result in the last group", drop("r-w"), ("write-1",)),
        ("a result for an unknown call in the last group", retagged("r-w", "ghost-2"), ("ghost-2", "r-w")),
    ]
    return {
        "generated_groups": tuple(valid),
        "generated_broken_tool_facts": tuple(
            calls.make(f"{describe_path(path)} with {what}", path=path, reject=tuple(map(i, names)))
            for what, path, names in broken
        ),
    }


# Labs 11.3 and 11.5 -----------------------------------------------------------------------


def _ladder(draw: _Draw, builder: PathBuilder) -> PathBuilder:
    """Four groups whose teaching costs are small, large, middling, larger (2–3, 13–22, 4–6, 9–17),
    with tool calls and a patch; the words are drawn, the order of the costs is the shape.

    The cheap oldest group fits where the large one does not, so a selection that
    skips a group to try older ones shows (R19).
    """
    i, w = draw.id, draw.words
    return (
        builder.user(i("u1"), w(1))
        .assistant(i("a1"), w(draw.between(1, 2)))
        .user(i("u2"), w(draw.between(6, 9)))
        .assistant(i("c2"), w(draw.between(2, 4)), tool_calls=[(i("read-1"), draw.tool(), draw.arguments())])
        .tool_result(i("r2"), i("read-1"), "read", w(draw.between(2, 4)))
        .system(i("patch-1"), draw.text(2, 4), sections={"rules": draw.text(1, 3)})
        .assistant(i("a2"), w(draw.between(2, 4)))
        .user(i("u3"), w(draw.between(2, 3)))
        .assistant(i("a3"), w(draw.between(2, 3)))
        .user(i("u4"), w(draw.between(2, 4)))
        .assistant(
            i("c4"),
            w(draw.between(1, 3)),
            tool_calls=[(i("edit-1"), "edit", draw.arguments()), (i("test-1"), "test", draw.arguments())],
        )
        .tool_result(i("r4t"), i("test-1"), "test", w(draw.between(1, 2)))
        .tool_result(i("r4e"), i("edit-1"), "edit", w(draw.between(1, 2)))
        .assistant(i("a4"), w(draw.between(2, 4)))
    )


def _plain_path(draw: _Draw) -> list[SessionEntry]:
    return _ladder(draw, PathBuilder(clock=draw.clock()).system(draw.id("sys"), draw.text(2, 6))).entries


def _resumed_path(draw: _Draw) -> list[SessionEntry]:
    """Two compactions (only the latest counts), a system patch after it, metadata in the resumed suffix."""
    i = draw.id
    builder = (
        PathBuilder(clock=draw.clock())
        .system(i("sys"), draw.text(2, 6))
        .user(i("u0"), draw.text(1, 4))
        .assistant(i("a0"), draw.text(1, 4))
    )
    builder.add(_compaction(draw, builder, "compact-0", "u0"))
    _ladder(draw, builder)
    builder.add(_compaction(draw, builder, "compact-1", "u1"))
    return (
        builder.system(i("patch-2"), draw.text(1, 4))
        .metadata(i("meta-1"), "label", draw.text(1, 2))
        .user(i("u5"), draw.text(1, 3))
        .assistant(i("a5"), draw.text(1, 3))
        .entries
    )


def _budget_calls(draw: _Draw, calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """Budgets on every edge of R17–R20 for ``path``, computed from its own (drawn) costs."""
    wire = _wire(path)
    unlimited = {"max_tokens": 10**9, "reserved_output": 0, "safety_margin": 0}
    tokens = reference_call("build_context", wire, None, unlimited, "teaching")["tokens"]
    costs = _group_costs(path)
    summary = tokens["messages"] - sum(costs)
    blocked = len(costs) - 3  # the group right before the two newest
    cheaper = min(costs[:blocked])
    assert cheaper < costs[blocked], "the covering path needs an older group cheaper than the one that does not fit"
    reserved, margin = draw.between(1, 8), draw.between(1, 4)
    fixed = tokens["system"] + summary + reserved + margin

    def budget(
        room: int | float,
        what: str,
        *,
        reserved_output: int | float = reserved,
        safety_margin: int | float = margin,
        estimator: str = "teaching",
    ) -> HiddenCall:
        options = {
            "max_tokens": tokens["system"] + summary + reserved_output + safety_margin + room,
            "reserved_output": reserved_output,
            "safety_margin": safety_margin,
        }
        return calls.make(
            f"{describe_path(path)}; {what}; max_tokens={options['max_tokens']}, reserved_output="
            f"{reserved_output}, safety_margin={safety_margin}, {estimator} estimator",
            path=wire,
            options=options,
            estimator=estimator,
        )

    newest_two = costs[-1] + costs[-2]
    made = [
        budget(sum(costs), "every group fits exactly"),
        budget(sum(costs) - 1, "one token short of every group"),
        budget(newest_two, "the two newest groups fit exactly"),
        budget(newest_two - 1, "one token short of the two newest groups"),
        budget(newest_two + cheaper, "the next group does not fit, an older and cheaper one would"),
        budget(costs[-1], "the newest group fits exactly"),
        budget(costs[-1] - 1, "the newest group alone is one token too big"),
        budget(0, "nothing is left for messages"),
        budget(
            newest_two,
            "the two newest groups fit exactly, with a fractional margin",
            safety_margin=draw.between(0, 3) + 0.5,
        ),
        budget(
            newest_two,
            "the two newest groups fit exactly, with no reserve or margin",
            reserved_output=0,
            safety_margin=0,
        ),
        budget(
            sum(costs),
            "an estimator that marks the tool calls it is handed (on copies, harmless)",
            estimator="touching",
        ),
        calls.make(
            f"{describe_path(path)}; fixed costs above max_tokens; max_tokens={fixed - 2}, reserved_output={reserved}, "
            f"safety_margin={margin}",
            path=wire,
            estimator="teaching",
            options={"max_tokens": fixed - 2, "reserved_output": reserved, "safety_margin": margin},
        ),
    ]
    if summary:
        made.append(
            calls.make(
                f"{describe_path(path)}; only the summary costs, one token more than is available",
                path=wire,
                estimator="summary-only",
                options={"max_tokens": summary - 1, "reserved_output": 0, "safety_margin": 0},
            )
        )
    return made


def _good_budget(draw: _Draw) -> dict[str, Any]:
    return {
        "max_tokens": draw.between(20, 90),
        "reserved_output": draw.between(1, 8),
        "safety_margin": draw.between(1, 4),
    }


def _rejected_budgets(draw: _Draw, calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R15: every kind of bad option and estimate, and a bad estimate for a group the selection never walks to."""
    wire = _wire(path)
    good = _good_budget(draw)
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
            f"{describe_path(path)}; {name}={value!r}",
            path=wire,
            options=good | {name: value},
            estimator="teaching",
            reject=(),
        )
        for name, value in bad_options
    ]
    made += [
        calls.make(
            f"{describe_path(path)}; an estimator returning {kind}", path=wire, options=good, estimator=kind, reject=()
        )
        for kind in ("negative", "nan", "infinite", "bool", "text")
    ]
    first_user = next(
        entry
        for entry in wire
        if entry.get("message", {}).get("role") == "user" and entry["id"] in _candidate_ids(path)
    )
    marked = copy.deepcopy(wire)
    entry = next(e for e in marked if e["id"] == first_user["id"])
    entry["message"]["content"][0]["text"] = f"{harness.MARK} {entry['message']['content'][0]['text']}"
    made.append(
        calls.make(
            f"{describe_path(marked)}; an estimate of -1 for the oldest candidate group, max_tokens=0",
            path=marked,
            options={"max_tokens": 0, "reserved_output": 0, "safety_margin": 0},
            estimator="marked",
            reject=(),
        )
    )
    return made


def _candidate_ids(path: list[SessionEntry]) -> set[str]:
    compaction = context.latest_compaction(path)
    entries = context.resume_candidates(path, compaction) if compaction else path
    return {entry.id for entry in entries}


def _lab_11_3(draw: _Draw) -> Covering:
    calls = _Calls("11.3", "build_context", FIXED)
    plain = _plain_path(draw)
    no_system = [entry for entry in plain if not (entry.type == "message" and entry.message.role == "system")]
    made = [calls.make("an empty path", path=[], options=_good_budget(draw), estimator="teaching")]
    made += _budget_calls(draw, calls, plain)
    made += _budget_calls(draw, calls, no_system)
    head = PathBuilder(clock=draw.clock()).system(draw.id("sys"), draw.text(2, 6))
    labelled = _ladder(draw, head.metadata(draw.id("meta-0"), "label", draw.text(1, 2)))
    made.append(  # R23: metadata is never sent, so only the caller's path shows a build that deleted it
        calls.make(
            "a path with a metadata entry (it must still be there after the build)",
            path=labelled.entries,
            options={"max_tokens": 10**9, "reserved_output": 0, "safety_margin": 0},
            estimator="teaching",
        )
    )
    shared = tuple(made)
    return {
        "generated_kept_groups_and_reason": shared,
        "generated_token_projection": shared,
        "generated_messages": shared,
        "bad_budgets_rejected": tuple(_rejected_budgets(draw, calls, plain)),
    }


def _bad_resume_points(draw: _Draw, calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R18: the latest compaction keeps from something that is not a user message before it, or from nothing."""
    wire = _wire(path)
    at = max(n for n, entry in enumerate(wire) if entry["type"] == "compaction")
    targets = [
        ("an assistant message", "a2"),
        ("a tool call's message", "c4"),
        ("a tool result", "r4t"),
        ("a system message", "patch-1"),
        ("a metadata entry", "meta-0"),
        ("the older compaction", "compact-0"),
        ("a user message after it", "u5"),
        ("an unknown entry", "missing-1"),
    ]
    marked = copy.deepcopy(wire)
    marked.insert(
        at,
        {
            "type": "metadata",
            "id": draw.id("meta-0"),
            "parentId": marked[at - 1]["id"],
            "timestamp": marked[at - 1]["timestamp"],
            "key": "label",
            "value": draw.text(1, 3),
        },
    )
    options = _good_budget(draw) | {"max_tokens": draw.between(150, 400)}
    made = []
    for what, name in targets:
        target = draw.id(name)
        changed = copy.deepcopy(marked)
        changed[at + 1] = changed[at + 1] | {"firstKeptEntryId": target}
        made.append(
            calls.make(
                f"{describe_path(changed)}; the compaction keeps from {what} ({target!r})",
                path=changed,
                options=options,
                estimator="teaching",
                reject=(target,),
            )
        )
    return made


def _lab_11_5(draw: _Draw) -> Covering:
    calls = _Calls("11.5", "build_context", FIXED)
    resumed = _resumed_path(draw)
    made = _budget_calls(draw, calls, resumed) + _budget_calls(draw, calls, _plain_path(_Draw(draw.rng)))
    shared = tuple(made)
    rejected = _rejected_budgets(draw, calls, resumed) + _bad_resume_points(draw, calls, resumed)
    return {
        "generated_resume_kept_groups_and_reason": shared,
        "generated_resume_token_projection": shared,
        "generated_resume_messages": shared,
        "bad_budgets_and_resume_points_rejected": tuple(rejected),
    }


# Lab 11.4 ---------------------------------------------------------------------------------


def _lab_11_4(draw: _Draw) -> Covering:
    calls = _Calls("11.4", "create_compaction_entry", FIXED)
    i = draw.id
    path = _resumed(draw).metadata(i("meta-1"), "label", draw.text(1, 2)).entries
    opening = _opening(_Draw(draw.rng)).entries

    def options(**overrides: Any) -> dict[str, Any]:
        return {
            "id": i("compact-2"),
            "timestamp": draw.clock() + 0.5,
            "summary": draw.summary(),
            "first_kept_entry_id": i("u3"),
            "tokens_before": draw.between(1, 5000) + 0.25,
        } | overrides

    made = [
        calls.make(
            f"{describe_path(path)}, ending in a metadata entry; fractional tokens_before", path=path, options=options()
        ),
        calls.make(
            f"{describe_path(path)}; keeping from the first group",
            path=path,
            options=options(first_kept_entry_id=i("u1"), tokens_before=0, timestamp=draw.between(1, 10**6)),
        ),
        calls.make(
            f"{describe_path(opening)}; keeping from the newest group",
            path=opening,
            options=options(first_kept_entry_id=opening[5].id, id=i("compact-1")),
        ),
    ]
    rejected = [calls.make("an empty path", path=[], options=options(first_kept_entry_id=i("u1")), reject=())]
    for what, name in [
        ("an assistant message", "a2"),
        ("a tool call's message", "calls"),
        ("a tool result", "r-read"),
        ("a system message", "sys"),
        ("a metadata entry", "meta-1"),
        ("a compaction", "compact-1"),
        ("an unknown entry", "missing-1"),
    ]:
        rejected.append(
            calls.make(
                f"{describe_path(path)}; keeping from {what} {i(name)!r}",
                path=path,
                options=options(first_kept_entry_id=i(name)),
                reject=(i(name),),
            )
        )
    for what, name in [("a message", "a1"), ("the last entry", "meta-1"), ("a compaction", "compact-1")]:
        rejected.append(
            calls.make(
                f"{describe_path(path)}; the id of {what} {i(name)!r}",
                path=path,
                options=options(id=i(name)),
                reject=(i(name),),
            )
        )
    return {"generated_compactions": tuple(made), "generated_rejections": tuple(rejected)}


# The capstone ----------------------------------------------------------------------------


def _answer(
    draw: _Draw, stop: StopReason, *, error: str | None = None, input_tokens: int | None = None, number: int = 1
) -> dict[str, Any]:
    entry = (
        PathBuilder(clock=draw.clock())
        .assistant(
            draw.id(f"reply-{number}"),
            draw.text(2, 5),
            stop_reason=stop,
            input_tokens=draw.between(1, 60) if input_tokens is None else input_tokens,
            error_message=error,
        )
        .entries[-1]
    )
    return to_json_dict(entry)


def _recovery_scripts(draw: _Draw) -> list[tuple[str, list[dict[str, Any]], int | float, Any]]:
    """(what, answers, context_window, max_attempts): every path of L4's loop, under drawn windows and texts."""
    window = draw.between(300, 9000)
    too_long = f"prompt is too long: {window + draw.between(1, 500)} tokens > {window} maximum"

    def overflow(number: int = 1) -> dict[str, Any]:
        return _answer(draw, "error", error=too_long, number=number)

    ok = _answer(draw, "stop", number=9)
    big = draw.between(2000, 20_000)
    return [
        ("no overflow", [ok], window, draw.between(1, 5)),
        ("one overflow (error text), then an answer", [overflow(), ok], window, draw.between(1, 5)),
        ("an overflow every time", [overflow()], window, draw.between(2, 5)),
        ("an overflow, cap 0", [overflow()], window, 0),
        (
            "two overflows, then an answer, cap 2",
            [overflow(), _answer(draw, "length", error=too_long, number=2), ok],
            window,
            2,
        ),
        ("two overflows, then an answer, cap 1", [overflow(), overflow(2), ok], window, 1),
        (
            "another error (rate limited), not an overflow",
            [_answer(draw, "error", error="rate limited, try again later")],
            window,
            draw.between(1, 5),
        ),
        (
            "an error with no text, reported input above the window",
            [_answer(draw, "error", input_tokens=window + 1), ok],
            window,
            draw.between(1, 5),
        ),
        (
            "a length stop, reported input above the window",
            [_answer(draw, "length", input_tokens=big + draw.between(1, 900)), ok],
            big,
            draw.between(1, 5),
        ),
        (
            "a length stop with the overflow text",
            [_answer(draw, "length", error="maximum context length exceeded"), ok],
            window,
            draw.between(1, 5),
        ),
        (
            "a length stop, reported input exactly the window",
            [_answer(draw, "length", input_tokens=window), ok],
            window,
            draw.between(1, 5),
        ),
        (
            "a stop with reported input above the window",
            [_answer(draw, "stop", input_tokens=window + draw.between(1, 99))],
            window,
            draw.between(1, 5),
        ),
        ("an aborted answer with the overflow text", [_answer(draw, "aborted", error=too_long)], window, 3),
        ("overflows past a large cap", [_answer(draw, "error", input_tokens=big + 1)], big, draw.between(5, 8)),
    ]


def _keeps(path: list[SessionEntry]) -> list[int | float]:
    """keep_recent_tokens at, just below and just above each running total of the newest groups' costs (L3)."""
    totals: list[int | float] = []
    running: int | float = 0
    for cost in reversed(_context_costs(path)):
        running += cost
        totals.append(running)
    return sorted(
        {0.5, 1, *(keep for total in totals for keep in (total - 1, total - 0.5, total, total + 1) if keep > 0)}
    )


def _context_costs(path: list[SessionEntry]) -> list[int | float]:
    return [group_cost(group, chapter_example.teaching_estimator) for group in context_groups(path)]


def _lab_capstone(draw: _Draw) -> Covering:
    thresholds = _Calls("capstone", "should_compact", FIXED)
    window = draw.between(400, 200_000)
    reserve = draw.between(2, window // 3)
    limit = window - reserve
    decided = []
    for enabled in (True, False):
        settings = {"enabled": enabled, "reserve_tokens": reserve, "keep_recent_tokens": draw.between(1, 5000)}
        for tokens in (0, limit - 1, limit, limit + 0.5, limit + 1, window * 12):
            decided.append(
                thresholds.make(
                    f"window {window}, reserve {reserve}, enabled {enabled}, context {tokens}",
                    options={"context_tokens": tokens, "context_window": window, "settings": settings},
                )
            )
        for bad in (-1, float("nan"), float("inf"), True, str(limit + 1), None):
            decided.append(
                thresholds.make(
                    f"enabled {enabled}, context_tokens {bad!r}",
                    reject=("context_tokens",),
                    options={"context_tokens": bad, "context_window": window, "settings": settings},
                )
            )
        small = draw.between(1, reserve - 1)
        for too_small, names in (
            (reserve, ("reserve",)),
            (small, ("reserve",)),
            (0, ()),
            (float("nan"), ("context_window",)),
        ):
            decided.append(
                thresholds.make(
                    f"enabled {enabled}, a window of {too_small!r} with reserve {reserve}",
                    reject=names,
                    options={"context_tokens": draw.between(1, 20), "context_window": too_small, "settings": settings},
                )
            )
    cuts = _Calls("capstone", "find_cut_point", FIXED)
    opening = _opening(_Draw(draw.rng)).entries
    paths = [
        ("a path shaped like the chapter's opening path", opening),
        ("a path shaped like the chapter's path after compact-1", _resumed(_Draw(draw.rng)).entries),
        ("a four-group path with a system patch", _plain_path(_Draw(draw.rng))),
        ("a path resumed twice", _resumed_path(_Draw(draw.rng))),
    ]
    cut = [
        cuts.make(
            f"{what}, keep_recent_tokens={keep}, teaching estimator",
            path=path,
            options={"keep_recent_tokens": keep},
            estimator="teaching",
        )
        for what, path in paths
        for keep in _keeps(path)
    ]
    cut += [
        cuts.make(
            f"a path shaped like the chapter's opening path, keep_recent_tokens={bad!r}",
            path=opening,
            options={"keep_recent_tokens": bad},
            estimator="teaching",
            reject=("keep_recent_tokens",),
        )
        for bad in (0, -draw.between(1, 9), float("nan"), True)
    ]
    recoveries = _Calls("capstone", "retry_after_overflow", FIXED)
    recovered = [
        recoveries.make(
            f"{what}: window {context_window}, max_attempts {cap}",
            value={"answers": answers},
            options={"context_window": context_window, "max_attempts": cap},
        )
        for what, answers, context_window, cap in _recovery_scripts(draw)
    ]
    recovered += [
        recoveries.make(
            f"max_attempts {bad!r}",
            value={"answers": [_answer(draw, "stop")]},
            reject=("max_attempts",),
            options={"context_window": draw.between(300, 9000), "max_attempts": bad},
        )
        for bad in (-1, True, 1.5, "3", None)
    ]
    return {
        "generated_thresholds": tuple(decided),
        "generated_cut_points": tuple(cut),
        "generated_overflow_recovery": tuple(recovered),
    }


COVERING: dict[str, Callable[[_Draw], Covering]] = {
    "11.1": _lab_11_1,
    "11.2": _lab_11_2,
    "11.3": _lab_11_3,
    "11.4": _lab_11_4,
    "11.5": _lab_11_5,
    "capstone": _lab_capstone,
}


@functools.cache
def covering_calls(lab: str, seed: int | None = None) -> Covering:
    """The lab's covering calls, by hidden test name: the same shapes under every seed, ids, texts and numbers drawn from it.

    ``None`` is the lab's fixed seed, as for the drawn cases.
    """
    return COVERING[lab](_draw(lab, seed))
