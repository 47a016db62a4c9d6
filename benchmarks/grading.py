"""`make bench`'s grading rows: one notebook graded and a batch, against what the sandbox itself costs.

* **one notebook graded**: the whole command an instructor runs, ``python -m course_grader
  NOTEBOOK`` (a fresh interpreter, importing the grader, reading the notebook, the sandbox,
  judging, writing results.json), wall-clock time;
* **its floor**: what no grader can skip, measured in the same run: starting the sandbox
  (bubblewrap, its cgroup, the kernel) and the kernel running the very cells that grading the
  notebook sent it, recorded from one grade of it (``kernel_cells``), one after the other;
* **a batch**: ``python -m course_grader FOLDER -j 2`` on ``batch`` copies of the course's own
  solutions (the labs in turn), as seconds per notebook; on two cores the floor per notebook
  is half the floor of one.

Wall-clock time throughout: the work is spread over the grader, bubblewrap and the kernel.
Run on a quiet machine (the README says how); nothing here is a test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from course_lib.teaching import lab_registry

ROOT = Path(__file__).resolve().parent.parent
GRADED_LAB = "11.3"
"""The lab of the one notebook graded: build_context, the lab with the most hidden calls to send."""
SEED = "b3d1c0ffee5eed5ecre7f0rbench0000000000000000000000000000000000a"
"""The benchmark's fixed secret (public: it draws the same cases in every run, which a measurement needs)."""
ONE_LIMIT = 1.5
"""One notebook graded within 1.5x its floor."""
BATCH_SECONDS = 1.3
"""A batch within 1.3 s per notebook on two cores."""
JOBS = 2


@dataclass
class Grading:
    notebooks: int
    jobs: int
    one: float
    """Seconds for ``python -m course_grader NOTEBOOK``, the best of ``repeat``."""
    floor: float
    """Seconds for the sandbox to start and its kernel to run the same cells, the best of ``repeat``."""
    batch: float
    """Seconds per notebook of ``python -m course_grader FOLDER -j JOBS``."""
    cells: int

    @property
    def ratio(self) -> float:
        return self.one / self.floor

    @property
    def batch_ratio(self) -> float:
        """Per notebook, against the floor shared by ``jobs`` cores."""
        return self.batch / (self.floor / self.jobs)


def solution(lab: str) -> Path:
    entry = lab_registry.lab(lab)
    return ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb"


def kernel_cells(notebook: Path, views: Path) -> list[tuple[str, float | None]]:
    """The cells (and timeouts) grading ``notebook`` sends its sandbox's kernel, in order.

    Recorded from one grade of it in this process, through ``Sandbox.run``, so the floor runs
    whatever the grader runs today (fewer round trips included) without repeating its code.
    """
    from course_grader import GradeOptions, JudgingSettings, SandboxSettings
    from course_grader.judging.grade import grade_notebook
    from course_grader.sandbox.kernel import Sandbox

    cells: list[tuple[str, float | None]] = []
    run = Sandbox.run

    def recorded(box: Sandbox, source: str, timeout: float | None = None) -> Any:
        cells.append((source, timeout))
        return run(box, source, timeout)

    with mock.patch.object(Sandbox, "run", recorded):
        result = grade_notebook(
            notebook, GradeOptions(sandbox=SandboxSettings(views=str(views)), judging=JudgingSettings(seed=SEED))
        )
    if result.percent != 100.0:
        raise AssertionError(f"{notebook} should get full marks, got {result.percent} ({result.status})")
    return cells


def sandbox_floor(lab: str, cells: list[tuple[str, float | None]], views: Path) -> None:
    """The sandbox started and the recorded cells run in it, nothing judged."""
    from course_grader.judging.kernel_run import lab_view
    from course_grader.sandbox.kernel import Sandbox
    from course_grader.sandbox.limits import Limits

    with (
        tempfile.TemporaryDirectory(prefix="bench-floor-") as folder,
        Sandbox(Path(folder) / "home", Limits(), lab_view(lab_registry.LABS[lab], str(views))) as box,
    ):
        for source, timeout in cells:
            box.run(source, timeout)


def wall(fn: Callable[[], object], repeat: int) -> float:
    """Seconds of wall-clock time for one call: the best of ``repeat``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.monotonic()
        fn()
        best = min(best, time.monotonic() - started)
    return best


def grade_command(target: Path, *options: str) -> Callable[[], object]:
    command = [sys.executable, "-m", "course_grader", str(target), "--seed", str(SEED), *options]
    return lambda: subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def write_class(folder: Path, notebooks: int) -> None:
    """One solution per student, the labs in turn (as scripts/batch_timing.py writes them)."""
    labs = list(lab_registry.LABS)
    for index in range(notebooks):
        source = solution(labs[index % len(labs)])
        student = folder / f"s{index:02d}"
        student.mkdir(parents=True)
        shutil.copyfile(source, student / source.name)


def measure_grading(workdir: Path, *, notebooks: int = 20, jobs: int = JOBS, repeat: int = 2) -> Grading:
    """One notebook graded and its floor (the best of ``repeat`` each, taking turns), then one batch."""
    notebook, views = solution(GRADED_LAB), workdir / "views"
    cells = kernel_cells(notebook, views)
    one, floor = float("inf"), float("inf")
    command = grade_command(notebook, "--results", str(workdir / "results.json"))
    for _ in range(repeat):
        one = min(one, wall(command, 1))
        floor = min(floor, wall(lambda: sandbox_floor(GRADED_LAB, cells, views), 1))
    submissions = workdir / "submissions"
    write_class(submissions, notebooks)
    batch = wall(grade_command(submissions, "--out", str(workdir / "grades.csv"), "-j", str(jobs), "--no-progress"), 1)
    return Grading(notebooks=notebooks, jobs=jobs, one=one, floor=floor, batch=batch / notebooks, cells=len(cells))


def grading_lines(grading: Grading) -> list[str]:
    return [
        f"one {GRADED_LAB} notebook graded (python -m course_grader NOTEBOOK): {grading.one:.2f} s;"
        f" its floor (the sandbox started, its kernel running the {grading.cells} cells grading sent):"
        f" {grading.floor:.2f} s; {grading.ratio:.2f}x",
        f"a batch of {grading.notebooks} with -j {grading.jobs}: {grading.batch:.2f} s per notebook;"
        f" {grading.batch_ratio:.2f}x the floor shared by {grading.jobs} cores ({grading.floor / grading.jobs:.2f} s)",
    ]


def grading_verdicts(grading: Grading) -> list[tuple[bool, str]]:
    return [
        (
            grading.ratio <= ONE_LIMIT,
            f"one notebook graded takes {grading.ratio:.2f}x its floor (target <= {ONE_LIMIT:g}x)",
        ),
        (
            grading.batch <= BATCH_SECONDS,
            f"a batch of {grading.notebooks} with -j {grading.jobs} takes {grading.batch:.2f} s per notebook"
            f" (target <= {BATCH_SECONDS:g} s)",
        ),
    ]
