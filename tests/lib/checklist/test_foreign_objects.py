"""Exact types, really (issue 43): a result holds only what the lab's contract names, and the copy probe enters all.

A group returned as a ``types.SimpleNamespace`` or a plain ``__slots__`` class
was neither a subclass nor a course type, so the exact-type check let it
through, and the write probe never entered it: R13's shared-entries bug went
from 2/5 to 3/5. ``tests/mutants/lab_11_2.py``'s ``groups_in_a_namespace`` is
that bug; here it loses marks inline and in the grader.
"""

from __future__ import annotations

import copy
import json
import types
from typing import Any

from mutants import MUTANTS
from mutants.run import graded, inline, loses_marks
from pydantic import BaseModel

from course_lib import fixtures
from course_lib.checklist import exact, harness
from course_lib.checklist.expect import children, shared_mutables
from course_lib.grouping import group_interactions
from course_lib.parsing import to_json_dict


class Slotted:
    """A plain ``__slots__`` holder: no ``__dict__``, no course type."""

    __slots__ = ("entries",)

    def __init__(self, entries: tuple[Any, ...]) -> None:
        self.entries = entries


def test_a_foreign_object_in_a_result_is_named_by_its_type() -> None:
    entries = tuple(fixtures.opening_path()[1:3])
    assert exact.inexact([types.SimpleNamespace(entries=entries)]) == (
        "the result[0] is a SimpleNamespace (types.SimpleNamespace), a type the lab's contract does not name"
    )
    assert "is a Slotted (test_foreign_objects.Slotted)" in (exact.inexact({"g": Slotted(entries)}) or "")

    class Group(BaseModel):  # a learner's own holder: a pydantic model the contract does not name
        entries: tuple[Any, ...] = ()

    assert "a type the lab's contract does not name" in (exact.inexact([Group()]) or "")


def test_the_learners_own_models_are_the_ones_the_lab_asks_for() -> None:
    """Lab 11.1 has the learner write ``CompactionSummary`` and ``CompactionEntry``; no other lab names a class."""
    assert exact.own_classes("parse_session_entry") == {"CompactionSummary", "CompactionEntry"}
    assert exact.own_classes("group_interactions") == exact.own_classes("build_context") == frozenset()

    class CompactionEntry(BaseModel):
        goal: str = "x"

    assert exact.inexact(CompactionEntry(), own=exact.own_classes("parse_session_entry")) is None
    assert exact.inexact(CompactionEntry(), own=exact.own_classes("group_interactions")) is not None


def test_the_copy_probe_enters_every_object() -> None:
    """``children`` walks a namespace's attributes and a slots object's slots, so sharing is found inside them."""
    path = fixtures.opening_path()  # its tool calls' arguments are dicts: what a shared entry shares
    for holder in (types.SimpleNamespace(entries=tuple(path)), Slotted(tuple(path))):
        assert [where for _, where in children(holder, "g")] == ["g.entries"]
        assert shared_mutables(path, [holder]), type(holder).__name__
    assert shared_mutables(path, [types.SimpleNamespace(entries=tuple(copy.deepcopy(path)))]) == []


def test_a_hidden_call_returning_foreign_groups_is_a_wrong_return_naming_the_type() -> None:
    path = [to_json_dict(entry) for entry in fixtures.opening_path()]
    request = json.dumps({"function": "group_interactions", "path": path, "options": {}})
    for holder, named in ((types.SimpleNamespace, "SimpleNamespace (types.SimpleNamespace)"), (Slotted, "Slotted")):

        def grouped(entries: Any, make: Any = holder) -> list[Any]:
            return [make(entries=tuple(group.entries)) for group in group_interactions(entries)]

        reply = harness.call({"group_interactions": grouped}, request).data
        assert reply["kind"] == "bad-return" and named in reply["message"], reply
    honest = harness.call({"group_interactions": group_interactions}, request).data
    assert honest["kind"] == "returned" and honest["shared"] is False and honest["mutated"] is False


def test_the_namespace_mutant_loses_marks_inline_and_in_the_grader() -> None:
    (mutant,) = [m for m in MUTANTS if m.name == "11_2_groups_in_a_namespace"]
    assert not inline(mutant).all_passed
    result = graded(mutant)
    assert loses_marks(result)
    hidden = [t for t in result.tests if t.hidden and not t.passed]
    assert any("SimpleNamespace" in t.output for t in hidden), [t.output[:200] for t in result.tests]
