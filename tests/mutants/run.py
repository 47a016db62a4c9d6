"""Run a mutant three ways in this process: its lab's inline checklist, its body cells, the grader's judging.

``make mutants`` grades every notebook with ``course-grade`` in sandboxed
kernels; these in-process runs are what the tests use (same checks, same
hidden cases, same judging, no kernel), and what the script uses for the
inline checklist column.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grading_corpus import grade_in_process, namespace, run_in_process

from course_grader import GradeOptions, JudgingSettings
from course_grader.judging.assemble import assemble
from course_grader.judging.hidden import call_verdict
from course_grader.judging.hidden_cases import covering_tests
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
    """The grader's verdict on the mutant, judged exactly as ``course-grade`` judges a kernel's replies."""
    return grade_in_process(mutant.lab, quiet_namespace(mutant), seed=seed)


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
            results[seed] = assemble(
                Path(mutant.file_name),
                mutant.name,
                "",
                lab_registry.LABS[mutant.lab],
                run,
                time.monotonic(),
                GradeOptions(judging=JudgingSettings(seed=seed)),
            )
    return results


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


@dataclass
class Body:
    """What a learner sees in a notebook's cells above the checklist: every ❌ (or ⚠️), crash, and the checklist."""

    failures: list[str] = field(default_factory=list)
    checklist: ChecklistReport | None = None


def run_notebook(mutant: Mutant) -> Body:
    """Every code cell of the mutant's notebook, in order, as a kernel would run them; output is captured."""
    body = Body()
    module = types.ModuleType(f"body_{mutant.name}")
    sys.modules[module.__name__] = module  # pydantic resolves a model's annotations through its module
    names = module.__dict__

    def display(*values: Any, **_: Any) -> None:
        for value in values:
            body.failures.extend(_failed_rows(value))

    for number, cell in enumerate(mutant.notebook().cells):
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue  # nbgrader's test cells run the checklist's checks again
        if "checklist" in cell.metadata.get("tags", []):
            body.checklist = eval(compile(cell.source, "<checklist>", "eval"), names)  # noqa: S307 - the course's own cell
            continue
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(cell.source, f"<cell {number}>", "exec"), names)  # noqa: S102 - the course's own cells
        except Exception as exc:  # noqa: BLE001 - a crash in a body cell is what the learner sees
            body.failures.append(f"cell {number} crashed: {type(exc).__name__}: {exc}")
        names["display"] = display
        body.failures.extend(
            f"cell {number}: {line}" for line in printed.getvalue().splitlines() if "❌" in line or "⚠️" in line
        )
    return body


def _failed_rows(value: Any) -> list[str]:
    import pandas as pd

    if not isinstance(value, pd.DataFrame) or "ok" not in value.columns:
        return []
    return [f"table row {index!r}: ❌" for index, ok in value["ok"].items() if ok != "✅"]
