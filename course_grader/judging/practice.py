"""A counterexample a learner can act on: a practice case, never a scored one, shrunk to the fewest entries.

A failed hidden test says which rule broke but must not reveal its cases'
expected values (they are the grade). So for a failed hidden test the grader
draws the same lab's cases again from a separate *practice* stream, runs the
learner's function on them (inside the sandbox, as extra calls) and the
reference on them (here), takes the first practice case where the two differ,
and shrinks it: whole groups, then single entries, are dropped while the
difference persists (a bounded number of tries). The feedback then shows that
small case in full: its entries, its budget, and where expected and got first
differ, with both values. Shown whole, it must tell nothing of the scored
cases: its stream is keyed apart from theirs (``draws.stream``, issue 43).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from course_lib.checklist.harness import ESTIMATORS
from course_lib.compaction import summary_message
from course_lib.models import CompactionEntry, MessageEntry, SessionEntry
from course_lib.parsing import parse_session_entry
from course_lib.teaching import i18n
from course_lib.teaching.i18n import message
from course_lib.teaching.json_diff import first_difference, short
from course_lib.teaching.lab_registry import Lab

from ..messages import MESSAGES
from .calls import reference_call
from .draws import Seed, stream
from .hidden import Expected, HiddenCall, HiddenTest, Rejected, Returned, call_verdict, described, view_of
from .hidden_cases import GENERATORS, hidden_tests

_Entry = TypeVar("_Entry", bound=SessionEntry)

Run = Callable[[dict[str, Any]], Mapping[str, Any]]
"""Sends one call to the learner's function (a request as ``HiddenCall.request`` gives it) and returns its outcome."""

MAX_CALLS = 150
"""Learner calls one submission may spend on counterexamples: search and shrinking together."""
SEARCHED = ("returned", "raised", "bad-return")
"""Outcomes worth a counterexample; a stub, a time-out or a borrowed reference are reported as they are."""
COUNTEREXAMPLE = message("Counterexample (a practice case, not a scored one)")
"""How a counterexample starts, on its own line after a hidden test's message (feedback pages show it apart)."""
HEADING = message("{counterexample}: {origin}")
"""The counterexample's first line: ``COUNTEREXAMPLE``, then what the case is."""


@functools.cache
def practice_tests(lab: Lab, seed: Seed = None) -> tuple[HiddenTest, ...]:
    """The lab's hidden tests drawn again from the practice seed: the same kinds of case, other sessions."""
    tests = GENERATORS[lab.id](stream(lab, seed, "practice"))
    return tuple(
        dataclasses.replace(test, calls=tuple(dataclasses.replace(call, key="p" + call.key[1:]) for call in test.calls))
        for test in tests
    )


def counterexamples(
    lab: Lab,
    outcomes: Mapping[str, Mapping[str, Any]],
    run: Run,
    seed: Seed = None,
    language: str = i18n.DEFAULT,
) -> dict[str, str]:
    """For each failed hidden test of ``lab``, a shrunk practice counterexample (by test name) when one is found.

    Its words are in ``language``; the entries, values and field names are as the wire has them.
    """
    budget = _Budget(run)
    found: dict[str, str] = {}
    for test, practice in zip(hidden_tests(lab, seed), practice_tests(lab, seed)):
        failed = [outcomes.get(call.key) for call in test.calls if call_verdict(test, call, outcomes.get(call.key))]
        if not failed or not all(_searchable(outcome) for outcome in failed):
            continue
        text = _search(practice, budget, language)
        if text:
            found[test.name] = text
        if budget.stopped:
            break
    return found


def _searchable(outcome: Mapping[str, Any] | None) -> bool:
    return outcome is not None and outcome.get("kind") in SEARCHED and outcome.get("type") != "NotAvailableWhileGrading"


@dataclasses.dataclass
class _Budget:
    """Learner calls, each made once; stops after MAX_CALLS or at the first call that did not come back."""

    run: Run
    used: int = 0
    stopped: bool = False
    seen: dict[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)

    def outcome(self, call: HiddenCall) -> Mapping[str, Any] | None:
        key = json.dumps(call.request(), sort_keys=True, default=repr)
        if key not in self.seen:
            if self.stopped or self.used >= MAX_CALLS:
                self.stopped = True
                return None
            self.used += 1
            self.seen[key] = self.run(call.request())
            self.stopped = not _searchable(self.seen[key]) and self.seen[key].get("kind") != "not-implemented"
        return self.seen[key]


def _search(practice: HiddenTest, budget: _Budget, language: str) -> str | None:
    for call in practice.calls:
        outcome = budget.outcome(call)
        if outcome is None:
            return None
        if call_verdict(practice, call, outcome) and _searchable(outcome):
            shrunk, outcome = _shrink(practice, call, outcome, budget)
            return describe(practice, shrunk, outcome, call, language)
    return None


def _shrink(
    test: HiddenTest, call: HiddenCall, outcome: Mapping[str, Any], budget: _Budget
) -> tuple[HiddenCall, Mapping[str, Any]]:
    """Drop whole groups, then single entries, while the learner still differs from the reference."""
    improved = call.path is not None
    while improved and not budget.stopped:
        improved = False
        for smaller in _smaller_paths(call.path or []):
            candidate = _with_path(call, smaller)
            if candidate is None:
                continue
            got = budget.outcome(candidate)
            if got is None:
                break
            if (
                call_verdict(test, candidate, got)
                and _searchable(got)
                and _same_failure(test, candidate, got, call, outcome)
            ):
                call, outcome, improved = candidate, got, True
                break
    return call, outcome


def _same_failure(
    test: HiddenTest, call: HiddenCall, got: Mapping[str, Any], before: HiddenCall, outcome: Mapping[str, Any]
) -> bool:
    """A smaller case must show the same mistake: the same kind of outcome, differing in the same field."""
    if got.get("kind") != outcome.get("kind"):
        return False
    return got.get("kind") != "returned" or _field(test, call, got) == _field(test, before, outcome)


def _field(test: HiddenTest, call: HiddenCall, outcome: Mapping[str, Any]) -> str | None:
    if not isinstance(call.expected, Returned):
        return None
    found = first_difference(test.view(call.expected.value), view_of(test, outcome.get("value")))
    return found[0].split(".")[0].split("[")[0] if found else None


def _smaller_paths(path: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each group (a user message up to the next one) left out, then each single entry."""
    starts = [i for i, entry in enumerate(path) if _role(entry) == "user"]
    spans = [(start, end) for start, end in zip(starts, [*starts[1:], len(path)])]
    return [path[:start] + path[end:] for start, end in spans if end - start > 1] + [
        path[:index] + path[index + 1 :] for index in range(len(path))
    ]


def _with_path(call: HiddenCall, path: list[dict[str, Any]]) -> HiddenCall | None:
    """The call on ``path``, expecting what the reference does there; ``None`` if the reference now behaves otherwise."""
    expected: Expected
    try:
        expected = Returned(
            reference_call(call.function, path, call.value, call.options, call.estimator, reparse=call.reparse)
        )
    except ValueError as exc:
        if not isinstance(call.expected, Rejected) or not all(name in str(exc) for name in call.expected.names):
            return None
        expected = call.expected
    except Exception:  # noqa: BLE001 - a path the reference cannot even read is no counterexample
        return None
    if type(expected) is not type(call.expected):
        return None
    return dataclasses.replace(call, path=path, expected=expected)


def describe(
    test: HiddenTest,
    call: HiddenCall,
    outcome: Mapping[str, Any],
    drawn: HiddenCall | None = None,
    language: str = i18n.DEFAULT,
) -> str:
    """The counterexample in full: entries, budget, and expected against got where they first differ.

    ``drawn`` is the practice case before shrinking; its description no longer fits a shrunk path.
    """
    drawn = drawn or call
    if drawn.path is not None and len(drawn.path) != len(call.path or []):
        origin = MESSAGES("a generated session shrunk from {drawn} to {kept} entries", language).format(
            drawn=len(drawn.path), kept=len(call.path or [])
        )
    else:
        origin = described(drawn.description, language)
    lines = [MESSAGES(HEADING, language).format(counterexample=MESSAGES(COUNTEREXAMPLE, language), origin=origin)]
    if call.path is not None:
        entries = _entries(call.path, call.estimator, language) or MESSAGES("(empty)", language)
        lines.append("  " + MESSAGES("path: {entries}", language).format(entries=entries))
    if call.value is not None:
        lines.append("  " + MESSAGES("input: {value}", language).format(value=json.dumps(call.value)[:2000]))
    if call.options and call.function == "build_context":
        budget = ", ".join(f"{name}={value!r}" for name, value in call.options.items())
        said = MESSAGES("budget: {budget}; {estimator} estimator", language)
        lines.append("  " + said.format(budget=budget, estimator=call.estimator))
    elif call.options:
        options = ", ".join(f"{name}={short(value, 160)}" for name, value in call.options.items())
        lines.append("  " + MESSAGES("options: {options}", language).format(options=options))
    lines.append(f"  {_expected_and_got(test, call, outcome, language)}")
    return "\n".join(lines)


def _expected_and_got(test: HiddenTest, call: HiddenCall, outcome: Mapping[str, Any], language: str) -> str:
    expected = call.expected
    verdict = call_verdict(test, call, outcome, language)
    if isinstance(expected, Rejected):
        if expected.names:
            said = MESSAGES("expected: a ValueError naming {names}; got: {verdict}", language)
            return said.format(names=", ".join(map(repr, expected.names)), verdict=verdict)
        return MESSAGES("expected: a ValueError; got: {verdict}", language).format(verdict=verdict)
    if outcome.get("kind") != "returned":
        return MESSAGES("expected: a result; got: {verdict}", language).format(verdict=verdict)
    difference = first_difference(test.view(expected.value), view_of(test, outcome.get("value")))
    if difference is None:
        return MESSAGES("got: {verdict}", language).format(verdict=verdict)
    where, wanted, got = difference
    return MESSAGES("{where}: expected {expected}, got {got}", language).format(
        where=where or MESSAGES("result", language), expected=short(wanted, 200), got=short(got, 200)
    )


def _entries(path: list[dict[str, Any]], estimator: str | None, language: str = i18n.DEFAULT) -> str:
    return " ".join(_entry(entry, estimator, language) for entry in path)


def _entry(entry: dict[str, Any], estimator: str | None, language: str = i18n.DEFAULT) -> str:
    """One entry as a counterexample shows it: its id, then its type or role (values, as the wire has them), its cost."""
    if entry.get("type") == "compaction":
        cost = _cost(estimator, lambda: summary_message(_parsed(entry, CompactionEntry)), language)
        said = MESSAGES("compaction, keeps from {first}", language).format(first=entry.get("firstKeptEntryId"))
        if cost:
            said += MESSAGES(", summary {cost}", language).format(cost=cost)
        return f"{entry['id']}({said})"
    if entry.get("type") != "message":
        return f"{entry['id']}({entry.get('type')})"
    raw = entry.get("message")
    message: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    detail = _role(entry) or MESSAGES("no role", language)  # a malformed case (R1) still gets a description
    if detail == "toolResult":
        detail += MESSAGES(" of {call}", language).format(call=message.get("toolCallId"))
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    calls = [str(block.get("id")) for block in blocks if isinstance(block, dict) and block.get("type") == "toolCall"]
    if calls:
        detail += MESSAGES(" calling {calls}", language).format(calls=", ".join(calls))
    cost = _cost(estimator, lambda: _parsed(entry, MessageEntry).message, language)
    if cost:
        detail += MESSAGES(", {cost}", language).format(cost=cost)
    return f"{entry['id']}({detail})"


def _parsed(entry: Mapping[str, Any], kind: type[_Entry]) -> _Entry:
    """``entry`` parsed, as the kind its ``type`` names (a malformed one raises, and goes without a cost)."""
    parsed = parse_session_entry(entry)
    assert isinstance(parsed, kind), f"{entry.get('type')!r} parsed as {type(parsed).__name__}"
    return parsed


def _cost(estimator: str | None, message: Callable[[], Any], language: str = i18n.DEFAULT) -> str | None:
    """``cost N`` under the call's estimator, or ``None`` (no estimator, or one that fails on this message)."""
    if estimator not in ESTIMATORS:
        return None
    try:
        return MESSAGES("cost {tokens}", language).format(tokens=repr(ESTIMATORS[estimator](message())))
    except Exception:  # noqa: BLE001 - an estimator meant to fail (R15 cases) is shown without costs
        return None


def _role(entry: Mapping[str, Any]) -> str | None:
    message = entry.get("message")
    return message.get("role") if entry.get("type") == "message" and isinstance(message, Mapping) else None
