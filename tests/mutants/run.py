"""Run a mutant in this process: its lab's inline checklist, its body cells, the grader's judging, its covering set.

``make mutants`` grades every notebook with ``course-grade`` in sandboxed
kernels; these in-process runs are what the tests use (same checks, same
hidden cases, same judging, no kernel), and what the script uses for the
inline checklist column.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import sys
import time
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grading_corpus import grade_in_process, namespace, run_in_process
from nbformat import NotebookNode

from course_grader import GradeOptions, JudgingSettings
from course_grader.judging.assemble import assemble
from course_grader.judging.hidden import call_verdict
from course_grader.judging.hidden_cases import covering_tests
from course_grader.judging.kernel_run import KernelRun
from course_grader.judging.verdicts import GradeResult
from course_lib import checklist
from course_lib.checklist import harness
from course_lib.checklist.runner import ChecklistReport
from course_lib.teaching import lab_registry

from . import Mutant


def quiet_namespace(mutant: Mutant) -> dict[str, Any]:
    """The names a kernel holds after the lab's setup and the mutant's exercise cells (their prints dropped)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return namespace(mutant.lab, mutant.notebook())


def lab_functions(mutant: Mutant) -> dict[str, Any]:
    """The lab's functions as the mutant's exercise cells define them (after the lab's setup)."""
    names = quiet_namespace(mutant)
    return {name: names[name] for name in lab_registry.lab(mutant.lab).functions}


def inline(mutant: Mutant) -> ChecklistReport:
    """What the lab's own checklist cell would show for the mutant."""
    return checklist.run(lab=mutant.lab, **lab_functions(mutant))


def graded(mutant: Mutant, seed: int | None = None) -> GradeResult:
    """The grader's verdict on the mutant, practice counterexamples included, judged as ``course-grade`` judges."""
    return grade_in_process(mutant.lab, quiet_namespace(mutant), seed=seed)


def graded_with_records(mutant: Mutant) -> tuple[GradeResult, dict[int, Any]]:
    """The grader's verdict on the mutant under the lab's own seed, and the record of each check its kernel side sent.

    Judged exactly as ``course-grade`` judges a kernel's replies, without the
    practice counterexamples (they never change a score); each record is what
    the grader received (through JSON).
    """
    with contextlib.redirect_stdout(io.StringIO()):
        run = run_in_process(mutant.lab, quiet_namespace(mutant), counterexamples=False)
    return _assembled(mutant, run, None), {number: cell.reply for number, cell in run.checks.items()}


def graded_under(mutant: Mutant, seeds: Iterable[int]) -> dict[int, GradeResult]:
    """The grader's verdict under each seed (``course-grade --seed``), without practice counterexamples.

    The exercise cells and the checklist run once (no seed changes a check);
    each seed draws the lab's hidden cases afresh.
    """
    names = quiet_namespace(mutant)
    results: dict[int, GradeResult] = {}
    checks = None
    with contextlib.redirect_stdout(io.StringIO()):
        for seed in seeds:
            run = run_in_process(mutant.lab, names, seed=seed, counterexamples=False, checks=checks)
            checks = run.checks
            results[seed] = _assembled(mutant, run, seed)
    return results


def _assembled(mutant: Mutant, run: KernelRun, seed: int | None) -> GradeResult:
    return assemble(
        Path(mutant.file_name),
        mutant.name,
        "",
        lab_registry.LABS[mutant.lab],
        run,
        time.monotonic(),
        GradeOptions(judging=JudgingSettings(seed=seed)),
    )


def covering_failures(mutant: Mutant, *, first_only: bool = False, seed: int | None = None) -> list[str]:
    """The hidden tests the mutant fails on the covering set (drawn from ``seed``) alone, without a single drawn case.

    Each call goes through the kernel-side harness and JSON, and is judged by
    ``call_verdict`` for every test that holds it, as in a graded run.
    ``first_only`` stops at the first failed call, trying the smaller tests
    (mostly quick rejections) first: enough to know the set catches the mutant.
    """
    names = quiet_namespace(mutant)
    tests = covering_tests(lab_registry.LABS[mutant.lab], seed)
    holders: dict[str, list[Any]] = {}
    calls: dict[Any, Any] = {}
    for test in sorted(tests, key=lambda t: len(t.calls)) if first_only else tests:
        for call in test.calls:
            holders.setdefault(call.key, []).append(test)
            calls.setdefault(call.key, call)
    failed: set[str] = set()
    with contextlib.redirect_stdout(io.StringIO()):
        for key, call in calls.items():
            outcome = json.loads(json.dumps(harness.call(names, json.dumps(call.request())).data, default=repr))
            failed |= {test.name for test in holders[key] if call_verdict(test, call, outcome)}
            if failed and first_only:
                break
    return [test.name for test in tests if test.name in failed]


def loses_marks(result: GradeResult | None) -> bool:
    return result is not None and result.score < result.max_score


PASS = "✅"
FAILS = ("❌", "⚠️")


@dataclass
class Cell:
    """What one body cell showed: its items, and which of them are ``ok``-table rows (by row label)."""

    number: int
    id: str = ""
    items: list[str] = field(default_factory=list)
    rows: dict[str, str] = field(default_factory=dict)
    """The rows of a table with an ``ok`` column, by row label (each is also one of ``items``)."""
    unsettled: list[str] = field(default_factory=list)
    """The rows of such a table whose ``ok`` is not ✅."""
    crash: str = ""
    """How the cell crashed, if it did (also one of ``items``, where it came)."""

    @property
    def crashed(self) -> bool:
        return bool(self.crash)

    @property
    def praises(self) -> bool:
        return any(PASS in item for item in self.items)

    @property
    def fails(self) -> bool:
        return self.crashed or any(mark in item for item in self.items for mark in FAILS)


@dataclass
class Body:
    """What a notebook's body cells (every code cell but its checklist) showed, by cell number, and its checklist."""

    cells: dict[int, Cell]
    checklist: ChecklistReport | None

    @property
    def failures(self) -> list[str]:
        """Every crash, ❌ or ⚠️ the body cells show, and every ``ok`` row that is not ✅: what a learner reads as wrong."""
        return [
            f"cell {cell.number}: {item}"
            for cell in self.cells.values()
            for item in [
                *([cell.crash] if cell.crashed else []),
                *(item for item in cell.items if any(mark in item for mark in FAILS)),
                *(row for row in cell.unsettled if not any(mark in row for mark in FAILS)),
            ]
        ]


def run_body(notebook: NotebookNode, name: str) -> Body:
    """Every code cell in order, in one fresh module, as a kernel would; what each body cell shows.

    nbgrader's test cells are left out (the checklist's checks again, shown on stderr); the checklist cell's value is
    the report. A cell's last expression is displayed, as a kernel displays it; a table is shown one item per row.
    """
    import matplotlib  # imported by the tests that run a notebook, not by every worker that collects this module

    matplotlib.use("Agg")
    from matplotlib import pyplot

    module = types.ModuleType(f"body_cells_{name}")
    sys.modules[module.__name__] = module  # pydantic resolves a model's annotations through its module
    names = module.__dict__
    cells: dict[int, Cell] = {}
    report = None
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        if "checklist" in cell.metadata.get("tags", []):
            with contextlib.redirect_stdout(io.StringIO()):
                report = _run(cell.source, names, number)
            continue
        shown = Cell(number, cell.get("id", ""))
        with _showing(shown, names):
            try:
                value = _run(cell.source, names, number)
                if value is not None:
                    names["display"](value)
            except Exception as exc:  # noqa: BLE001 - a crash is what the learner sees
                shown.crash = f"crashed: {type(exc).__name__}: {exc}"
                shown.items.append(shown.crash)
        cells[number] = shown
    sys.modules.pop(module.__name__, None)
    pyplot.close("all")  # the capstone's figures, which pyplot would keep for the next notebook
    return Body(cells, report if isinstance(report, ChecklistReport) else None)


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
    import pandas as pd  # imported by the tests that show a frame, not by every worker that collects this module

    if isinstance(value, pd.DataFrame):  # one item per row, so a difference reads as the row it is in
        for label, row in value.iterrows():
            text = f"row {label!r}: " + " | ".join(f"{column}={row[column]}" for column in value.columns)
            shown.items.append(text)
            if "ok" in value.columns:
                shown.rows[repr(label)] = text
                if row["ok"] != PASS:
                    shown.unsettled.append(text)
    elif not type(value).__module__.startswith("matplotlib"):
        shown.items.append(repr(value))
