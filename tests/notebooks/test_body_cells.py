"""No body cell of a lab praises a wrong answer: a ✅ must come from checking what the cell shows.

The converse of ``test_mutants.test_no_lab_contradicts_itself`` (no ❌ above a
checklist that passes). A *body cell* is every code cell of a lab except its
``checklist`` cell. What a body cell *shows* is, in order: each printed line,
each displayed object (the cell's last expression included, as a kernel shows
it), and a crash. A table with an ``ok`` column shows one item per row.

For each mutant of the corpus (``tests/mutants``, whatever ``MUTANTS`` holds)
whose lab's inline checklist fails at least one check, every body cell is run
once for the mutant and once for the solution (same cells, same order), and:

1. every table row marked ✅ must show exactly what the solution's row shows,
   the wording of an error aside (a row saying "rejected: …" is compared as
   "rejected"; whether the error names the right ids is the row's own check):
   a row that calls a different result correct did not check what it shows;
2. a cell that shows a ✅ and no ❌, ⚠️ or crash must show exactly what the
   solution's cell shows (error wording aside, as in 1): if the mutant changed
   anything the cell displays (the summary in a messages table, a token count),
   the cell's own comparisons must have caught it.

A cell that shows no ✅ makes no claim and is not judged; a mutant whose
checklist passes is left to ``test_mutants`` (its body may not show a ❌).
Lab 11.5 §7 is the example this was written for: a ``latest_compaction``
returning the oldest compaction kept from ``u3`` anyway, so "first kept entry"
said ✅ while the table showed compact-1's summary.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import io
import re
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from mutants import MUTANTS, Mutant, reference
from nbformat import NotebookNode

from course_lib.checklist.runner import ChecklistReport

PASS = "✅"
FAILS = ("❌", "⚠️")


@dataclass
class Cell:
    """What one body cell showed: its items, and which of them are ``ok``-table rows (by row label)."""

    number: int
    items: list[str] = field(default_factory=list)
    rows: dict[str, str] = field(default_factory=dict)
    crashed: bool = False

    @property
    def praises(self) -> bool:
        return any(PASS in item for item in self.items)

    @property
    def fails(self) -> bool:
        return self.crashed or any(mark in item for item in self.items for mark in FAILS)


@dataclass
class Run:
    cells: dict[int, Cell]
    checklist: ChecklistReport | None


def run_body(notebook: NotebookNode, name: str) -> Run:
    """Every code cell in order, in one fresh module, as a kernel would; what each body cell shows."""
    import matplotlib  # imported by the tests that run a notebook, not by every worker that collects this file

    matplotlib.use("Agg")
    module = types.ModuleType(f"body_cells_{name}")
    sys.modules[module.__name__] = module  # pydantic resolves a model's annotations through its module
    names = module.__dict__
    cells: dict[int, Cell] = {}
    report = None
    for number, source in _code_cells(notebook):
        shown = Cell(number)
        if source is None:  # the checklist cell
            with contextlib.redirect_stdout(io.StringIO()):
                report = _run(notebook.cells[number].source, names, number)
            continue
        with _showing(shown, names):
            try:
                value = _run(source, names, number)
                if value is not None:
                    names["display"](value)
            except Exception as exc:  # noqa: BLE001 - a crash is what the learner sees
                shown.crashed = True
                shown.items.append(f"crashed: {type(exc).__name__}: {exc}")
        cells[number] = shown
    sys.modules.pop(module.__name__, None)
    return Run(cells, report if isinstance(report, ChecklistReport) else None)


def _code_cells(notebook: NotebookNode) -> Iterator[tuple[int, str | None]]:
    """The code cells but nbgrader's test cells (the checklist's checks again, shown on stderr); ``None`` for the checklist."""
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and not cell.metadata.get("nbgrader", {}).get("grade"):
            yield number, None if "checklist" in cell.metadata.get("tags", []) else cell.source


def _run(source: str, names: dict[str, Any], number: int) -> Any:
    """Execute a cell; return its last expression's value (what a kernel would display)."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    assert last is None or isinstance(last, ast.Expr)
    exec(compile(tree, f"<cell {number}>", "exec"), names)  # noqa: S102 - the course's own cells
    if last is None or source.rstrip().endswith(";"):
        return None
    return eval(compile(ast.Expression(last.value), f"<cell {number}>", "eval"), names)  # noqa: S307 - the course's own cells


@contextlib.contextmanager
def _showing(shown: Cell, names: dict[str, Any]) -> Iterator[None]:
    """Collect printed lines and displayed objects in the order the cell produced them."""
    printed = io.StringIO()

    def flush() -> None:
        shown.items.extend(line for line in printed.getvalue().splitlines() if line.strip())
        printed.seek(0)
        printed.truncate()

    def display(*values: Any, **_: Any) -> None:
        flush()
        for value in values:
            _show(value, shown)

    saved = names.get("display")
    names["display"] = display
    try:
        with contextlib.redirect_stdout(printed):
            yield
    finally:
        flush()
        if saved is not None:
            names["display"] = saved


def _show(value: Any, shown: Cell) -> None:
    import pandas as pd  # imported by the tests that show a frame, not by every worker that collects this file

    if isinstance(value, pd.DataFrame):  # one item per row, so a difference reads as the row it is in
        for label, row in value.iterrows():
            text = f"row {label!r}: " + " | ".join(f"{column}={row[column]}" for column in value.columns)
            shown.items.append(text)
            if "ok" in value.columns:
                shown.rows[repr(label)] = text
    elif not type(value).__module__.startswith("matplotlib"):
        shown.items.append(repr(value))


def violations(reference: Run, mutant: Run) -> list[str]:
    """Body cells of ``mutant`` that show ✅ for something the solution does not show (rules 1 and 2 above)."""
    found = []
    for number, cell in mutant.cells.items():
        solution = reference.cells.get(number, Cell(number))
        for label, row in cell.rows.items():
            if PASS in row and _claim(row) != _claim(solution.rows.get(label, "")):
                found.append(
                    f"cell {number}, a ✅ row showing something else than the solution's:\n"
                    f"  shows {row}\n  solution {solution.rows.get(label)}"
                )
        mine, theirs = [*map(_claim, cell.items), ""], [*map(_claim, solution.items), ""]
        if cell.praises and not cell.fails and mine != theirs:
            differs = next((a, b) for a, b in zip(mine, theirs) if a != b)
            found.append(
                f"cell {number} shows ✅ and no ❌, yet shows something else than the solution's:\n"
                f"  shows {differs[0]}\n  solution {differs[1]}"
            )
    return found


_ERROR_WORDING = re.compile(r"(rejected|crashed): [^|]*")


def _claim(row: str) -> str:
    """A row as rule 1 compares it: an error's wording is the learner's own, so only "rejected" is compared.

    Whether the error names the right ids is the row's own ``ok`` check (``Attempt.names``).
    """
    return _ERROR_WORDING.sub(r"\1: …", row)


_REFERENCE_RUNS: dict[str, Run] = {}


def reference_run(lab: str) -> Run:
    if lab not in _REFERENCE_RUNS:
        _REFERENCE_RUNS[lab] = run_body(reference(lab).notebook(), f"reference_{lab.replace('.', '_')}")
    return _REFERENCE_RUNS[lab]


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_no_body_cell_praises_a_mutant_the_checklist_fails(mutant: Mutant) -> None:
    run = run_body(mutant.notebook(), mutant.name)
    assert run.checklist is not None, "the notebook has no checklist cell"
    if run.checklist.all_passed:
        return  # test_mutants: then no body cell may show a ❌ either
    found = violations(reference_run(mutant.lab), run)
    assert not found, f"{run.checklist.summary} for {mutant.description!r} ({mutant.rule}), yet:\n" + "\n".join(found)


@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_the_solutions_show_no_failure() -> None:
    """Every lab's solution: a checklist that passes and no ❌, ⚠️ or crash in any body cell."""
    for lab in sorted({m.lab for m in MUTANTS}):
        run = reference_run(lab)
        assert run.checklist is not None and run.checklist.all_passed, lab
        assert not [cell.number for cell in run.cells.values() if cell.fails], lab


def test_a_cell_that_checks_less_than_it_shows_is_found() -> None:
    """The detector fails Lab 11.5 §7 as it was: only the count of summaries and the first kept id checked."""
    oldest = next(m for m in MUTANTS if m.name == "11_5_oldest_compaction")

    def weakened(notebook: NotebookNode) -> NotebookNode:
        notebook = copy.deepcopy(notebook)
        cell = next(c for c in notebook.cells if c.get("id") == "lab11-5-26")
        kept = [
            line
            for line in cell.source.splitlines()
            if "lab_helpers.compare" not in line or "summary messages sent" in line or "first kept entry" in line
        ]
        cell.source = "\n".join(kept)
        return notebook

    solution = run_body(weakened(reference("11.5").notebook()), "weak_reference")
    run = run_body(weakened(oldest.notebook()), "weak_oldest")
    assert not run.checklist.all_passed
    section_7 = next(i for i, c in enumerate(oldest.notebook().cells) if c.get("id") == "lab11-5-26")
    found = [v for v in violations(solution, run) if v.startswith(f"cell {section_7} ")]
    assert found and "Goal: Verify session restore" in found[0], found  # compact-1's summary, shown with ✅
    assert run_body(oldest.notebook(), "oldest").cells[section_7].fails, "the lab as it is now shows a ❌ there"


# --- the lab_helpers helpers the body cells judge with ---------------------------------------------


def test_a_prediction_is_judged_against_the_worked_answer_not_the_code() -> None:
    """Issue 21: a right prediction with a broken function is 🎯, and the function's ❌ is its own row mark."""
    from course_lib.teaching import lab_helpers

    table = lab_helpers.prediction_table(
        {"right": "Rejected", "wrong": "accepted", "open": None},
        worked={"right": "rejected", "wrong": "rejected", "open": 3},
        yours=lambda: {"right": "accepted", "wrong": "rejected", "open": 3},
        function="parser",
    )
    verdicts = table["against the worked answer"]
    assert (
        verdicts["right"].startswith("🎯")
        and verdicts["wrong"].startswith("🤔")
        and verdicts["open"] == lab_helpers.NO_PREDICTION
    )
    assert list(table["ok"]) == ["❌", "✅", "✅"]
    assert "see the checklist" in table["your parser"]["right"]


def test_a_prediction_is_judged_before_the_function_exists() -> None:
    from course_lib.teaching import lab_helpers

    def stub() -> dict[str, Any]:
        raise NotImplementedError("Lab 11.9 not implemented yet: f")

    table = lab_helpers.prediction_table({"a": 1}, worked={"a": 1}, yours=stub, function="f")
    assert table["against the worked answer"]["a"].startswith("🎯") and table["ok"]["a"] == "⏳"


def test_a_pydantic_error_shows_as_one_line_with_its_field_path() -> None:
    """Issue 21: a learner's own model raising pydantic's report must not make a table row many lines wide."""
    from course_lib import fixtures
    from course_lib.models import CompactionEntry
    from course_lib.teaching import lab_helpers

    bad = fixtures.compact_1_wire() | {"tokensBefore": -1, "timestamp": "100"}
    bad["summary"] = bad["summary"] | {"decisions": ["ok", 7]}
    shown = lab_helpers.outcome(lambda: CompactionEntry.model_validate(bad, by_alias=True, by_name=False))
    assert "\n" not in shown and len(shown) <= 170
    assert shown.startswith("rejected: ValidationError, ") and "more)" in shown
    assert lab_helpers.one_line(ValueError("first line\nsecond line")) == "first line …"
    nested = lab_helpers.outcome(
        lambda: CompactionEntry.model_validate(
            fixtures.compact_1_wire() | {"summary": bad["summary"]}, by_alias=True, by_name=False
        )
    )
    assert "summary.decisions[1]:" in nested, nested


def test_an_id_is_named_as_a_whole_word() -> None:
    from course_lib.teaching import lab_helpers

    tried = lab_helpers.attempt(lambda: (_ for _ in ()).throw(ValueError("firstKeptEntryId is a system message")))
    assert tried.rejected and not tried.names("sys")
    assert lab_helpers.attempt(lambda: (_ for _ in ()).throw(ValueError("entry 'sys' is a system message"))).names(
        "sys"
    )


def test_a_crashing_function_still_gets_its_predictions_judged() -> None:
    from course_lib.teaching import lab_helpers

    def broken() -> dict[str, Any]:
        raise KeyError("u3")

    table = lab_helpers.prediction_table({"a": 1}, worked={"a": 1}, yours=broken, function="f")
    assert table["against the worked answer"]["a"].startswith("🎯") and table["ok"]["a"] == "❌"
    assert table["your f"]["a"] == "💥 crashed: KeyError: 'u3'"
