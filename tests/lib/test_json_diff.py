"""One JSON diff (``course_lib.teaching.json_diff``): a lab cell and the checklist describe the same difference the same way.

``lab_helpers.compare`` (a lab's body cell) and the checklist's ``verdict`` (what
``checklist.run`` and the grader show) once had a diff each, with opposite argument
orders: a list one item short read "at [2]: expected 3, got nothing" in a cell and
"expected 3, got 2 at (length)" in the checklist. Both now call ``first_difference``
with the expected value first, and word it with ``Difference.describe``.
"""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from source_trees import nodes

from course_lib import fixtures, parse_session_entry
from course_lib.checklist.expect import Point, json_data, verdict
from course_lib.teaching import json_diff, lab_helpers
from course_lib.teaching.json_diff import Difference, first_difference

RULE, WHAT = "R19", "the kept ids"
ROOT = Path(__file__).resolve().parents[2]


def cell_line(got: Any, expected: Any) -> tuple[bool, str]:
    """What a lab cell prints for the learner's ``got`` against the worked ``expected``."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        passed = lab_helpers.compare(got, expected, WHAT)
    return passed, printed.getvalue().rstrip("\n")


def checklist_message(got: Any, expected: Any) -> str | None:
    """The checklist's verdict when the learner's run observes ``got`` where the reference's observed ``expected``."""
    trusted = Point("equal", RULE, WHAT, actual=json_data(expected), expected=json_data(expected))
    return verdict(Point("equal", RULE, WHAT, actual=json_data(got), expected=None), trusted)


CASES = [
    pytest.param(["u1", "a1"], ["u1", "a1", "u2"], "expected 3, got 2 at (length)", id="one-item-short"),
    pytest.param(["u1", "a2"], ["u1", "a1"], "expected 'a1', got 'a2' at [1]", id="item"),
    pytest.param({"a": 1}, {"a": 1, "b": 2}, "expected 2, got '(missing)' at b", id="missing-key"),
    pytest.param({"a": 1, "c": 3}, {"a": 1}, "expected '(absent)', got 3 at c", id="extra-key"),
    pytest.param({"t": {"m": [1, True]}}, {"t": {"m": [1, 1]}}, "expected 1, got True at t.m[1]", id="bool-no-number"),
    pytest.param("x", 3, "expected 3, got 'x'", id="top-level"),
]


@pytest.mark.parametrize(("got", "expected", "described"), CASES)
def test_a_cell_and_the_checklist_describe_one_difference_alike(got: Any, expected: Any, described: str) -> None:
    difference = first_difference(expected, got)
    assert difference is not None and difference.describe() == described
    assert cell_line(got, expected) == (False, f"❌ {WHAT} — {described}")
    assert checklist_message(got, expected) == f"{RULE}: {WHAT} — {described}"


def test_the_diff_takes_the_expected_value_first() -> None:
    assert first_difference([1, 2], [1, 3]) == Difference("[1]", 2, 3)
    assert first_difference({"keep": 1}, {}) == Difference("keep", 1, json_diff.MISSING)
    assert first_difference({"a": 1.0, "b": [None]}, {"a": 1, "b": [None]}) is None


def test_models_are_compared_in_their_wire_format_by_both() -> None:
    """A cell compares a model with the hand-written wire dict, as the checklist sees it through the kernel."""
    entry = fixtures.compact_1_wire()
    wrong = parse_session_entry({**entry, "firstKeptEntryId": "u1"})
    passed, line = cell_line(wrong, entry)
    assert not passed and line.endswith(f"expected {entry['firstKeptEntryId']!r}, got 'u1' at firstKeptEntryId")
    assert checklist_message(wrong, entry) == f"{RULE}: {WHAT} — {line.removeprefix(f'❌ {WHAT} — ')}"
    model = parse_session_entry(entry)
    assert cell_line(model, entry)[0] and checklist_message(model, entry) is None


def test_every_caller_imports_the_one_diff_from_its_module() -> None:
    """A lab cell, the checklist and the grader all import it from ``course_lib.teaching.json_diff``, never through another module.

    The grader once imported it from ``checklist.expect``, which re-exported it;
    a diff reached only through its owner cannot quietly become a copy.
    """
    names = {"first_difference", "short", "Difference"}
    importers: list[tuple[str, str]] = []
    for package in ("course_lib", "course_grader"):
        for path in sorted((ROOT / package).rglob("*.py")):
            folder = list(path.relative_to(ROOT).parent.parts)
            for node in nodes(path):
                if isinstance(node, ast.ImportFrom) and names & {alias.name for alias in node.names}:
                    base = folder[: len(folder) - node.level + 1] if node.level else []
                    importers.append((str(path.relative_to(ROOT)), ".".join([*base, node.module or ""])))
    assert {module for _path, module in importers} == {"course_lib.teaching.json_diff"}, importers
    assert {"course_lib/teaching/lab_helpers.py", "course_lib/checklist/expect.py"} <= {
        path for path, _module in importers
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.0, 1.0, 2.5]) | st.sampled_from("abc"),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from("xyz"), children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=examples(300), deadline=None)
@given(JSON, JSON)
def test_any_two_json_values_read_alike_in_a_cell_and_in_the_checklist(got: Any, expected: Any) -> None:
    """Same verdict (✅ exactly when the checklist passes) and the same words for the difference."""
    passed, line = cell_line(got, expected)
    message = checklist_message(got, expected)
    assert passed == (message is None)
    if message is not None:
        assert line.removeprefix(f"❌ {WHAT} — ") == message.removeprefix(f"{RULE}: {WHAT} — ")
        assert line.startswith(f"❌ {WHAT} — expected ")
