"""Hidden cases: what one is, and how a learner's outcome is judged against the reference's.

A hidden call is a learner function applied to generated input (each lab's
module in ``labs/``, made with ``calls.Calls``); its expected outcome is what
the reference did with the same input: a wire-format value, or a
``ValueError`` whose message names given ids. The verdict is a short reason in words: the rule, never the expected value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from course_lib.teaching import i18n
from course_lib.teaching.i18n import MESSAGES as COURSE_MESSAGES
from course_lib.teaching.json_diff import first_difference
from course_lib.teaching.lab_registry import stub_said
from course_lib.teaching.wording import Wording

from ..messages import MESSAGES


@dataclass(frozen=True)
class Returned:
    value: Any


@dataclass(frozen=True)
class Rejected:
    names: tuple[str, ...]


Expected = Returned | Rejected


@dataclass(frozen=True)
class HiddenCall:
    """One call of a learner function on generated input, and what the reference did with it."""

    key: str
    function: str
    description: str
    """The case's shape in words, a ``say`` wording (ids and values its fields): ``described`` says it in a language."""
    expected: Expected = field(repr=False)
    path: list[dict[str, Any]] | None = field(default=None, repr=False)
    value: dict[str, Any] | None = field(default=None, repr=False)
    options: dict[str, Any] = field(default_factory=dict, repr=False)
    estimator: str | None = None
    reparse: bool = False
    """The parser is handed the entry it made of ``value``, not ``value`` itself (R3; ``harness.driven``)."""

    def request(self) -> dict[str, Any]:
        """The call as JSON for the kernel: inputs only, never the expected outcome, the key or any label.

        A covering, drawn and practice call take the same form: nothing the
        learner's function can read in the kernel says which kind it is (the
        grader knows a reply's call by the cell it sent).
        """
        data: dict[str, Any] = {"function": self.function, "path": self.path, "options": self.options}
        if self.value is not None:
            data["value"] = self.value
        if self.estimator:
            data["estimator"] = self.estimator
        if self.reparse:
            data["reparse"] = True
        return data


def _whole(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class HiddenTest:
    name: str
    lab: str
    rules: str
    hint: str
    """What the rules ask, in a few words: English, marked ``message`` for the catalog, said in the run's language."""
    calls: tuple[HiddenCall, ...] = field(repr=False)
    view: Callable[[Any], Any] = field(default=_whole, repr=False)
    """The part of a returned value this test compares (several tests may share calls)."""


def view_of(test: HiddenTest, value: Any) -> Any:
    """The part of a returned ``value`` that ``test`` compares; the whole value when that part is not there.

    A submission's function may return anything (a list where a build result
    belongs): that is a failed call, judged as a difference, never a grader crash.
    """
    try:
        return test.view(value)
    except (KeyError, IndexError, TypeError, AttributeError):
        return value


def _shape(value: Any, language: str = i18n.DEFAULT) -> str:
    """A returned value's kind, never its content (a hostile value may be megabytes)."""
    if isinstance(value, dict):
        return MESSAGES("an object with keys {keys}", language).format(keys=sorted(map(str, value))[:6])
    if isinstance(value, list):
        return MESSAGES("a list of {count} items", language).format(count=len(value))
    return MESSAGES("a {type}", language).format(type=type(value).__name__)


def call_verdict(
    test: HiddenTest, call: HiddenCall, outcome: Mapping[str, Any] | None, language: str = i18n.DEFAULT
) -> str | None:
    """``None`` when the call behaved like the reference, else a short reason in ``language`` (no expected value)."""
    if outcome is None:
        return MESSAGES("not run: the kernel stopped before this call", language)
    kind = outcome.get("kind")
    said = {"type": outcome.get("type"), "message": outcome.get("message")}
    if kind in ("skipped", "timeout"):
        return str(outcome.get("message", kind))
    if kind == "not-implemented":  # the lab's stub says so itself, in the reader's language; anything else is framed
        stub = stub_said(str(said["message"]), language)
        return stub if stub is not None else MESSAGES("not implemented yet ({message})", language).format_map(said)
    if kind == "bad-return":
        return MESSAGES("returned a {type}, which is not what the API describes ({message})", language).format_map(said)
    expected = call.expected
    if isinstance(expected, Returned):
        if kind == "raised":
            return MESSAGES("raised {type}: {message}", language).format_map(said)
        got = outcome.get("value")
        if (seen := view_of(test, got)) is got and test.view is not _whole:
            return MESSAGES("returned {shape}, not the shape the reference returns", language).format(
                shape=_shape(got, language)
            )
        difference = describe_difference(test.view(expected.value), seen, language)
        if difference:
            return difference
        if outcome.get("mutated"):
            return MESSAGES("changed its input (R3, R13, R23, R24: work on copies)", language)
        if outcome.get("shared"):
            return MESSAGES(
                "returned objects shared with its input: changing the result changed the input "
                "(R3, R13, R23: return copies)",
                language,
            )
        return None
    if kind == "returned":
        return MESSAGES("accepted the input; it must be rejected with a ValueError", language)
    if not outcome.get("value_error"):
        return MESSAGES("raised {type}, not a ValueError", language).format_map(said)
    message = str(outcome.get("message", ""))
    missing = [name for name in expected.names if name not in message]
    if missing:
        return MESSAGES("the error does not name {name}: {message}", language).format(
            name=repr(missing[0]), message=message
        )
    return None


def describe_difference(expected: Any, actual: Any, language: str = i18n.DEFAULT) -> str | None:
    """Where a result differs, in words (in ``language``) that do not reveal the expected value."""
    if _canonical(expected) == _canonical(actual):
        return None
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        keys = [key for key in expected if _canonical(expected.get(key)) != _canonical(actual.get(key))]
        extra = [key for key in actual if key not in expected]
        wrong = MESSAGES("wrong {fields}", language).format(fields=", ".join(map(str, keys + extra)))
        found = first_difference(expected, actual)
        if found and found[0] not in map(str, keys + extra):
            return MESSAGES("{wrong} (first at {where})", language).format(wrong=wrong, where=found[0])
        return wrong
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) != len(actual):
        return MESSAGES("{got} items where the rules give {expected}", language).format(
            got=len(actual), expected=len(expected)
        )
    if isinstance(expected, list) and isinstance(actual, list):
        first = next(i for i, (e, a) in enumerate(zip(expected, actual)) if _canonical(e) != _canonical(a))
        return MESSAGES("item {index} differs", language).format(index=first)
    return MESSAGES("a different result", language)


def _canonical(value: Any) -> str:
    """Numbers compare by value (3 == 3.0), as the checklist's wire comparisons do."""
    return json.dumps(_numbers_by_value(value), sort_keys=True, default=repr)


def _numbers_by_value(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _numbers_by_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_numbers_by_value(item) for item in value]
    return value


def described(text: str, language: str = i18n.DEFAULT) -> str:
    """A hidden case's description in ``language`` (issue 45): its wording's template from the grader's catalog, or
    from course_lib's for a phrase of its catalogues it quotes (a malformed compaction's ``what``), each field said
    the same way; ids, numbers and values as they are."""
    if not isinstance(text, Wording):
        return text
    fields = {name: described(value, language) for name, value in text.fields.items()}
    template = MESSAGES(text.template, language)
    if template == text.template:
        template = COURSE_MESSAGES(text.template, language)
    try:
        return template.format_map(fields)
    except (KeyError, IndexError, ValueError):  # a catalog whose fields differ: its test fails; say it in English
        return str(text)
