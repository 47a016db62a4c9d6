"""The demo cells that read a build's messages by position survive any wrongly shaped result (issue 30).

``lab11-3-18`` and ``lab11-5-28`` edit the tool call of a build result. Fed every
mistake of their lab's corpus, each ends with its own output, never a raw
``IndexError``: a ❌ line says what shape of result it expected.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from typing import Any

import pytest
from mutants import MUTANTS, Mutant, reference

from course_lib.teaching import lab_helpers

DEMO_CELLS = {"11.3": "lab11-3-18", "11.5": "lab11-5-28"}
TWO = [1, 2]


def run_demo(mutant: Mutant) -> str:
    """Run the mutant's notebook up to its lab's demo cell (earlier crashes are the body tests'), then that cell."""
    module = types.ModuleType(f"demo_{mutant.name}")
    sys.modules[module.__name__] = module  # pydantic resolves a model's annotations through its module
    names: dict[str, Any] = module.__dict__
    names["display"] = lambda *values, **_: None
    for cell in mutant.notebook().cells:
        if cell.cell_type != "code" or "checklist" in cell.metadata.get("tags", []):
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            if cell.get("id") == DEMO_CELLS[mutant.lab]:
                exec(compile(cell.source, cell.id, "exec"), names)  # noqa: S102 - the course's own cell
                return printed.getvalue()
            with contextlib.suppress(Exception):
                exec(compile(cell.source, cell.id, "exec"), names)  # noqa: S102 - the course's own cells
        names["display"] = lambda *values, **_: None
    raise AssertionError(f"no cell {DEMO_CELLS[mutant.lab]} in Lab {mutant.lab}")


@pytest.mark.slow  # every mutant of two labs: make test, not make check
@pytest.mark.parametrize(
    "mutant",
    [*map(reference, DEMO_CELLS), *(m for m in MUTANTS if m.lab in DEMO_CELLS)],
    ids=lambda m: m.name,
)
def test_the_demo_cell_survives_every_mistake_of_its_lab(mutant: Mutant) -> None:
    printed = run_demo(mutant)
    failures = [line for line in printed.splitlines() if line.startswith("❌ this cell could not read")]
    assert len(failures) <= 1 and all("it expects a BuildContextResult whose messages are" in f for f in failures)
    if not mutant.edits:
        assert "✅" in printed and "❌" not in printed, printed


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
