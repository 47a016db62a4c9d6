"""The hidden cases of each lab: generated sessions the learner never saw.

The checklist pins the chapter's worked example, so a function that copies the
example's ids, costs or groups can pass it. These cases draw fresh sessions
(random groups, tool results in any order, system patches, metadata,
compactions, budgets) from fixed seeds, so every learner gets the same cases
and a rerun gives the same grade. Each call's expectation comes from running
the reference on the same input, here, outside the learner's kernel.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from course_lib import chapter_example, compaction, context, grouping, lab_registry, parsing, tool_facts
from course_lib.builders import PathBuilder
from course_lib.catalogues import broken_tool_facts, budgets, compactions
from course_lib.checklist import harness
from course_lib.lifecycle import cut_point, overflow
from course_lib.lifecycle import settings as lifecycle_settings
from course_lib.models import SessionEntry, StopReason
from course_lib.parsing import parse_session_entry, to_json_dict

from .generate import SessionRecipe, group_starts, random_session, random_summary
from .hidden import Expected, HiddenCall, HiddenTest, Rejected, Returned

REFERENCES: dict[str, Callable[..., Any]] = {
    "parse_session_entry": parsing.parse_session_entry,
    "group_interactions": grouping.group_interactions,
    "build_context": context.build_context,
    "create_compaction_entry": compaction.create_compaction_entry,
    "should_compact": lifecycle_settings.should_compact,
    "find_cut_point": cut_point.find_cut_point,
    "retry_after_overflow": overflow.retry_after_overflow,
}
"""The reference of each lab function: it decides what every hidden call should return."""


def lab_seed(lab: str, seed: int | None = None) -> int:
    """The seed a lab's hidden cases are drawn from: ``seed`` mixed with the lab, or the lab's fixed one."""
    entry = lab_registry.lab(lab)
    return entry.hidden_seed if seed is None else seed * 1000 + entry.hidden_seed


@functools.cache
def hidden_tests(lab: str, seed: int | None = None) -> tuple[HiddenTest, ...]:
    """The hidden tests of one lab: the covering set, then the cases drawn from ``seed``.

    The covering set (``covering.py``) has the same shapes in every run, so no
    seed can skip an edge case; its ids, texts, costs and budgets come from
    ``seed`` like the drawn cases. Both are the same on every call and machine
    for one seed; ``course-grade`` draws a new seed for every run (and records
    it), so nobody can tabulate their answers in advance; ``None`` is the lab's
    fixed seed (tests, examples).
    """
    from .covering import covering_calls  # it builds its calls with this module's _Calls

    fixed = covering_calls(lab, seed)
    drawn = GENERATORS[lab](random.Random(lab_seed(lab, seed)))
    unknown = set(fixed) - {test.name for test in drawn}
    assert not unknown, f"covering calls for hidden tests that {lab} does not have: {sorted(unknown)}"
    return tuple(dataclasses.replace(test, calls=fixed.get(test.name, ()) + test.calls) for test in drawn)


@functools.cache
def covering_tests(lab: str, seed: int | None = None) -> tuple[HiddenTest, ...]:
    """The lab's hidden tests holding only their covering calls under ``seed``: the shapes every run contains."""
    from .covering import covering_calls

    fixed = covering_calls(lab, seed)
    return tuple(
        dataclasses.replace(test, calls=fixed[test.name]) for test in hidden_tests(lab, seed) if test.name in fixed
    )


def hidden_calls(lab: str, seed: int | None = None) -> list[HiddenCall]:
    """Every distinct call of the lab's hidden tests, in order (tests may share calls)."""
    seen: dict[str, HiddenCall] = {}
    for test in hidden_tests(lab, seed):
        for call in test.calls:
            seen.setdefault(call.key, call)
    return list(seen.values())


def reference_call(
    function: str, path: Any, value: Any, options: Mapping[str, Any], estimator: str | None, *, reparse: bool = False
) -> Any:
    """What the reference returns for one call, in the wire format (a ValueError propagates)."""
    request = {"function": function, "path": path, "options": dict(options), "reparse": reparse}
    if value is not None:
        request["value"] = value
    if estimator:
        request["estimator"] = estimator
    args, kwargs = harness.decode(request)
    return harness.wire_result(function, harness.driven(request, REFERENCES[function])(*args, **kwargs))


class _Calls:
    """Collects the calls of one lab; each one's expectation comes from running the reference."""

    def __init__(self, lab: str, function: str, kind: str = "") -> None:
        self.lab = lab
        self.function = function
        self.kind = kind
        """``fixed-`` for the covering set's calls, whose keys must never collide with a drawn one's."""
        self.count = 0

    def make(
        self,
        description: str,
        *,
        path: Iterable[SessionEntry] | list[dict[str, Any]] | None = None,
        value: dict[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        estimator: str | None = None,
        reject: tuple[str, ...] | None = None,
        reparse: bool = False,
    ) -> HiddenCall:
        """A call; ``reject`` lists the ids the error must name when the input is invalid."""
        self.count += 1
        wire_path = None if path is None else [e if isinstance(e, dict) else to_json_dict(e) for e in path]
        options = dict(options or {})
        try:
            expected: Expected = Returned(
                reference_call(self.function, wire_path, value, options, estimator, reparse=reparse)
            )
        except ValueError as exc:
            if reject is None:
                raise AssertionError(f"hidden case {description!r}: the reference rejected it: {exc}") from None
            missing = [name for name in reject if name not in str(exc)]
            if missing:
                raise AssertionError(
                    f"hidden case {description!r}: the reference's error does not name {missing}: {exc}"
                ) from None
            expected = Rejected(reject)
        else:
            if reject is not None:
                raise AssertionError(f"hidden case {description!r}: the reference accepted it")
        key = f"h{self.lab.replace('.', '')}-{self.function}-{self.kind}{self.count:03d}"
        return HiddenCall(key, self.function, description, expected, wire_path, value, options, estimator, reparse)


def describe_path(path: Iterable[Any]) -> str:
    entries = [e if isinstance(e, dict) else to_json_dict(e) for e in path]
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    calls = sum(len(tool_facts.tool_call_ids(e)) for e in entries)
    parts = [_count(len(entries), "entry", "entries"), _count(roles.count("user"), "group"), _count(calls, "tool call")]
    patches = max(0, roles.count("system") - (1 if roles[:1] == ["system"] else 0))
    if patches:
        parts.append(_count(patches, "system patch", "system patches"))
    compactions = sum(e["type"] == "compaction" for e in entries)
    if compactions:
        parts.append(_count(compactions, "compaction"))
    return "a session of " + ", ".join(parts)


def _count(number: int, word: str, plural: str | None = None) -> str:
    return f"{number} {word if number == 1 else plural or word + 's'}"


def _describe_budget(options: Mapping[str, Any], estimator: str | None) -> str:
    budget = ", ".join(
        f"{k}={options[k]!r}" for k in ("max_tokens", "reserved_output", "safety_margin") if k in options
    )
    return f"{budget}, {estimator} estimator" if estimator else budget


# Lab 11.1 ---------------------------------------------------------------------------------


def _compactions(rng: random.Random, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    seed = 0
    while len(found) < count:
        seed += 1
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), compactions=2))
        found += [to_json_dict(e) for e in path if e.type == "compaction"]
    return found[:count]


def _lab_11_1(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = _Calls("11.1", "parse_session_entry")
    valid = _compactions(rng, 8)
    for index, unusual in enumerate(compactions.UNUSUAL, start=1):  # R4: recorded as given, on generated records too
        valid[index] = unusual.applied(valid[index])
    others = [
        to_json_dict(e) for e in random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 3), compactions=0))
    ]
    round_trip = [calls.make(f"a generated compaction entry ({e['id']})", value=e) for e in valid]
    round_trip += [calls.make(f"a generated {e['type']} entry ({e['id']})", value=e) for e in rng.sample(others, 4)]

    def mutated(malformed: compactions.Malformed) -> HiddenCall:
        """The catalogue's change on a generated compaction under a fresh id: the error names the id and the field (R2)."""
        entry = copy.deepcopy(rng.choice(valid))
        entry["id"] = f"ck-{rng.randrange(10**4)}"
        changed, fields = malformed.applied(entry)
        return calls.make(
            f"a compaction with {malformed.what}", value=changed, reject=(entry["id"], compactions.leaf(fields[0]))
        )

    rejections = [mutated(malformed) for malformed in rng.sample(compactions.MALFORMED, 20)]
    return (
        HiddenTest(
            "generated_compactions_round_trip",
            "11.1",
            "R1 R3 R4",
            "valid generated entries parse to equal values: every field kept, the summary's in the fixed order, "
            "tokensBefore recorded as given",
            tuple(round_trip),
            view=_with_summary_order,
        ),
        HiddenTest(
            "generated_malformed_compactions",
            "11.1",
            "R1 R2",
            "each malformed compaction is rejected with a ValueError naming the entry id and the field",
            tuple(rejections),
        ),
    )


def _with_summary_order(entry: Any) -> Any:
    """A parsed entry and its summary's field order, which a comparison of values alone would not see (R1)."""
    summary = entry.get("summary") if isinstance(entry, Mapping) else None
    return {"entry": entry, "summaryFieldOrder": list(summary) if isinstance(summary, Mapping) else None}


# Lab 11.2 ---------------------------------------------------------------------------------


def _message_entries(path: Iterable[SessionEntry]) -> list[dict[str, Any]]:
    return [to_json_dict(e) for e in path if e.type == "message"]


def _tool_group(rng: random.Random) -> list[dict[str, Any]]:
    """Message entries of a generated session in which at least one group has tool calls."""
    while True:
        entries = _message_entries(random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), max_tool_calls=3)))
        if any(e["message"]["role"] == "toolResult" for e in entries):
            return entries


def _lab_11_2(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = _Calls("11.2", "group_interactions")
    valid = []
    for number in range(8):
        recipe = SessionRecipe(groups=(1, 6), max_tool_calls=rng.choice((1, 3, 4)), system=number % 3 != 0)
        entries = _message_entries(random_session(rng.randrange(10**6), recipe))
        valid.append(calls.make(describe_path(entries), path=entries))
    valid.append(calls.make("an empty list of entries", path=[]))

    broken = []
    for name in (
        "before_first_user",
        "unknown_call",
        "declared_twice",
        "answered_twice",
        "unanswered",
        "answered_in_next_group",
        "unknown_call",
        "unanswered",
    ):
        change = broken_tool_facts.BY_NAME[name]
        entries = _tool_group(rng)
        names = change.draw(entries, rng)
        broken.append(calls.make(f"{describe_path(entries)} with {change.what}", path=entries, reject=names))
    return (
        HiddenTest(
            "generated_groups",
            "11.2",
            "R11 R13 R14",
            "groups of generated sessions: one per user message, system messages skipped, path order kept",
            tuple(valid),
        ),
        HiddenTest(
            "generated_broken_tool_facts",
            "11.2",
            "R11 R12",
            "each broken tool fact is rejected with a ValueError naming the call id or entry id",
            tuple(broken),
        ),
    )


# Labs 11.3 and 11.5 -----------------------------------------------------------------------


def _budget(rng: random.Random, path: list[SessionEntry]) -> tuple[dict[str, Any], str]:
    """A budget around what the whole path costs, so all three reasons of R20 come up."""
    estimator = rng.choice(("teaching", "teaching", "chars"))
    reserved, margin = rng.choice((0, 1, 4, 8)), rng.choice((0, 2, 1.5))
    unlimited = {"max_tokens": 10**9, "reserved_output": 0, "safety_margin": 0}
    whole = reference_call("build_context", [to_json_dict(e) for e in path], None, unlimited, estimator)["tokens"][
        "total"
    ]
    fits = math.ceil(whole + reserved + margin)
    max_tokens = rng.choice((rng.randint(0, fits), rng.randint(fits // 2, fits), rng.randint(fits, fits + 10)))
    return {"max_tokens": max_tokens, "reserved_output": reserved, "safety_margin": margin}, estimator


def _group_costs(path: list[SessionEntry]) -> list[int]:
    """The teaching estimator's cost of each candidate group (after the latest compaction's firstKeptEntryId)."""
    compaction = context.latest_compaction(path)
    messages = context.resume_candidates(path, compaction) if compaction else [e for e in path if e.type == "message"]
    return [
        sum(chapter_example.teaching_estimator(e.message) for e in group.entries)
        for group in grouping.group_interactions(messages)
    ]


def _edge_calls(calls: _Calls, rng: random.Random, path: list[SessionEntry]) -> list[HiddenCall]:
    """Budgets on the edges of R17–R19 for one path, and an estimator that marks what it is handed (R15).

    The newest groups fill the room exactly (a ``>=`` instead of ``>`` shows);
    fixed costs above max_tokens (a missing clamp shows); only the summary has
    a cost and it exceeds what is available (room for groups is 0, never
    negative, so the free groups still fit).
    """
    wire_path = [to_json_dict(e) for e in path]
    unlimited = {"max_tokens": 10**9, "reserved_output": 0, "safety_margin": 0}
    tokens = reference_call("build_context", wire_path, None, unlimited, "teaching")["tokens"]
    costs = _group_costs(path)
    summary = tokens["messages"] - sum(costs)
    newest = rng.randint(1, len(costs))
    reserved = rng.choice((0, 4))
    budgets = [
        (
            {
                "max_tokens": tokens["system"] + summary + sum(costs[-newest:]) + reserved,
                "reserved_output": reserved,
                "safety_margin": 0,
            },
            "teaching",
            f"the newest {newest} group(s) fill the room exactly",
        ),
        (
            {"max_tokens": rng.randint(0, tokens["system"] + 8), "reserved_output": 8, "safety_margin": 2},
            "teaching",
            "fixed costs above max_tokens",
        ),
        (
            {"max_tokens": sum(costs) + tokens["system"] + summary + 4, "reserved_output": 4, "safety_margin": 0},
            "touching",
            "an estimator that marks the tool calls it is handed (on copies, harmless)",
        ),
    ]
    if summary:
        budgets.append(
            (
                {"max_tokens": rng.randint(0, summary - 1), "reserved_output": 0, "safety_margin": 0},
                "summary-only",
                "only the summary costs, more than is available",
            )
        )
    return [
        calls.make(
            f"{describe_path(path)}; {what}; {_describe_budget(options, estimator)}",
            path=path,
            options=options,
            estimator=estimator,
        )
        for options, estimator, what in budgets
    ]


def _rejected_budgets(calls: _Calls, path: list[SessionEntry]) -> list[HiddenCall]:
    """R15: options and estimates that are not finite numbers >= 0, and an invalid estimate the selection never walks to."""
    good = {"max_tokens": 40, "reserved_output": 4, "safety_margin": 2}
    rejected = [
        calls.make(
            f"{describe_path(path)}; {name}={value!r}",
            path=path,
            options=good | {name: value},
            estimator="teaching",
            reject=(),
        )
        for name, value in budgets.BAD_OPTIONS
    ]
    rejected += [
        calls.make(
            f"{describe_path(path)}; an estimator returning {kind}", path=path, options=good, estimator=kind, reject=()
        )
        for kind in budgets.BAD_ESTIMATORS
    ]
    marked = [to_json_dict(e) for e in path]
    compaction = context.latest_compaction(path)
    first = (
        compaction.first_kept_entry_id
        if compaction
        else next(e["id"] for e in marked if e.get("message", {}).get("role") == "user")
    )
    entry = next(e for e in marked if e["id"] == first)
    entry["message"]["content"][0]["text"] = f"{harness.MARK} {entry['message']['content'][0]['text']}"
    rejected.append(
        calls.make(
            f"{describe_path(marked)}; an estimate of -1 for the oldest candidate group, max_tokens=0",
            path=marked,
            options={"max_tokens": 0, "reserved_output": 0, "safety_margin": 0},
            estimator="marked",
            reject=(),
        )
    )
    return rejected


def _bad_resume_points(calls: _Calls, rng: random.Random) -> list[HiddenCall]:
    """R18: the latest compaction keeps from an entry that is not a user message before it."""
    made = []
    for kind in ("assistant", "toolResult", "system", "metadata", "after", "assistant"):
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
            what = "an entry after it" if kind == "after" else f"a {kind} entry"
            made.append(
                calls.make(
                    f"{describe_path(path)}; the compaction keeps from {what} ({target!r})",
                    path=path,
                    options={"max_tokens": 200, "reserved_output": 4, "safety_margin": 2},
                    estimator="teaching",
                    reject=(target,),
                )
            )
    return made


def _projection_tests(lab: str, prefix: str, calls: tuple[HiddenCall, ...]) -> tuple[HiddenTest, ...]:
    return (
        HiddenTest(
            f"{prefix}_kept_groups_and_reason",
            lab,
            "R19 R20",
            "the newest whole groups that fit are kept, stopping at the first that does not; the reason names what happened",
            calls,
            view=lambda r: {"keptEntryIds": r["keptEntryIds"], "reason": r["reason"]},
        ),
        HiddenTest(
            f"{prefix}_token_projection",
            lab,
            "R16 R17 R22",
            "tokens: fixed costs first, available never below 0, total = system + messages + reserved + margin",
            calls,
            view=lambda r: {"tokens": r["tokens"]},
        ),
        HiddenTest(
            f"{prefix}_messages",
            lab,
            "R16 R18 R21",
            "messages: the replayed system message, the summary (if any), then the kept messages",
            calls,
            view=lambda r: {"messages": r["messages"]},
        ),
    )


def _lab_11_3(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = _Calls("11.3", "build_context")
    made = [calls.make("an empty path", path=[], options=chapter_example.OPENING_BUDGET, estimator="teaching")]
    for number in range(10):
        recipe = SessionRecipe(groups=(1, 7), system=number % 4 != 0)
        path = random_session(rng.randrange(10**6), recipe)
        for _ in range(2):
            options, estimator = _budget(rng, path)
            made.append(
                calls.make(
                    f"{describe_path(path)}; {_describe_budget(options, estimator)}",
                    path=path,
                    options=options,
                    estimator=estimator,
                )
            )

    for _ in range(3):
        made += _edge_calls(calls, rng, random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5))))
    rejected = _rejected_budgets(calls, random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 4))))
    return (
        *_projection_tests("11.3", "generated", tuple(made)),
        HiddenTest(
            "bad_budgets_rejected",
            "11.3",
            "R15",
            "options and estimates must be finite numbers >= 0 (a bool is not a number); anything else is a ValueError",
            tuple(rejected),
        ),
    )


def _lab_11_5(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = _Calls("11.5", "build_context")
    made = []
    for number in range(12):
        recipe = SessionRecipe(groups=(2, 7), compactions=(1, 1, 2, 3, 0)[number % 5], system=number % 6 != 5)
        path = random_session(rng.randrange(10**6), recipe)
        for _ in range(2):
            options, estimator = _budget(rng, path)
            made.append(
                calls.make(
                    f"{describe_path(path)}; {_describe_budget(options, estimator)}",
                    path=path,
                    options=options,
                    estimator=estimator,
                )
            )
    for _ in range(4):
        made += _edge_calls(
            calls, rng, random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), compactions=1))
        )
    rejected = _rejected_budgets(
        calls, random_session(rng.randrange(10**6), SessionRecipe(groups=(3, 5), compactions=1))
    )
    rejected += _bad_resume_points(calls, rng)
    return (
        *_projection_tests("11.5", "generated_resume", tuple(made)),
        HiddenTest(
            "bad_budgets_and_resume_points_rejected",
            "11.5",
            "R15 R18",
            "budgets and estimates must be finite numbers >= 0, every candidate estimated; a compaction must keep "
            "from a user message before it; anything else is a ValueError naming the entry",
            tuple(rejected),
        ),
    )


# Lab 11.4 ---------------------------------------------------------------------------------


def _lab_11_4(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = _Calls("11.4", "create_compaction_entry")

    def options(path: list[SessionEntry], **overrides: Any) -> dict[str, Any]:
        base = {
            "id": f"ck-{rng.randrange(10**4)}",
            "timestamp": rng.choice((rng.randint(1, 10**6), rng.randint(1, 10**6) + 0.5)),
            "summary": to_json_dict(random_summary(rng)),
            "first_kept_entry_id": rng.choice(group_starts(path)) if group_starts(path) else "u1",
            "tokens_before": rng.choice((0, rng.randint(1, 5000), 17.25)),
        }
        return base | overrides

    made = []
    for number in range(10):
        recipe = SessionRecipe(groups=(1, 6), compactions=number % 3, metadata=True)
        path = random_session(rng.randrange(10**6), recipe)
        if number % 4 == 1:
            path = path + [
                parse_session_entry(_metadata_after(path, rng))
            ]  # the parent is whatever entry is last (R25)
        made.append(calls.make(describe_path(path), path=path, options=options(path)))

    rejected = [calls.make("an empty path", path=[], options=options(random_session(1)), reject=())]
    for kind in (
        "taken id",
        "assistant",
        "toolResult",
        "system",
        "metadata",
        "compaction",
        "unknown",
        "taken id",
        "taken metadata id",
        "taken compaction id",
    ):
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), compactions=1, metadata=True))
        if kind.startswith("taken"):
            wanted = kind.split()[1]
            taken = rng.choice([e for e in path if wanted == "id" or e.type == wanted] or path).id
            made_options = options(path, id=taken)
        else:
            taken = _entry_of_kind(rng, path, kind)
            made_options = options(path, first_kept_entry_id=taken)
        rejected.append(
            calls.make(f"{describe_path(path)}; {kind} {taken!r}", path=path, options=made_options, reject=(taken,))
        )
    return (
        HiddenTest(
            "generated_compactions",
            "11.4",
            "R24 R25 R28",
            "a new entry whose parent is the path's last entry; the path and the arguments stay unchanged",
            tuple(made),
        ),
        HiddenTest(
            "generated_rejections",
            "11.4",
            "R25 R26 R27",
            "an empty path, a taken id, or a firstKeptEntryId that does not start a group is a ValueError naming it",
            tuple(rejected),
        ),
    )


def _metadata_after(path: list[SessionEntry], rng: random.Random) -> dict[str, Any]:
    last = path[-1]
    return {
        "type": "metadata",
        "id": f"meta-end-{rng.randrange(1000)}",
        "parentId": last.id,
        "timestamp": last.timestamp + 1,
        "key": "label",
        "value": "end",
    }


def _entry_of_kind(rng: random.Random, path: list[SessionEntry], kind: str) -> str:
    if kind == "unknown":
        return f"missing-{rng.randrange(1000)}"
    if kind in ("metadata", "compaction"):
        found = [e.id for e in path if e.type == kind]
    else:
        found = [e.id for e in path if e.type == "message" and e.message.role == kind]
    return rng.choice(found) if found else f"missing-{rng.randrange(1000)}"


# The capstone ----------------------------------------------------------------------------


def _capstone(rng: random.Random) -> tuple[HiddenTest, ...]:
    thresholds = _Calls("capstone", "should_compact")
    decided = []
    for _ in range(12):
        window = rng.randint(200, 200_000)
        reserve = rng.randint(1, window - 1)
        settings = {
            "enabled": rng.random() < 0.85,
            "reserve_tokens": reserve,
            "keep_recent_tokens": rng.randint(1, 5000),
        }
        tokens = rng.choice((window - reserve, window - reserve + 1, window - reserve - 1, rng.randint(0, window * 2)))
        decided.append(
            thresholds.make(
                f"window {window}, reserve {reserve}, enabled {settings['enabled']}, context {tokens}",
                options={"context_tokens": tokens, "context_window": window, "settings": settings},
            )
        )
    for bad in (-3, float("inf")):
        decided.append(
            thresholds.make(
                f"context_tokens {bad!r}",
                reject=("context_tokens",),
                options={
                    "context_tokens": bad,
                    "context_window": 800,
                    "settings": {"reserve_tokens": 160, "keep_recent_tokens": 120},
                },
            )
        )
    cuts = _Calls("capstone", "find_cut_point")
    made = []
    for number in range(12):
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(1, 7), compactions=number % 3, metadata=True))
        estimator = rng.choice(("teaching", "chars"))
        keep = rng.choice((1, rng.randint(2, 60), rng.randint(60, 400)))
        made.append(
            cuts.make(
                f"{describe_path(path)}, keep_recent_tokens={keep}, {estimator} estimator",
                path=path,
                options={"keep_recent_tokens": keep},
                estimator=estimator,
            )
        )
    recoveries = _Calls("capstone", "retry_after_overflow")
    recovered = []
    for _ in range(8):
        window = rng.randint(100, 10_000)
        answers = [_scripted_answer(rng, window, number) for number in range(1, rng.randint(1, 5) + 1)]
        cap = rng.randint(0, 4)
        recovered.append(
            recoveries.make(
                f"{len(answers)} scripted answer(s), window {window}, max_attempts {cap}",
                value={"answers": answers},
                options={"context_window": window, "max_attempts": cap},
            )
        )
    return (
        HiddenTest(
            "generated_thresholds",
            "capstone",
            "L1 L2",
            "compact only when enabled and strictly above window minus reserve, in both modes refusing bad numbers "
            "with a ValueError",
            tuple(decided),
        ),
        HiddenTest(
            "generated_cut_points",
            "capstone",
            "L3",
            "newest whole groups until keep_recent_tokens is reached; the first kept entry opens a group",
            tuple(made),
        ),
        HiddenTest(
            "generated_overflow_recovery",
            "capstone",
            "L4",
            "an error or length stop is an overflow when its text says so or its reported input is above the window; "
            "compact and resend at most max_attempts times (an int >= 0), then raise OverflowRecoveryError",
            tuple(recovered),
        ),
    )


def _scripted_answer(rng: random.Random, window: int, number: int) -> dict[str, Any]:
    """One model answer for overflow recovery: an overflow (by text or by size), another error, or a plain stop (L4)."""
    stop: StopReason = rng.choice(("stop", "error", "error", "length", "aborted"))
    error = rng.choice((None, None, "prompt is too long", "exceeds the context window", "rate limited"))
    size = rng.choice((rng.randint(0, window), window, window + 1, rng.randint(window, window * 2)))
    entry = (
        PathBuilder()
        .assistant(
            f"reply-{number}",
            f"Scripted answer {number}.",
            stop_reason=stop,
            input_tokens=size,
            error_message=error if stop != "stop" else None,
        )
        .entries[-1]
    )
    return to_json_dict(entry)


GENERATORS: dict[str, Callable[[random.Random], tuple[HiddenTest, ...]]] = {
    "11.1": _lab_11_1,
    "11.2": _lab_11_2,
    "11.3": _lab_11_3,
    "11.4": _lab_11_4,
    "11.5": _lab_11_5,
    "capstone": _capstone,
}
