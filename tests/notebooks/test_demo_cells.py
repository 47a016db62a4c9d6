"""The demo cells that read a build's messages by position survive any wrongly shaped result (issue 30).

``lab11-3-18`` and ``lab11-5-28`` edit the tool call of a build result. Fed every
mistake of their lab's corpus, each ends with its own output, never a raw
``IndexError``: a ❌ line says what shape of result it expected. What the cell
shows is read from the notebook's run, cell by cell, that the body tests read
too (``corpus_verdicts.body``, once per test run).
"""

from __future__ import annotations

import contextlib
import io

import corpus_verdicts as verdicts
import pytest
from mutants import MUTANTS, Mutant, reference

from course_lib.teaching import lab_helpers

DEMO_CELLS = {"11.3": "lab11-3-18", "11.5": "lab11-5-28"}
TWO = [1, 2]


@pytest.mark.slow  # every mutant of two labs: make test, not make check
@pytest.mark.parametrize(
    "mutant",
    [*map(reference, DEMO_CELLS), *(m for m in MUTANTS if m.lab in DEMO_CELLS)],
    ids=lambda m: m.name,
)
def test_the_demo_cell_survives_every_mistake_of_its_lab(mutant: Mutant) -> None:
    """Earlier cells may crash (the body tests judge them); the demo cell itself never does."""
    cell = next(c for c in verdicts.body(mutant).cells.values() if c.id == DEMO_CELLS[mutant.lab])
    assert not cell.crashed, cell.crash
    failures = [line for line in cell.items if line.startswith("❌ this cell could not read")]
    assert len(failures) <= 1 and all("it expects a BuildContextResult whose messages are" in f for f in failures)
    if not mutant.edits:
        assert any("✅" in line for line in cell.items) and not any("❌" in line for line in cell.items), cell.items


def test_a_wrongly_shaped_result_is_one_line_saying_what_was_expected() -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), lab_helpers.until_implemented(expects="a list of three"):
        _third = TWO[2]  # the IndexError a demo cell would raise
    assert printed.getvalue() == (
        "❌ this cell could not read your result (IndexError: list index out of range); it expects a list of three\n"
    )


def test_without_an_expected_shape_errors_still_surface() -> None:
    with pytest.raises(IndexError), lab_helpers.until_implemented():
        _third = TWO[2]
