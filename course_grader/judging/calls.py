"""How a hidden call is made: its input, and the reference's own outcome on it as its expectation.

Nothing in a lab's cases types an expected value in. ``Calls.make`` runs the
reference (``REFERENCES``) on the call's input through the checklist's own
harness, so the grader expects exactly what the course's solution does; a case
meant to be invalid must be rejected by the reference with an error naming the
ids it lists, or building the cases fails. ``describe_path`` words a call's
session for feedback (its shape, never its expected answer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from course_lib import tool_facts
from course_lib.checklist import harness
from course_lib.checklist.check import REFERENCES
from course_lib.models import SessionEntry
from course_lib.parsing import to_json_dict
from course_lib.teaching.wording import Wording, say

from .hidden import Expected, HiddenCall, Rejected, Returned

FIXED = "fixed-"
"""The covering calls' key part: their keys never collide with a drawn call's."""


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


class Calls:
    """Collects the calls of one lab; each one's expectation comes from running the reference."""

    def __init__(self, lab: str, function: str, kind: str = "") -> None:
        self.lab = lab
        self.function = function
        self.kind = kind
        """``FIXED`` for the covering set's calls, whose keys must never collide with a drawn one's."""
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


def describe_path(path: Iterable[Any]) -> Wording:
    """A session's shape in words (entries, groups, tool calls, patches, compactions), never its content."""
    entries = [e if isinstance(e, dict) else to_json_dict(e) for e in path]
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    calls = sum(len(tool_facts.tool_call_ids(e)) for e in entries)
    patches = max(0, roles.count("system") - (1 if roles[:1] == ["system"] else 0))
    compactions = sum(e["type"] == "compaction" for e in entries)
    parts: dict[str, Wording] = {
        "entries": _count(len(entries), say("{count} entry", count=1), say("{count} entries", count=len(entries))),
        "groups": _count(
            roles.count("user"), say("{count} group", count=1), say("{count} groups", count=roles.count("user"))
        ),
        "calls": _count(calls, say("{count} tool call", count=1), say("{count} tool calls", count=calls)),
    }
    if patches:
        parts["patches"] = _count(
            patches, say("{count} system patch", count=1), say("{count} system patches", count=patches)
        )
    if compactions:
        parts["compactions"] = _count(
            compactions, say("{count} compaction", count=1), say("{count} compactions", count=compactions)
        )
    if patches and compactions:
        return say("a session of {entries}, {groups}, {calls}, {patches}, {compactions}", **parts)
    if patches:
        return say("a session of {entries}, {groups}, {calls}, {patches}", **parts)
    if compactions:
        return say("a session of {entries}, {groups}, {calls}, {compactions}", **parts)
    return say("a session of {entries}, {groups}, {calls}", **parts)


def _count(number: int, one: Wording, more: Wording) -> Wording:
    return one if number == 1 else more
