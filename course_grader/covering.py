"""The fixed covering set: edge cases every run of every lab's hidden tests includes, whatever the seed.

Seeded random cases find most mistakes, but whether a draw happens to hit an
exact boundary is luck, and a grade must not depend on luck. So each hidden
test also holds a fixed set of cases, built here without any randomness, with
at least one case that separates each plausible mistake class from the
reference: a group that does not fit between kept ones (R19: stop, never skip
to older groups), budgets that fit exactly and one token short (R17, R19), a
result placed before its call (R12), an entry that was already parsed (R3),
the capstone's exact threshold with compaction on and off (L1, L2), and every
path of overflow recovery (L4). As for the drawn cases, each expectation is
the reference's own outcome on the same input (``hidden_cases._Calls``);
nothing here types an expected value in.

``tests/test_mutants.py`` holds the set to that: it alone, without a single
drawn case, takes marks from every mutant in ``tests/mutants``.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from course_lib import chapter_example, context
from course_lib.builders import PathBuilder
from course_lib.catalogues import compactions
from course_lib.checklist import harness
from course_lib.lifecycle.cut_point import context_groups, group_cost
from course_lib.models import SessionEntry, StopReason
from course_lib.parsing import to_json_dict

from .hidden import HiddenCall
from .hidden_cases import _Calls, _group_costs, describe_path, reference_call

Covering = dict[str, tuple[HiddenCall, ...]]
"""The fixed calls of a lab's hidden tests, by test name (tests that share calls share them here too)."""

FIXED = "fixed-"
"""The covering calls' key part: their keys never collide with a drawn call's."""


def _wire(path: list[SessionEntry]) -> list[dict[str, Any]]:
    return [to_json_dict(entry) for entry in path]


# Lab 11.1 ---------------------------------------------------------------------------------


def _compact_1(**overrides: Any) -> dict[str, Any]:
    return copy.deepcopy(chapter_example.compact_1_wire(**overrides))


def _lab_11_1() -> Covering:
    calls = _Calls("11.1", "parse_session_entry", FIXED)
    valid = [("the chapter's compact-1", _compact_1())]
    valid += [(f"a compaction with {unusual.what}", unusual.applied(_compact_1())) for unusual in compactions.UNUSUAL]
    others = _wire(chapter_example.opening_path()) + [
        to_json_dict(
            PathBuilder(chapter_example.opening_path())
            .metadata("meta-1", "label", {"nested": [1, 2.5, None]})
            .entries[-1]
        )
    ]
    round_trip = [calls.make(what, value=value) for what, value in valid]
    round_trip += [calls.make(f"a {entry['type']} entry ({entry['id']})", value=entry) for entry in others]
    round_trip += [
        calls.make(f"{what}, handed over already parsed", value=value, reparse=True) for what, value in valid[:2]
    ]
    round_trip += [
        calls.make(f"a {entry['type']} entry ({entry['id']}), handed over already parsed", value=entry, reparse=True)
        for entry in others
        if entry["id"] in ("calls", "meta-1")
    ]
    rejected = []
    for malformed in compactions.MALFORMED:  # the catalogue the checklist tries on compact-1, here under another id
        entry, fields = malformed.applied(_compact_1(id="ck-fixed"))
        rejected.append(
            calls.make(
                f"a compaction with {malformed.what}", value=entry, reject=("ck-fixed", compactions.leaf(fields[0]))
            )
        )
    blank, _ = compactions.BLANK_ID.applied(_compact_1())
    rejected.append(calls.make(f"a compaction with {compactions.BLANK_ID.what}", value=blank, reject=("id",)))
    return {"generated_compactions_round_trip": tuple(round_trip), "generated_malformed_compactions": tuple(rejected)}


# Lab 11.2 ---------------------------------------------------------------------------------


def _tool_session() -> PathBuilder:
    """Three groups with tool calls: results out of order, a result before its call, system messages inside and between."""
    return (
        PathBuilder()
        .system("sys", "You review code.")
        .user("u1", "Read two files.")
        .assistant(
            "c1", "Reading.", tool_calls=[("read-a", "read", {"path": "a.py"}), ("read-b", "read", {"path": "b.py"})]
        )
        .tool_result("r-b", "read-b", "read", "b loaded.")
        .system("patch-1", "", sections={"rules": "Prefer small diffs."})
        .assistant("progress", "Still reading.")
        .tool_result("r-a", "read-a", "read", "a loaded.")
        .assistant("a1", "Both read.")
        .system("patch-2", "Be brief.")
        .user("u2", "Run the tests.")
        .tool_result("r-early", "test-1", "test", "3 passed.")  # R12: by id only, so a result may come first
        .assistant("c2", "Testing.", tool_calls=[("test-1", "test", {"pattern": "all"})])
        .assistant("a2", "Tests pass.")
        .user("u3", "Write it up.")
        .assistant("c3", "Writing.", tool_calls=[("write-1", "write", {"path": "NOTES.md", "lines": ["a"]})])
        .tool_result("r-w", "write-1", "write", "written.")
        .assistant("a3", "Done.")
    )


def _messages(builder: PathBuilder) -> list[dict[str, Any]]:
    return [to_json_dict(entry) for entry in builder.entries if entry.type == "message"]


def _lab_11_2() -> Covering:
    calls = _Calls("11.2", "group_interactions", FIXED)
    whole = _messages(_tool_session())
    by_id = {entry["id"]: entry for entry in whole}
    without_system = [entry for entry in whole if entry["message"]["role"] != "system"]
    valid = [
        calls.make(
            f"{describe_path(whole)}: results out of order, a result before its call, system messages inside "
            "and between groups",
            path=whole,
        ),
        calls.make(f"{describe_path(without_system)}: the same without system messages", path=without_system),
        calls.make("a lone user message", path=[by_id["u1"]]),
        calls.make("a system message only", path=[by_id["sys"]]),
        calls.make("an empty list of entries", path=[]),
    ]

    def drop(*ids: str) -> list[dict[str, Any]]:
        return [entry for entry in whole if entry["id"] not in ids]

    def moved(entry_id: str, after: str) -> list[dict[str, Any]]:
        rest = [entry for entry in whole if entry["id"] != entry_id]
        at = next(i for i, entry in enumerate(rest) if entry["id"] == after) + 1
        return rest[:at] + [by_id[entry_id]] + rest[at:]

    def retagged(entry_id: str, call_id: str) -> list[dict[str, Any]]:
        path = copy.deepcopy(whole)
        next(entry for entry in path if entry["id"] == entry_id)["message"]["toolCallId"] = call_id
        return path

    def again(entry_id: str, new_id: str) -> list[dict[str, Any]]:
        path = copy.deepcopy(whole)
        at = next(i for i, entry in enumerate(path) if entry["id"] == entry_id)
        return path[: at + 1] + [copy.deepcopy(path[at]) | {"id": new_id}] + path[at + 1 :]

    orphan = copy.deepcopy(by_id["a1"]) | {"id": "early"}
    broken = [
        ("an assistant message before the first user message", whole[:1] + [orphan] + whole[1:], ("early",)),
        ("a tool result before the first user message", whole[:1] + [by_id["r-b"]] + drop("r-b")[1:], ("r-b",)),
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
            calls.make(f"{describe_path(path)} with {what}", path=path, reject=names) for what, path, names in broken
        ),
    }


# Labs 11.3 and 11.5 -----------------------------------------------------------------------


def _ladder(builder: PathBuilder, prefix: str = "") -> PathBuilder:
    """Four groups whose teaching costs are small, large, middling, larger (2, 13, 3, 7), with tool calls and a patch.

    The cheap oldest group fits where the large one does not, so a selection that
    skips a group to try older ones shows (R19).
    """
    return (
        builder.user(f"{prefix}u1", "Hello.")
        .assistant(f"{prefix}a1", "Hi.")
        .user(f"{prefix}u2", "Review the whole restore module, please.")
        .assistant(f"{prefix}c2", "Reading it now.", tool_calls=[(f"{prefix}read-1", "read", {"path": "restore.py"})])
        .tool_result(f"{prefix}r2", f"{prefix}read-1", "read", "Loaded restore.py.")
        .system(f"{prefix}patch-1", "Prefer small diffs.", sections={"rules": "RULE v2"})
        .assistant(f"{prefix}a2", "Looks fine.")
        .user(f"{prefix}u3", "Run tests.")
        .assistant(f"{prefix}a3", "Passed.")
        .user(f"{prefix}u4", "Fix the tail.")
        .assistant(
            f"{prefix}c4",
            "Fixing.",
            tool_calls=[
                (f"{prefix}edit-1", "edit", {"path": "store.py", "lines": [3]}),
                (f"{prefix}test-1", "test", {"pattern": "tail"}),
            ],
        )
        .tool_result(f"{prefix}r4t", f"{prefix}test-1", "test", "Passed.")
        .tool_result(f"{prefix}r4e", f"{prefix}edit-1", "edit", "Edited.")
        .assistant(f"{prefix}a4", "Fixed.")
    )


def _plain_path() -> list[SessionEntry]:
    return _ladder(PathBuilder().system("sys", "You review code carefully.")).entries


def _resumed_path() -> list[SessionEntry]:
    """Two compactions (only the latest counts), a system patch after it, metadata in the resumed suffix."""
    builder = (
        PathBuilder().system("sys", "You review code carefully.").user("u0", "Start here.").assistant("a0", "Started.")
    )
    builder.add(
        chapter_example.compact_1(builder.entries, id="compact-0", firstKeptEntryId="u0", timestamp=builder.clock + 1)
    )
    _ladder(builder)
    builder.add(
        chapter_example.compact_1(builder.entries, id="compact-1", firstKeptEntryId="u1", timestamp=builder.clock + 1)
    )
    return (
        builder.system("patch-2", "Be brief.")
        .metadata("meta-1", "label", "after")
        .user("u5", "Go on.")
        .assistant("a5", "Going.")
        .entries
    )


def _budget_calls(calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """Budgets on every edge of R17–R20 for ``path``, computed from its own costs."""
    wire = _wire(path)
    unlimited = {"max_tokens": 10**9, "reserved_output": 0, "safety_margin": 0}
    tokens = reference_call("build_context", wire, None, unlimited, "teaching")["tokens"]
    costs = _group_costs(path)
    summary = tokens["messages"] - sum(costs)
    blocked = len(costs) - 3  # the group right before the two newest
    cheaper = min(costs[:blocked])
    assert cheaper < costs[blocked], "the covering path needs an older group cheaper than the one that does not fit"
    reserved, margin = 3, 1
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
        budget(newest_two, "the two newest groups fit exactly, with a fractional margin", safety_margin=1.5),
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


def _rejected_budgets(calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R15: every kind of bad option and estimate, and a bad estimate for a group the selection never walks to."""
    wire = _wire(path)
    good = {"max_tokens": 40, "reserved_output": 4, "safety_margin": 2}
    bad_options = [
        ("max_tokens", float("nan")),
        ("max_tokens", -1),
        ("max_tokens", True),
        ("max_tokens", "40"),
        ("max_tokens", None),
        ("reserved_output", float("inf")),
        ("reserved_output", -2),
        ("reserved_output", True),
        ("safety_margin", "2"),
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


def _lab_11_3() -> Covering:
    calls = _Calls("11.3", "build_context", FIXED)
    plain = _plain_path()
    no_system = [entry for entry in plain if not (entry.type == "message" and entry.message.role == "system")]
    made = [
        calls.make(
            "an empty path",
            path=[],
            options={"max_tokens": 10, "reserved_output": 2, "safety_margin": 1},
            estimator="teaching",
        )
    ]
    made += _budget_calls(calls, plain)
    made += _budget_calls(calls, no_system)
    labelled = _ladder(PathBuilder().system("sys", "You review code carefully.").metadata("meta-0", "label", "x"))
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
        "bad_budgets_rejected": tuple(_rejected_budgets(calls, plain)),
    }


def _bad_resume_points(calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R18: the latest compaction keeps from something that is not a user message before it, or from nothing."""
    wire = _wire(path)
    at = max(i for i, entry in enumerate(wire) if entry["type"] == "compaction")
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
            "id": "meta-0",
            "parentId": marked[at - 1]["id"],
            "timestamp": marked[at - 1]["timestamp"],
            "key": "label",
            "value": "before",
        },
    )
    made = []
    for what, target in targets:
        changed = copy.deepcopy(marked)
        changed[at + 1] = changed[at + 1] | {"firstKeptEntryId": target}
        made.append(
            calls.make(
                f"{describe_path(changed)}; the compaction keeps from {what} ({target!r})",
                path=changed,
                options={"max_tokens": 200, "reserved_output": 4, "safety_margin": 2},
                estimator="teaching",
                reject=(target,),
            )
        )
    return made


def _lab_11_5() -> Covering:
    calls = _Calls("11.5", "build_context", FIXED)
    resumed = _resumed_path()
    made = _budget_calls(calls, resumed) + _budget_calls(calls, _plain_path())
    shared = tuple(made)
    rejected = _rejected_budgets(calls, resumed) + _bad_resume_points(calls, resumed)
    return {
        "generated_resume_kept_groups_and_reason": shared,
        "generated_resume_token_projection": shared,
        "generated_resume_messages": shared,
        "bad_budgets_and_resume_points_rejected": tuple(rejected),
    }


# Lab 11.4 ---------------------------------------------------------------------------------


def _lab_11_4() -> Covering:
    calls = _Calls("11.4", "create_compaction_entry", FIXED)
    path = PathBuilder(chapter_example.resumed_path()).metadata("meta-1", "label", "end").entries

    def options(**overrides: Any) -> dict[str, Any]:
        return {
            "id": "compact-2",
            "timestamp": 1234.5,
            "summary": chapter_example.compact_1_summary_wire(),
            "first_kept_entry_id": "u3",
            "tokens_before": 17.25,
        } | overrides

    made = [
        calls.make(
            f"{describe_path(path)}, ending in a metadata entry; tokens_before 17.25", path=path, options=options()
        ),
        calls.make(
            f"{describe_path(path)}; keeping from the first group",
            path=path,
            options=options(first_kept_entry_id="u1", tokens_before=0, timestamp=7),
        ),
        calls.make(
            f"{describe_path(chapter_example.opening_path())}; keeping from the newest group",
            path=chapter_example.opening_path(),
            options=options(first_kept_entry_id="u3", id="compact-1"),
        ),
    ]
    rejected = [calls.make("an empty path", path=[], options=options(first_kept_entry_id="u1"), reject=())]
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
                f"{describe_path(path)}; keeping from {what} {name!r}",
                path=path,
                options=options(first_kept_entry_id=name),
                reject=(name,),
            )
        )
    for what, taken in [("a message", "a1"), ("the last entry", "meta-1"), ("a compaction", "compact-1")]:
        rejected.append(
            calls.make(
                f"{describe_path(path)}; the id of {what} {taken!r}",
                path=path,
                options=options(id=taken),
                reject=(taken,),
            )
        )
    return {"generated_compactions": tuple(made), "generated_rejections": tuple(rejected)}


# The capstone ----------------------------------------------------------------------------


def _answer(stop: StopReason, *, error: str | None = None, input_tokens: int = 10, number: int = 1) -> dict[str, Any]:
    entry = (
        PathBuilder()
        .assistant(
            f"reply-{number}",
            f"Scripted answer {number}.",
            stop_reason=stop,
            input_tokens=input_tokens,
            error_message=error,
        )
        .entries[-1]
    )
    return to_json_dict(entry)


TOO_LONG = "prompt is too long: 900 tokens > 800 maximum"


def _recovery_scripts() -> list[tuple[str, list[dict[str, Any]], int | float, Any]]:
    """(what, answers, context_window, max_attempts): every path of L4's loop."""
    ok = _answer("stop", number=9)
    return [
        ("no overflow", [ok], 800, 3),
        ("one overflow (error text), then an answer", [_answer("error", error=TOO_LONG), ok], 800, 3),
        ("an overflow every time, cap 3", [_answer("error", error=TOO_LONG)], 800, 3),
        ("an overflow, cap 0", [_answer("error", error=TOO_LONG)], 800, 0),
        (
            "two overflows, then an answer, cap 2",
            [_answer("error", error=TOO_LONG), _answer("length", error=TOO_LONG, number=2), ok],
            800,
            2,
        ),
        (
            "two overflows, then an answer, cap 1",
            [_answer("error", error=TOO_LONG), _answer("error", error=TOO_LONG, number=2), ok],
            800,
            1,
        ),
        (
            "another error (rate limited), not an overflow",
            [_answer("error", error="rate limited, try again later")],
            800,
            3,
        ),
        ("an error with no text, reported input above the window", [_answer("error", input_tokens=801), ok], 800, 3),
        ("a length stop, reported input above the window", [_answer("length", input_tokens=5000), ok], 4000, 3),
        (
            "a length stop with the overflow text",
            [_answer("length", error="maximum context length exceeded"), ok],
            800,
            3,
        ),
        ("a length stop, reported input exactly the window", [_answer("length", input_tokens=800), ok], 800, 3),
        ("a stop with reported input above the window", [_answer("stop", input_tokens=900)], 800, 3),
        ("an aborted answer with the overflow text", [_answer("aborted", error=TOO_LONG)], 800, 3),
        ("overflows past a large cap", [_answer("error", input_tokens=10_000)], 8000, 5),
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


def _lab_capstone() -> Covering:
    thresholds = _Calls("capstone", "should_compact", FIXED)
    decided = []
    for enabled in (True, False):
        settings = {"enabled": enabled, "reserve_tokens": 160, "keep_recent_tokens": 120}
        for tokens in (0, 639, 640, 640.5, 641, 10_000):
            decided.append(
                thresholds.make(
                    f"window 800, reserve 160, enabled {enabled}, context {tokens}",
                    options={"context_tokens": tokens, "context_window": 800, "settings": settings},
                )
            )
        for bad in (-1, float("nan"), float("inf"), True, "641", None):
            decided.append(
                thresholds.make(
                    f"enabled {enabled}, context_tokens {bad!r}",
                    reject=("context_tokens",),
                    options={"context_tokens": bad, "context_window": 800, "settings": settings},
                )
            )
        for window, names in ((160, ("reserve",)), (100, ("reserve",)), (0, ()), (float("nan"), ("context_window",))):
            decided.append(
                thresholds.make(
                    f"enabled {enabled}, a window of {window!r} with reserve 160",
                    reject=names,
                    options={"context_tokens": 10, "context_window": window, "settings": settings},
                )
            )
    cuts = _Calls("capstone", "find_cut_point", FIXED)
    paths = [
        ("the chapter's opening path", chapter_example.opening_path()),
        ("the chapter's path after compact-1", chapter_example.resumed_path()),
        ("a four-group path with a system patch", _plain_path()),
        ("a path resumed twice", _resumed_path()),
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
            f"the chapter's opening path, keep_recent_tokens={bad!r}",
            path=chapter_example.opening_path(),
            options={"keep_recent_tokens": bad},
            estimator="teaching",
            reject=("keep_recent_tokens",),
        )
        for bad in (0, -5, float("nan"), True)
    ]
    recoveries = _Calls("capstone", "retry_after_overflow", FIXED)
    recovered = [
        recoveries.make(
            f"{what}: window {window}, max_attempts {cap}",
            value={"answers": answers},
            options={"context_window": window, "max_attempts": cap},
        )
        for what, answers, window, cap in _recovery_scripts()
    ]
    recovered += [
        recoveries.make(
            f"max_attempts {bad!r}",
            value={"answers": [_answer("stop")]},
            reject=("max_attempts",),
            options={"context_window": 800, "max_attempts": bad},
        )
        for bad in (-1, True, 1.5, "3", None)
    ]
    return {
        "generated_thresholds": tuple(decided),
        "generated_cut_points": tuple(cut),
        "generated_overflow_recovery": tuple(recovered),
    }


COVERING: dict[str, Callable[[], Covering]] = {
    "11.1": _lab_11_1,
    "11.2": _lab_11_2,
    "11.3": _lab_11_3,
    "11.4": _lab_11_4,
    "11.5": _lab_11_5,
    "capstone": _lab_capstone,
}


@functools.cache
def covering_calls(lab: str) -> Covering:
    """The lab's fixed covering calls, by hidden test name: the same in every run, under every seed."""
    return COVERING[lab]()
