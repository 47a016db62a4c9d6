"""What several labs' checks share: a build with the teaching estimator, its observation, and R15's and R23's guards.

Labs 11.3 and 11.5 both check ``build_context`` (11.5 on compacted paths), so
both sweep a budget with ``Selection``, observe a build's head, and state the
same guards on the options, the estimator and the caller's session. Lab 11.2
names the opening path's third group (``GROUP_3``) too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ... import fixtures, tool_facts
from ...builders import PathBuilder
from ...teaching.catalogues import budgets
from ...teaching.wording import Wording, listed, say
from ..check import Implementation
from ..expect import expect_equal, expect_rejects, observe, wire


def build(impl: Implementation, path: list[Any], budget: dict[str, int], **overrides: Any) -> Any:
    """``impl.build_context`` on ``path`` with a budget and the teaching estimator, any option overridden."""
    options = {**budget, "estimate_tokens": fixtures.teaching_estimator, **overrides}
    return impl.build_context(path, **options)


def _is_summary(message: Any) -> bool:
    blocks = getattr(message, "content", None)
    first = blocks[0] if isinstance(blocks, (list, tuple)) and blocks else None
    return getattr(message, "role", None) == "user" and str(getattr(first, "text", "")).startswith(
        "[Compaction summary]"
    )


def system_message(result: Any) -> Any:
    """The first system message of a build, in the wire format (``None`` when it sent none)."""
    system = next((m for m in result.messages if getattr(m, "role", None) == "system"), None)
    return None if system is None else wire(system)


def observe_head(result: Any, what: Wording) -> None:
    """The system message a build replayed (R16) and the summary it sent (R18), as the reference's build has them.

    ``what`` names the build (``say("the resumed path")``), so it is translated too.
    """
    observe(system_message(result), "R16", say("{what}: the replayed system message", what=what))
    summary = next((m for m in result.messages if _is_summary(m)), None)
    observe(None if summary is None else wire(summary), "R18", say("{what}: the summary message", what=what))


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

    def describe(self) -> Wording:
        """The costs, as a check names the selection: ``summary 40, groups 7, 15, 8``."""
        costs = listed(self.costs)
        if self.summary:
            return say("summary {summary}, groups {costs}", summary=self.summary, costs=costs)
        return say("groups {costs}", costs=costs)

    def __str__(self) -> str:
        return str(self.describe())


PATCHED_SYSTEM = {
    "role": "system",
    "content": "BASE\n\nPrefer small diffs.",
    "sections": {"rules": "RULE v2"},
    "timestamp": 1,
}
"""The system message replayed from a path with a system patch (``BASE``, then ``Prefer small diffs.``; R5, R6, R16)."""

GROUP_3 = ["u3", "calls", "r-test", "r-read", "a3"]
"""The opening path's newest group: a user message, two tool calls, their results (out of order), the answer."""
GROUP_2_AND_3 = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
"""The opening path's two newest groups: what the chapter's budget keeps."""


class _SpyEstimator:
    """The teaching estimator, noting every message it is handed that is the session's own object (R15)."""

    def __init__(self, path: list[Any]) -> None:
        self.originals = {id(entry.message): entry.id for entry in path if getattr(entry, "type", None) == "message"}
        self.handed: list[str] = []

    def __call__(self, message: Any) -> int:
        if id(message) in self.originals:
            self.handed.append(self.originals[id(message)])
        return fixtures.teaching_estimator(message)


def expect_history_stays(impl: Implementation, path: list[Any], what: Wording) -> None:
    """R23's "the session stays": after a build, the caller's path holds the same entries, each unchanged.

    Metadata and compaction entries are never sent, so a build that deletes
    them from the caller's list gives the right result and loses history: only
    the path itself, looked at after the call, shows it (as Lab 11.4's R24 row does).
    """
    ids, before = [entry.id for entry in path], wire(path)
    build(impl, path, fixtures.RESUME_BUDGET)
    expect_equal(
        [getattr(entry, "id", None) for entry in path],
        ids,
        "R23",
        say("{what}: its entry ids after the build (history stays)", what=what),
    )
    expect_equal(wire(path), before, "R23", say("{what}: every entry after the build (unchanged)", what=what))


def change_a_tool_argument(result: Any) -> None:
    """Edit the first tool call a build returned, as a caller may: no later build nor the session may see it (R23)."""
    message = next(m for m in result.messages if tool_facts.tool_call_ids(m))
    first = tool_facts.tool_call_ids(message)[0]
    next(b for b in message.content if getattr(b, "id", None) == first).arguments["path"] = "changed.ts"


def costed(costs: dict[str, int | float]) -> Callable[[Any], Any]:
    """An estimator reading a message's cost from its first text (the summary's is keyed by its first line)."""
    return lambda message: costs[message.content[0].text.split("\n")[0]] if message.content else 0


def expect_budget_guards(impl: Implementation, path: list[Any]) -> None:
    """R15: every option and every estimate is a finite number >= 0, all candidates estimated, on copies."""
    spy = _SpyEstimator(path)
    build(impl, path, fixtures.OPENING_BUDGET, estimate_tokens=spy)
    expect_equal(spy.handed, [], "R15", "session messages handed to the estimator itself (it must get copies)")
    for name, value in budgets.BAD_OPTIONS:
        expect_rejects(
            "R15",
            say("{option}={value}", option=name, value=repr(value)),
            lambda n=name, v=value: build(impl, path, fixtures.OPENING_BUDGET, **{n: v}),
        )
    for value in budgets.BAD_ESTIMATES.values():
        expect_rejects(
            "R15",
            say("an estimator returning {value}", value=repr(value)),
            lambda v=value: build(impl, path, fixtures.OPENING_BUDGET, estimate_tokens=budgets.returning(v)),
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
            estimate_tokens=costed({"u1": -1, "u2": 5, "u3": 3}),
        ),
    )
