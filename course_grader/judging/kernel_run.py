"""Run one notebook's cells in the sandboxed kernel and keep how each ended (``KernelRun``).

In the sandboxed kernel (``sandbox/kernel.py``) the grader runs the lab's own
setup cells (from the course's copy), the submission's ``exercise`` cells, and
then one cell per checklist check and per hidden call. Each of those cells only
reports what the learner's functions did (``harness.py``); nothing here decides
a verdict, that is ``assemble.py``'s, in this process. The kernel sees the lab's
package view (``view.py``), where the reference is withheld.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course_lib.checklist.runner import select
from course_lib.teaching import i18n
from course_lib.teaching.lab_registry import Lab

from ..files import scratch_prefix
from ..messages import MESSAGES
from ..sandbox.cell_run import CellRun
from ..sandbox.kernel import Sandbox
from ..sandbox.limits import Limits
from ..sandbox.view import build_view
from . import practice
from .cell_replies import call_outcome
from .draws import Seed
from .grade_options import GradeOptions
from .hidden_cases import hidden_calls

HARNESS = "__course_grader"


@dataclass
class KernelRun:
    """How every cell ended: setup, exercises, the function check, each checklist check and hidden call."""

    setup: list[CellRun] = field(default_factory=list)
    exercises: list[CellRun] = field(default_factory=list)
    functions: CellRun | None = None
    checks: dict[int, CellRun] = field(default_factory=dict)
    calls: dict[str, CellRun] = field(default_factory=dict)
    counterexamples: dict[str, str] = field(default_factory=dict)
    """A shrunk practice counterexample per failed hidden test (``practice.py``), by test name."""
    seconds: float = 0.0
    expired: bool = False
    sandbox_notes: list[str] = field(default_factory=list)
    """What the sandbox itself reported: its limits if per-process only, a memory limit reached, a refused message."""
    failure: str | None = None
    """Why the sandbox stopped abnormally (its memory limit, a refused message): the status is then ``error``."""


@functools.cache
def _private_views() -> str:
    folder = tempfile.mkdtemp(prefix=scratch_prefix())
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def lab_view(lab: Lab, views: str | None = None) -> Path:
    """The lab's package view under ``views`` (built on first use)."""
    folder = Path(views or _private_views()) / lab.id
    view = folder / "course_lib"
    if not view.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        build_view(lab, folder)
    return view


def run_notebook(lab: Lab, setup: tuple[str, ...], exercises: tuple[str, ...], options: GradeOptions) -> KernelRun:
    """Run the lab's ``setup``, the submission's ``exercises``, then its checks and hidden calls, in one sandbox."""
    run = KernelRun()
    limits, language = options.sandbox.limits, options.judging.language
    names = list(lab.functions)
    with tempfile.TemporaryDirectory(prefix=scratch_prefix()) as folder:
        box = Sandbox(
            Path(folder) / "home",
            limits,
            lab_view(lab, options.sandbox.views),
            isolate=options.sandbox.isolate,
            wrap=options.sandbox.kernel_wrap,
        )
        with box:
            # The course's own setup gets the start-up allowance: a slow import is not the learner's fault.
            run.setup = [box.run(source, timeout=limits.startup_timeout) for source in setup]
            run.setup.append(
                box.run(f"import course_lib.checklist.harness as {HARNESS}", timeout=limits.startup_timeout)
            )
            run.exercises = [box.run(source) for source in exercises]
            run.functions = box.run(f"{HARNESS}.functions(globals(), {names!r})")
            defined = run.functions.reply if isinstance(run.functions.reply, dict) else {}
            if all(defined.get(name) is True for name in names):
                items: list[tuple[dict[Any, CellRun], int | str, str]] = [
                    (run.checks, case.number, f"{HARNESS}.check(globals(), {case.number}, {names!r})")
                    for case in select(lab.id)
                ]
                items += [
                    (run.calls, call.key, call_source(call.request()))
                    for call in hidden_calls(lab, options.judging.seed)
                ]
                stopped: CellRun | None = None
                for results, key, source in items:
                    results[key] = stopped or box.run(source)
                    stopped = stopped or _stops_the_rest(results[key], limits, language)
                if stopped is None:
                    add_counterexamples(
                        lab,
                        run,
                        lambda request: _practice_call(box, request, language),
                        options.judging.seed,
                        language,
                    )
            run.seconds, run.expired = box.elapsed, box.expired
        run.sandbox_notes, run.failure = box.notes, box.failure  # known once the sandbox is gone (its cgroup read)
    return run


def call_source(request: dict[str, Any]) -> str:
    """The kernel cell for one call of the learner's function (hidden or practice)."""
    return f"{HARNESS}.call(globals(), {json.dumps(request)!r})"


def _practice_call(box: Sandbox, request: dict[str, Any], language: str = i18n.DEFAULT) -> CellRun:
    """A practice call, unless half the submission's time budget is gone: counterexamples must never cost the grade."""
    if box.elapsed > box.limits.budget / 2:
        return CellRun("skipped", "Skipped", MESSAGES("skipped: no time left for practice cases", language))
    return box.run(call_source(request))


def add_counterexamples(
    lab: Lab,
    run: KernelRun,
    call: Callable[[dict[str, Any]], CellRun],
    seed: Seed = None,
    language: str = i18n.DEFAULT,
) -> None:
    """Practice counterexamples for the hidden tests ``run`` failed; ``call`` runs one practice call in the kernel."""
    outcomes = {key: call_outcome(cell, language) for key, cell in run.calls.items()}
    run.counterexamples = practice.counterexamples(
        lab, outcomes, lambda request: call_outcome(call(request), language), seed, language
    )


def _stops_the_rest(cell: CellRun, limits: Limits, language: str = i18n.DEFAULT) -> CellRun | None:
    """After a time-out or the memory limit, the lab's function is not called again.

    One endless loop then costs one time limit, not one per check and per hidden call.
    """
    if cell.status == "timeout":
        said = MESSAGES("skipped: an earlier check ran longer than {seconds} s", language)
        return CellRun("skipped", "Skipped", said.format(seconds=f"{limits.cell_timeout:g}"))
    if "MemoryError" in json.dumps(cell.reply, default=repr) or cell.ename == "MemoryError":
        return CellRun("skipped", "Skipped", MESSAGES("skipped: an earlier check hit the memory limit", language))
    return None
