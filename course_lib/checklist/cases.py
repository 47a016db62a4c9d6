"""The fifteen checks of the chapter (docs/rules.md), each runnable against any implementation of the lab functions.

A case receives an ``Implementation``: the four lab functions, the reference
ones unless a learner passed their own. Everything else (fixtures, stores,
``path_to``) is the course's, so a failure points at the learner's function.
"""

from __future__ import annotations

import copy
import functools
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import chapter_example, tool_facts
from ..builders import PathBuilder
from ..catalogues import broken_tool_facts, budgets, compactions
from ..catalogues.shorthand import shorthand_path
from ..compaction import create_compaction_entry
from ..context import build_context, latest_compaction
from ..grouping import group_interactions
from ..lifecycle.cut_point import find_cut_point
from ..lifecycle.overflow import retry_after_overflow
from ..lifecycle.settings import should_compact
from ..parsing import parse_session_entry
from ..paths import path_to
from ..store import InMemorySessionStore, JsonlSessionStore
from .expect import Diagnosis, expect, expect_equal, expect_independent, expect_rejects, expect_same, observe, wire


@dataclass(frozen=True)
class Implementation:
    """The functions under test; any left out are the course's reference."""

    parse_session_entry: Callable[..., Any] = parse_session_entry
    group_interactions: Callable[..., Any] = group_interactions
    build_context: Callable[..., Any] = build_context
    create_compaction_entry: Callable[..., Any] = create_compaction_entry
    should_compact: Callable[..., Any] = should_compact
    find_cut_point: Callable[..., Any] = find_cut_point
    retry_after_overflow: Callable[..., Any] = retry_after_overflow


@dataclass(frozen=True)
class Case:
    number: int
    lab: str
    name: str
    rules: str
    run: Callable[[Implementation], None] = field(repr=False)


CASES: list[Case] = []
"""Every check: the chapter's fifteen (Labs 11.1–11.5), then the capstone's (``capstone.py``)."""


def case(
    number: int, lab: str, rules: str
) -> Callable[[Callable[[Implementation], None]], Callable[[Implementation], None]]:
    def register(function: Callable[[Implementation], None]) -> Callable[[Implementation], None]:
        name = function.__name__.removeprefix("test_")
        CASES.append(Case(number, lab, name, rules, function))
        return function

    return register


def _ids(groups: Any) -> list[list[str]]:
    return [[entry.id for entry in group.entries] for group in groups]


def _build(impl: Implementation, path: list[Any], budget: dict[str, int], **overrides: Any) -> Any:
    options = {**budget, "estimate_tokens": chapter_example.teaching_estimator, **overrides}
    return impl.build_context(path, **options)


def _is_summary(message: Any) -> bool:
    blocks = getattr(message, "content", None)
    first = blocks[0] if isinstance(blocks, (list, tuple)) and blocks else None
    return getattr(message, "role", None) == "user" and str(getattr(first, "text", "")).startswith(
        "[Compaction summary]"
    )


def _system_message(result: Any) -> Any:
    """The first system message of a build, in the wire format (``None`` when it sent none)."""
    system = next((m for m in result.messages if getattr(m, "role", None) == "system"), None)
    return None if system is None else wire(system)


def observe_head(result: Any, what: str) -> None:
    """The system message a build replayed (R16) and the summary it sent (R18), as the reference's build has them."""
    observe(_system_message(result), "R16", f"{what}: the replayed system message")
    summary = next((m for m in result.messages if _is_summary(m)), None)
    observe(None if summary is None else wire(summary), "R18", f"{what}: the summary message")


def observe_build(result: Any, what: str) -> None:
    """A build result, observed one part at a time, each part under the rule that decides it.

    Judged against the reference's build of the same path: the system message
    (R16), the summary (R18), the order of the head (R21), the kept ids
    (R18/R19), the reason (R20), the room for messages (R17), the tokens (R22)
    and then every message (R21). So a build that differs is blamed on the
    first rule it breaks, whichever check built it.
    """
    observe_head(result, what)
    messages = list(result.messages)
    observe([getattr(m, "role", None) for m in messages], "R21", f"{what}: the roles of the messages, in order")
    observe(list(result.kept_entry_ids), "R18/R19", f"{what}: kept_entry_ids")
    observe(result.reason, "R20", f"{what}: reason")
    observe(result.tokens.available_for_messages, "R17", f"{what}: tokens.availableForMessages")
    observe(wire(result.tokens), "R22", f"{what}: tokens")
    observe(wire(messages), "R21", f"{what}: the messages")


EXPECTED_SUMMARY_TEXT = "\n".join(
    [
        "[Compaction summary]",
        "Goal: Verify session restore and JSONL writes.",
        "Constraints:",
        "- History is append-only.",
        "Completed:",
        "- Checked the session-restore logic.",
        "Decisions:",
        "- Restore only the active path.",
        "Changed files:",
        "- (none)",
        "Unresolved:",
        "- (none)",
        "Next:",
        "- Add a regression test.",
    ]
)


# --- Lab 11.1: the strict compaction record and the stores --------------------------


def compact_1_wire() -> dict[str, Any]:
    return chapter_example.compact_1_wire()


@case(1, "11.1", "R1 R3 R4")
def test_valid_compaction_parses_to_independent_copy(impl: Implementation) -> None:
    source = compact_1_wire()
    original = copy.deepcopy(source)
    parsed = impl.parse_session_entry(source)
    expect_equal(wire(parsed), original, "R1", "a valid compaction entry must parse to the same fields")
    expect_equal(
        (parsed.type, parsed.first_kept_entry_id),
        ("compaction", "u2"),
        "api",
        "snake_case attributes (type, first_kept_entry_id)",
    )
    expect_equal(parsed.tokens_before, 29, "R4", "tokens_before (recorded as given, never re-estimated)")
    expect_equal(list(wire(parsed)["summary"]), SUMMARY_FIELDS, "R1", "the summary's fields, in the fixed order")
    expect_independent(source, parsed, "R3", "the input and the parsed entry")
    source["summary"]["decisions"].append("changed by the caller later")
    source["summary"]["goal"] = "changed goal"
    expect_equal(wire(parsed), original, "R3", "changing the input after parsing must not change the parsed entry")
    again = impl.parse_session_entry(parsed)
    expect(again is not parsed, "R3", "parsing an already-parsed entry must return a new object, not the entry itself")
    expect_equal(wire(again), original, "R3", "an already-parsed entry, parsed again")
    for what, change in (
        ("setting parsed.summary.goal", lambda: setattr(parsed.summary, "goal", "x")),
        ("appending to parsed.summary.decisions", lambda: parsed.summary.decisions.append("x")),
    ):
        expect(_refused(change), "R3", f"{what} must be refused: a parsed entry cannot be changed in place")
    for what, value in _good_compactions():
        expect_equal(wire(impl.parse_session_entry(value)), value, "R1/R4", f"a compaction with {what} (valid)")


SUMMARY_FIELDS = ["goal", "constraints", "completed", "decisions", "changedFiles", "unresolved", "next"]


def _refused(change: Callable[[], Any]) -> bool:
    try:
        change()
    except Exception:  # noqa: BLE001 - any refusal will do (pydantic's ValidationError, a tuple's AttributeError)
        return True
    return False


def _good_compactions() -> list[tuple[str, dict[str, Any]]]:
    """Valid, if unusual, compactions (the catalogue's, on compact-1): R4 records tokensBefore as given."""
    return [(unusual.what, unusual.applied(compact_1_wire())) for unusual in compactions.UNUSUAL]


def _bad_compactions() -> list[tuple[str, dict[str, Any], tuple[str | tuple[str, ...], ...]]]:
    """(what, wire value, names the error must mention) for check 2: the id and the field path (R2), from the catalogue."""
    made: list[tuple[str, dict[str, Any], tuple[str | tuple[str, ...], ...]]] = []
    for malformed in (*compactions.MALFORMED, compactions.BLANK_ID):
        value, fields = malformed.applied(compact_1_wire())
        field_names = fields[0] if len(fields) == 1 else fields
        made.append(
            (malformed.what, value, (field_names,) if malformed is compactions.BLANK_ID else ("compact-1", field_names))
        )
    return made


@case(2, "11.1", "R1 R2")
def test_parser_rejects_bad_compactions(impl: Implementation) -> None:
    for what, value, names in _bad_compactions():
        expect_rejects("R1/R2", f"a compaction with {what}", lambda v=value: impl.parse_session_entry(v), names)


@case(3, "11.1", "R7 R9")
def test_stores_append_and_reopen(impl: Implementation) -> None:
    root = wire(chapter_example.opening_path()[1].model_copy(update={"parent_id": None}))
    compaction = compact_1_wire() | {"parentId": root["id"]}
    memory = InMemorySessionStore(parse=impl.parse_session_entry)
    for entry in (root, compaction):
        memory.append(entry)
    expect_equal(wire(memory.entries()), [root, compaction], "R7", "the in-memory store's entries")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        with JsonlSessionStore.open(path, parse=impl.parse_session_entry) as store:
            for entry in (root, compaction):
                store.append(entry)
        reopened = JsonlSessionStore.open(path, parse=impl.parse_session_entry).entries()
        expect_equal(wire(reopened), [root, compaction], "R9", "entries reopened from the JSONL file")
        expect(
            type(reopened[1]) is type(impl.parse_session_entry(compaction)),
            "R9",
            "the reopened compaction must be the parser's own compaction type",
        )


# --- Lab 11.2: interaction groups ----------------------------------------------------


@case(4, "11.2", "R11 R13")
def test_two_groups_as_isolated_copies(impl: Implementation) -> None:
    path = chapter_example.opening_path()[1:5]  # u1, a1, u2, a2
    before = wire(path)
    groups = impl.group_interactions(path)
    expect_equal(_ids(groups), [["u1", "a1"], ["u2", "a2"]], "R11", "groups of [u1, a1, u2, a2]")
    expect_independent(path, [group.entries for group in groups], "R13", "the input and the groups")
    expect(
        all(a is not b for group in groups for a in group.entries for b in path),
        "R13",
        "groups must hold copies of the entries, not the caller's objects",
    )
    expect_equal(wire(path), before, "R13", "the input after grouping")
    opening = impl.group_interactions(chapter_example.opening_path())
    expect_equal(
        _ids(opening), [["u1", "a1"], ["u2", "a2"], GROUP_3], "R11/R14", "groups of the opening path (sys in none)"
    )


@case(5, "11.2", "R12 R13 R14")
def test_out_of_order_results_stay_one_group(impl: Implementation) -> None:
    for case in broken_tool_facts.GROUPABLE:
        path = shorthand_path(case.shorthand)
        before = wire(path)
        groups = impl.group_interactions(path)
        expect_equal(_ids(groups), case.groups, case.rule, case.why)
        calls = next((entry for group in groups for entry in group.entries if tool_facts.tool_call_ids(entry)), None)
        if calls is not None:
            calls.message.content[1].arguments["path"] = "changed.ts"
        expect_equal(wire(path), before, "R13", "the input after changing a grouped tool call's arguments")


@case(6, "11.2", "R11 R12")
def test_broken_tool_facts_are_rejected(impl: Implementation) -> None:
    for broken in broken_tool_facts.BROKEN:
        expect_rejects(
            "R11/R12", broken.what, functools.partial(impl.group_interactions, broken.chapter_path()), broken.names
        )


# --- Lab 11.3: build_context without compaction --------------------------------------


@dataclass(frozen=True)
class Selection:
    """R17–R20 worked by hand for a path whose group costs are known: what a build must give at each max_tokens.

    The checks sweep a budget across every boundary with this, so a fit test
    off by one, a skipped group or a missing clamp shows up at some budget.
    """

    groups: list[list[str]]
    costs: list[int]
    fixed: int
    """system + reserved_output + safety_margin."""
    summary: int = 0

    def expected(self, max_tokens: int, *fields: str) -> dict[str, Any]:
        available = max(0, max_tokens - self.fixed)
        room, used = max(0, available - self.summary), 0
        kept: list[str] = []
        for group, cost in zip(reversed(self.groups), reversed(self.costs)):
            if used + cost > room:
                break
            kept, used = group + kept, used + cost
        reason = (
            "within_budget"
            if kept == [entry for group in self.groups for entry in group]
            else "trimmed"
            if kept
            else "single_group_overflow"
        )
        every = {
            "kept_entry_ids": kept or self.groups[-1],
            "reason": reason,
            "availableForMessages": available,
            "messages": self.summary + (used if kept else self.costs[-1]),
        }
        return {name: every[name] for name in fields}

    def __str__(self) -> str:
        summary = f"summary {self.summary}, " if self.summary else ""
        return f"{summary}groups {', '.join(map(str, self.costs))}"


GROUP_3 = ["u3", "calls", "r-test", "r-read", "a3"]
OPENING_TOKENS = {
    "maxTokens": 31, "system": 3, "messages": 22, "reservedOutput": 4,
    "safetyMargin": 2, "availableForMessages": 22, "total": 31,
}  # fmt: skip
GROUP_2_AND_3 = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]


class _SpyEstimator:
    """The teaching estimator, noting every message it is handed that is the session's own object (R15)."""

    def __init__(self, path: list[Any]) -> None:
        self.originals = {id(entry.message): entry.id for entry in path if getattr(entry, "type", None) == "message"}
        self.handed: list[str] = []

    def __call__(self, message: Any) -> int:
        if id(message) in self.originals:
            self.handed.append(self.originals[id(message)])
        return chapter_example.teaching_estimator(message)


@case(7, "11.3", "R15 R16 R17 R22")
def test_fixed_costs_come_first(impl: Implementation) -> None:
    result = _build(impl, chapter_example.opening_path(), chapter_example.OPENING_BUDGET)
    observe_head(result, "the chapter's budget")
    expect_equal(wire(result.tokens), OPENING_TOKENS, "R17/R22", "tokens for max 31, reserved 4, margin 2")
    expect_equal(list(result.kept_entry_ids), GROUP_2_AND_3, "R19", "kept_entry_ids for the chapter's budget")
    expect_equal(result.reason, "trimmed", "R20", "reason when group 1 is dropped")
    expect_equal(
        [m.role for m in result.messages],
        ["system", "user", "assistant", "user", "assistant", "toolResult", "toolResult", "assistant"],
        "R21",
        "message roles (system first, then groups 2 and 3)",
    )
    bigger_reserve = _build(impl, chapter_example.opening_path(), chapter_example.OPENING_BUDGET, reserved_output=10)
    expect_equal(bigger_reserve.tokens.available_for_messages, 16, "R17", "available with reserved_output 10")
    expect_equal(list(bigger_reserve.kept_entry_ids), GROUP_2_AND_3[2:], "R19", "kept ids when only 16 are left")
    starved = _build(impl, chapter_example.opening_path(), chapter_example.OPENING_BUDGET, max_tokens=5)
    expect_equal(
        starved.tokens.available_for_messages, 0, "R17", "available when fixed costs exceed max_tokens (never negative)"
    )
    no_system = _build(
        impl, chapter_example.opening_path()[1:], {"max_tokens": 31, "reserved_output": 0, "safety_margin": 2}
    )
    expect_equal(no_system.tokens.system, 0, "R16", "tokens.system without a system message")
    expect_equal(no_system.reason, "within_budget", "R20", "reason when all 29 tokens fit")
    expect_equal(no_system.messages[0].role, "user", "R21", "first message without a system message")
    empty = _build(impl, [], chapter_example.OPENING_BUDGET)
    expect_equal(
        (list(empty.kept_entry_ids), len(empty.messages), empty.reason, empty.tokens.total),
        ([], 0, "within_budget", 6),
        "R20",
        "an empty path (kept ids, messages, reason, total)",
    )
    patching = (
        PathBuilder().system("sys", "BASE", sections={"rules": "RULE v1"}).user("u1", "Hi.").assistant("a1", "Hello.")
    )
    patched = patching.system("patch", "Prefer small diffs.", sections={"rules": "RULE v2"}).user("u2", "More.").entries
    replayed = _build(impl, patched, {"max_tokens": 200, "reserved_output": 0, "safety_margin": 0})
    expect_equal(
        wire(replayed.messages[0]),
        {"role": "system", "content": "BASE\n\nPrefer small diffs.", "sections": {"rules": "RULE v2"}, "timestamp": 1},
        "R5/R16",
        "the system message replayed from every system message on the path",
    )
    expect_budget_guards(impl, chapter_example.opening_path())
    labelled = PathBuilder(chapter_example.opening_path()).metadata("label", "label", "reviewed")
    expect_history_stays(
        impl, labelled.user("u4", "Add a test.").assistant("a4", "Added.").entries, "a path with metadata"
    )


def expect_history_stays(impl: Implementation, path: list[Any], what: str) -> None:
    """R23's "the session stays": after a build, the caller's path holds the same entries, each unchanged.

    Metadata and compaction entries are never sent, so a build that deletes
    them from the caller's list gives the right result and loses history: only
    the path itself, looked at after the call, shows it (as Lab 11.4's R24 row does).
    """
    ids, before = [entry.id for entry in path], wire(path)
    _build(impl, path, chapter_example.RESUME_BUDGET)
    expect_equal(
        [getattr(entry, "id", None) for entry in path],
        ids,
        "R23",
        f"{what}: its entry ids after the build (history stays)",
    )
    expect_equal(wire(path), before, "R23", f"{what}: every entry after the build (unchanged)")


def _resumed_build(impl: Implementation, path: list[Any], budget: dict[str, int]) -> Any:
    """A build of a compacted path; a crash at the entry right after ``firstKeptEntryId`` is explained as such (R18).

    ``firstKeptEntryId`` is inclusive: the entry it names is the first kept. A
    suffix started one entry later opens on an assistant message, which
    ``group_interactions`` refuses: the learner should read about the cut point,
    not about that entry.
    """
    try:
        return _build(impl, path, budget)
    except NotImplementedError:
        raise
    except Exception as exc:
        kept = latest_compaction(path)
        ids = [entry.id for entry in path]
        if kept is None or kept.first_kept_entry_id not in ids[:-1]:
            raise
        after = ids[ids.index(kept.first_kept_entry_id) + 1]
        if not re.search(rf"(?<![\w-]){re.escape(after)}(?![\w-])", str(exc)):
            raise
        first_line = (str(exc).splitlines() or [""])[0][:160]
        raise Diagnosis(
            f"R18: firstKeptEntryId {kept.first_kept_entry_id!r} is itself kept (the cut point is inclusive), "
            f"but your build_context started at {after!r}, the entry after it ({type(exc).__name__}: {first_line})"
        ) from exc


def _change_a_tool_argument(result: Any) -> None:
    """Edit the first tool call a build returned, as a caller may: no later build nor the session may see it (R23)."""
    message = next(m for m in result.messages if tool_facts.tool_call_ids(m))
    first = tool_facts.tool_call_ids(message)[0]
    next(b for b in message.content if getattr(b, "id", None) == first).arguments["path"] = "changed.ts"


def _costed(costs: dict[str, int | float]) -> Callable[[Any], Any]:
    """An estimator reading a message's cost from its first text (the summary's is keyed by its first line)."""
    return lambda message: costs[message.content[0].text.split("\n")[0]] if message.content else 0


def expect_budget_guards(impl: Implementation, path: list[Any]) -> None:
    """R15: every option and every estimate is a finite number >= 0, all candidates estimated, on copies."""
    spy = _SpyEstimator(path)
    _build(impl, path, chapter_example.OPENING_BUDGET, estimate_tokens=spy)
    expect_equal(spy.handed, [], "R15", "session messages handed to the estimator itself (it must get copies)")
    for name, value in budgets.BAD_OPTIONS:
        expect_rejects(
            "R15",
            f"{name}={value!r}",
            lambda n=name, v=value: _build(impl, path, chapter_example.OPENING_BUDGET, **{n: v}),
        )
    for value in budgets.BAD_ESTIMATES.values():
        expect_rejects(
            "R15",
            f"an estimator returning {value!r}",
            lambda v=value: _build(impl, path, chapter_example.OPENING_BUDGET, estimate_tokens=budgets.returning(v)),
        )
    unwalked = PathBuilder().user("u1", "u1").user("u2", "u2").user("u3", "u3").entries
    expect_rejects(
        "R15",
        "an estimate of -1 for u1, in a group the selection never reaches (max_tokens 4; u2 costs 5, u3 3)",
        lambda: impl.build_context(
            unwalked,
            max_tokens=4,
            reserved_output=0,
            safety_margin=0,
            estimate_tokens=_costed({"u1": -1, "u2": 5, "u3": 3}),
        ),
    )


@case(8, "11.3", "R20")
def test_newest_group_alone_over_budget(impl: Implementation) -> None:
    result = _build(impl, chapter_example.opening_path(), chapter_example.TIGHT_BUDGET)
    expect_equal(result.reason, "single_group_overflow", "R20", "reason when only 10 are left for a group of 15")
    expect_equal(list(result.kept_entry_ids), GROUP_2_AND_3[2:], "R20", "the newest group must still be returned whole")
    expect_equal(result.tokens.total, 24, "R22", "total (3 + 15 + 4 + 2)")
    expect_equal(
        wire(result.tokens),
        {
            "maxTokens": 19,
            "system": 3,
            "messages": 15,
            "reservedOutput": 4,
            "safetyMargin": 2,
            "availableForMessages": 10,
            "total": 24,
        },
        "R22",
        "tokens for max 19, reserved 4, margin 2",
    )
    expect(
        result.tokens.total > result.tokens.max_tokens, "R20", "total may exceed max_tokens for a single group overflow"
    )


@case(9, "11.3", "R19 R21 R23")
def test_trims_only_at_group_boundaries(impl: Implementation) -> None:
    opening = Selection([["u1", "a1"], ["u2", "a2"], GROUP_3], [7, 7, 15], fixed=9)
    for max_tokens in range(9, 42):
        result = _build(impl, chapter_example.opening_path(), chapter_example.OPENING_BUDGET, max_tokens=max_tokens)
        expect_equal(
            {"kept_entry_ids": list(result.kept_entry_ids), "reason": result.reason},
            opening.expected(max_tokens, "kept_entry_ids", "reason"),
            "R19/R20",
            f"kept ids and reason at max_tokens={max_tokens}",
        )
    ladder = PathBuilder().user("u1", "u1").user("u2", "u2").user("u3", "u3").entries
    stopped = impl.build_context(
        ladder, max_tokens=10, reserved_output=0, safety_margin=0, estimate_tokens=_costed({"u1": 2, "u2": 14, "u3": 3})
    )
    expect_equal(
        list(stopped.kept_entry_ids),
        ["u3"],
        "R19",
        "kept ids when u2 (14) does not fit after u3 (3) in 10, though u1 (2) would: the selection stops there",
    )
    path = chapter_example.opening_path()
    before = wire(path)
    first = _build(impl, path, chapter_example.OPENING_BUDGET)
    _change_a_tool_argument(first)
    expect_equal(wire(path), before, "R23", "the session after changing a returned tool argument")
    second = _build(impl, path, chapter_example.OPENING_BUDGET)
    expect(wire(second) != wire(first), "R23", "a later build must not see a change made to an earlier result")


# --- Lab 11.4: create_compaction_entry -------------------------------------------------


def _create(impl: Implementation, path: list[Any], **overrides: Any) -> Any:
    options: dict[str, Any] = {
        "id": "compact-1",
        "timestamp": 100,
        "summary": wire(chapter_example.compact_1_summary()),
        "first_kept_entry_id": "u2",
        "tokens_before": 29,
    }
    options.update(overrides)
    return impl.create_compaction_entry(path, **options)


@case(10, "11.4", "R24 R25 R28")
def test_parent_derived_and_inputs_isolated(impl: Implementation) -> None:
    path = chapter_example.opening_path()
    before = wire(path)
    summary = wire(chapter_example.compact_1_summary())
    entry = _create(impl, path, summary=summary)
    expect_equal(wire(entry), compact_1_wire(), "R25/R28", "compact-1 created from the opening path")
    expect_equal(entry.parent_id, "a3", "R25", "parent_id (the path's last entry)")
    expect_equal(wire(path), before, "R24", "the path after creating a compaction (it must not change)")
    expect_equal(len(path), 10, "R24", "path length (the entry is not appended by the function)")
    expect_independent(summary, entry, "R28", "the summary argument and the new entry")
    summary["next"].append("changed by the caller later")
    expect_equal(wire(entry), compact_1_wire(), "R28", "the entry after changing the summary argument")
    labelled = PathBuilder(chapter_example.opening_path()).metadata("label", "label", "reviewed").entries
    expect_equal(
        _create(impl, labelled).parent_id, "label", "R25", "parent_id when the path ends with a metadata entry"
    )
    expect_equal(
        _create(impl, path, tokens_before=29.5, timestamp=100.5).tokens_before,
        29.5,
        "R4/R28",
        "tokens_before 29.5 (recorded as given)",
    )


@case(11, "11.4", "R25 R26 R27")
def test_bad_compactions_rejected(impl: Implementation) -> None:
    path = chapter_example.opening_path()
    expect_rejects("R25", "an empty path", lambda: _create(impl, []))
    for starts in ("u1", "u2", "u3"):
        expect_equal(
            _create(impl, path, first_kept_entry_id=starts).first_kept_entry_id,
            starts,
            "R27",
            f"firstKeptEntryId {starts!r} (it opens a group)",
        )
    for inside in ("sys", "a1", "a2", "calls", "r-test", "r-read", "a3"):
        expect_rejects(
            "R27",
            f"firstKeptEntryId {inside!r} (not the first entry of a group)",
            lambda i=inside: _create(impl, path, first_kept_entry_id=i),
            (inside,),
        )
    expect_rejects(
        "R27", "an unknown firstKeptEntryId", lambda: _create(impl, path, first_kept_entry_id="nope"), ("nope",)
    )
    expect_rejects("R26", "an id already on the path", lambda: _create(impl, path, id="a3"), ("a3",))
    expect_rejects(
        "R26",
        "the id of a compaction already on the path",
        lambda: _create(impl, chapter_example.resumed_path()),
        ("compact-1",),
    )


# --- Lab 11.5: resume from the latest compaction -------------------------------------


@case(12, "11.5", "R10 R18 R21")
def test_resume_through_path_to(impl: Implementation) -> None:
    path = path_to(chapter_example.sibling_tree(), "a4")
    result = _resumed_build(impl, path, chapter_example.RESUME_BUDGET)
    observe_head(result, "the resumed path")
    kept = GROUP_2_AND_3 + ["u4", "a4"]
    expect_equal(list(result.kept_entry_ids), kept, "R18", "kept ids after compact-1 (from u2, then u4, a4)")
    expect_equal([m.role for m in result.messages][:2], ["system", "user"], "R21", "the head: system, then the summary")
    expect_equal(len(result.messages), 2 + len(kept), "R21", "message count (system + summary + kept)")
    summary = result.messages[1]
    expect_equal(summary.content[0].text, EXPECTED_SUMMARY_TEXT, "R18", "the summary message's exact text")
    expect_equal(summary.timestamp, 100, "R18", "the summary message's timestamp (the compaction's)")
    texts = " ".join(b.text for m in result.messages[1:] for b in m.content if b.type == "text")
    for absent in ("Try the sibling branch.", "Check session-restore logic.", "Restores only chosen branch."):
        expect(absent not in texts, "R18", f"{absent!r} (a sibling or summarized message) must not be sent")
    expect_equal(result.reason, "within_budget", "R20", "reason for the resumed path")
    expect_equal(
        wire(result.tokens),
        {
            "maxTokens": 80,
            "system": 3,
            "messages": 70,
            "reservedOutput": 4,
            "safetyMargin": 2,
            "availableForMessages": 71,
            "total": 79,
        },
        "R18/R22",
        "tokens for the resumed path (the summary's 40 counted in messages)",
    )
    for first_kept, what in (
        ("a2", "an assistant message"),
        ("sys", "a system message"),
        ("note", "a metadata entry"),
        ("u4", "an entry after the compaction"),
    ):
        expect_rejects(
            "R18",
            f"a compaction keeping from {first_kept!r} ({what})",
            lambda k=first_kept: _build(impl, chapter_example.resumed_keeping_from(k), chapter_example.RESUME_BUDGET),
            (first_kept,),
        )
    expect_history_stays(impl, chapter_example.resumed_keeping_from("u2"), "a resumed path with metadata")


@case(13, "11.5", "R18 R23")
def test_only_the_newest_compaction_is_read(impl: Implementation) -> None:
    path = chapter_example.twice_compacted_path()
    first = _resumed_build(impl, path, chapter_example.RESUME_BUDGET)
    summaries = [m for m in first.messages if m.role == "user" and m.content[0].text.startswith("[Compaction summary]")]
    expect_equal(len(summaries), 1, "R18", "number of summary messages (only the latest compaction is read)")
    text = summaries[0].content[0].text
    expect("Goal: Finish the regression test." in text, "R18", "the summary must be compact-2's")
    expect(
        text.count("- (none)") == 4, "R18", f"empty lists must render '- (none)' (4 of them in compact-2); got {text!r}"
    )
    expect_equal(
        list(first.kept_entry_ids)[:2], ["u3", "calls"], "R18", "the suffix must start at compact-2's firstKeptEntryId"
    )
    observe_build(first, "the twice-compacted path")
    second = _build(impl, path, chapter_example.RESUME_BUDGET)
    expect_same(wire(first), wire(second), "R23", "two builds of the same path and options")
    expect_independent(first, second, "R23", "two build results")
    expect_independent(path, first, "R23", "the session and a build result")
    resumed = chapter_example.resumed_path()
    before = wire(resumed)
    earlier = _build(impl, resumed, chapter_example.RESUME_BUDGET)
    _change_a_tool_argument(earlier)
    expect_equal(wire(resumed), before, "R23", "the session after changing a returned tool argument")
    expect_same(
        wire(_build(impl, chapter_example.resumed_path(), chapter_example.RESUME_BUDGET)),
        wire(_build(impl, resumed, chapter_example.RESUME_BUDGET)),
        "R23",
        "a fresh build and a later build after changing an earlier result",
    )
    expect_budget_guards(impl, resumed)


@case(14, "11.5", "R19 R24 R27")
def test_resumed_path_compacts_again(impl: Implementation) -> None:
    path = chapter_example.resumed_path()
    again = impl.create_compaction_entry(
        path,
        id="compact-2",
        timestamp=200,
        summary=wire(chapter_example.compact_1_summary()),
        first_kept_entry_id="u3",
        tokens_before=70,
    )
    expect_equal(again.parent_id, "a4", "R25", "the second compaction's parent")
    path = PathBuilder([*path, again]).user("u5", "Run the suite.").assistant("a5", "Suite passes.").entries
    resumed = Selection([["u2", "a2"], GROUP_3, ["u4", "a4"]], [7, 15, 8], fixed=9, summary=40)
    twice = Selection([GROUP_3, ["u4", "a4"], ["u5", "a5"]], [15, 8, 5], fixed=9, summary=40)
    for selection, session in ((resumed, chapter_example.resumed_path()), (twice, path)):
        for max_tokens in range(5, 95):
            result = _resumed_build(impl, session, chapter_example.RESUME_BUDGET | {"max_tokens": max_tokens})
            expect_equal(
                {
                    "kept_entry_ids": list(result.kept_entry_ids),
                    "reason": result.reason,
                    "availableForMessages": result.tokens.available_for_messages,
                    "messages": result.tokens.messages,
                },
                selection.expected(max_tokens, "kept_entry_ids", "reason", "availableForMessages", "messages"),
                "R17/R18/R19",
                f"kept ids, reason and tokens at max_tokens={max_tokens} ({selection})",
            )
    tight = _build(impl, chapter_example.resumed_path(), chapter_example.OPENING_BUDGET)
    expect_equal(
        {"kept_entry_ids": list(tight.kept_entry_ids), "reason": tight.reason, "tokens": wire(tight.tokens)},
        {
            "kept_entry_ids": ["u4", "a4"],
            "reason": "single_group_overflow",
            "tokens": {
                "maxTokens": 31,
                "system": 3,
                "messages": 48,
                "reservedOutput": 4,
                "safetyMargin": 2,
                "availableForMessages": 22,
                "total": 57,
            },
        },
        "R18/R20",
        "the resumed path at max_tokens 31 (the summary alone uses up the 22 available)",
    )
    costly = PathBuilder().user("u1", "u1").assistant("a1", "a1").user("u2", "u2")
    costly.add(chapter_example.compact_1(costly.entries, firstKeptEntryId="u1"))
    starved = impl.build_context(
        costly.entries,
        max_tokens=5,
        reserved_output=0,
        safety_margin=0,
        estimate_tokens=_costed({"u1": 0, "a1": 0, "u2": 0, "[Compaction summary]": 7}),
    )
    expect_equal(
        {"kept_entry_ids": list(starved.kept_entry_ids), "reason": starved.reason},
        {"kept_entry_ids": ["u1", "a1", "u2"], "reason": "within_budget"},
        "R17/R18",
        "a summary costing 7 of 5 available: the room left is 0, never negative, so free groups still fit",
    )


@case(15, "11.5", "R5 R6 R16 R27")
def test_system_replays_across_the_compaction(impl: Implementation) -> None:
    path = chapter_example.system_replay_path()
    result = _resumed_build(impl, path, {"max_tokens": 200, "reserved_output": 4, "safety_margin": 2})
    expect_equal(
        _system_message(result),
        {"role": "system", "content": "BASE\n\nPrefer small diffs.", "sections": {"rules": "RULE v2"}, "timestamp": 1},
        "R16/R6",
        "the system message replayed from the whole path, before and after the compaction (R6's example)",
    )
    expect_equal(
        list(result.kept_entry_ids), ["u2", "a2", "u3", "a3"], "R18", "kept ids (no system message in a group)"
    )
    expect_equal(
        [m.role for m in result.messages],
        ["system", "user", "user", "assistant", "user", "assistant"],
        "R18/R21",
        "roles: the replayed system message, the summary, then the kept messages",
    )
    expect_equal(
        [m.role for m in result.messages].count("system"),
        1,
        "R18",
        "system messages in the result (folded into the head)",
    )
    summary = result.messages[1].content[0].text
    for prompt_text in ("BASE", "RULE", "Prefer small diffs."):
        expect(prompt_text not in summary, "R18", f"the summary must carry none of the system prompt ({prompt_text!r})")
    expect_rejects(
        "R27",
        "firstKeptEntryId 'patch-2' (a system message)",
        lambda: impl.create_compaction_entry(
            path,
            id="compact-2",
            timestamp=300,
            summary=wire(chapter_example.compact_1_summary()),
            first_kept_entry_id="patch-2",
            tokens_before=10,
        ),
        ("patch-2",),
    )
