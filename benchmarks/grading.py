"""`make bench`'s grading rows: one notebook graded and a batch, each against its floor measured in the same run.

* **one notebook graded**: the whole command an instructor runs, ``python -m course_grader
  NOTEBOOK`` (a fresh interpreter, importing the grader, reading the notebook, the sandbox,
  judging, writing results.json), wall-clock time;
* **its floor**: what no grader can skip, run the way the command runs: a fresh interpreter
  (``python grading.py --floors``) that starts the sandbox (bubblewrap, its cgroup, the kernel)
  and has the kernel run the very cells that grading the notebook sent it, recorded from one
  grade of it (``kernel_cells``), one after the other, and nothing else: no notebook read, no
  judging, no results written. Target: the command within ``ONE_LIMIT`` (1.3x) of it;
* **a batch**: ``python -m course_grader FOLDER -j 2`` on ``notebooks`` copies of the course's
  own solutions (the labs in turn), as seconds per notebook;
* **the batch's floor**: the same floor for every notebook of the batch, on as many workers as
  the batch has (``-j 2``): two fresh interpreters, each starting a sandbox and running the
  recorded cells of every other notebook in turn, per notebook. Target: the batch within
  ``BATCH_LIMIT`` (1.15x) of it.

Wall-clock time throughout: the work is spread over the grader, bubblewrap and the kernel.
Run on a quiet machine (the README says how); nothing here is a test.
"""

from __future__ import annotations

import json
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
ONE_LIMIT = 1.3
"""One notebook graded within 1.3x its floor."""
BATCH_LIMIT = 1.15
"""A batch within 1.15x its floor, per notebook."""
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
    batch_floor: float
    """Seconds per notebook of the batch's floors on ``jobs`` workers (``batch_floor``)."""
    cells: int

    @property
    def ratio(self) -> float:
        return self.one / self.floor

    @property
    def batch_ratio(self) -> float:
        """Per notebook, against the batch's own floor."""
        return self.batch / self.batch_floor


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


Recorded = list[tuple[str, list[tuple[str, float | None]]]]
"""Notebooks to run floors for: each one's lab and the cells grading it sent."""


def floors_command(recorded: Recorded, views: Path, workdir: Path, name: str) -> list[str]:
    """``python grading.py --floors FILE VIEWS``: a fresh interpreter running these floors in turn."""
    listed = workdir / f"{name}.json"
    listed.write_text(json.dumps(recorded), encoding="utf-8")
    return [sys.executable, str(Path(__file__).resolve()), "--floors", str(listed), str(views)]


def run_floors(listed: Path, views: Path) -> None:
    """What ``--floors`` runs: each recorded notebook's floor, one after the other."""
    for lab, cells in json.loads(listed.read_text(encoding="utf-8")):
        sandbox_floor(lab, [(source, timeout) for source, timeout in cells], views)


def batch_floor(recorded: Recorded, views: Path, workdir: Path, jobs: int) -> float:
    """Wall seconds for every notebook's floor on ``jobs`` workers at once (a fresh interpreter each)."""
    commands = [floors_command(recorded[worker::jobs], views, workdir, f"worker-{worker}") for worker in range(jobs)]
    started = time.monotonic()
    running = [subprocess.Popen(command, cwd=ROOT) for command in commands]
    if any(process.wait() != 0 for process in running):
        raise RuntimeError("a batch floor's worker failed")
    return time.monotonic() - started


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
    """One notebook graded and its floor (the best of ``repeat`` each, taking turns), then one batch and its floor."""
    views = workdir / "views"
    labs = list(lab_registry.LABS)
    recorded_by_lab = {
        lab: kernel_cells(solution(lab), views) for lab in {*labs[: min(notebooks, len(labs))], GRADED_LAB}
    }
    cells = recorded_by_lab[GRADED_LAB]
    one, floor = float("inf"), float("inf")
    command = grade_command(solution(GRADED_LAB), "--results", str(workdir / "results.json"))
    floor_command = floors_command([(GRADED_LAB, cells)], views, workdir, "one")
    for _ in range(repeat):
        one = min(one, wall(command, 1))
        floor = min(floor, wall(lambda: subprocess.run(floor_command, cwd=ROOT, check=True), 1))
    submissions = workdir / "submissions"
    write_class(submissions, notebooks)
    batch = wall(grade_command(submissions, "--out", str(workdir / "grades.csv"), "-j", str(jobs), "--no-progress"), 1)
    recorded = [(labs[index % len(labs)], recorded_by_lab[labs[index % len(labs)]]) for index in range(notebooks)]
    floors = batch_floor(recorded, views, workdir, jobs)
    return Grading(
        notebooks=notebooks,
        jobs=jobs,
        one=one,
        floor=floor,
        batch=batch / notebooks,
        batch_floor=floors / notebooks,
        cells=len(cells),
    )


def grading_lines(grading: Grading) -> list[str]:
    return [
        f"one {GRADED_LAB} notebook graded (python -m course_grader NOTEBOOK): {grading.one:.2f} s;"
        f" its floor (a fresh interpreter starting the sandbox, its kernel running the {grading.cells} cells"
        f" grading sent): {grading.floor:.2f} s; {grading.ratio:.2f}x",
        f"a batch of {grading.notebooks} with -j {grading.jobs}: {grading.batch:.2f} s per notebook;"
        f" its floor (every notebook's floor on {grading.jobs} workers): {grading.batch_floor:.2f} s per notebook;"
        f" {grading.batch_ratio:.2f}x",
    ]


def grading_verdicts(grading: Grading) -> list[tuple[bool, str]]:
    return [
        (
            grading.ratio <= ONE_LIMIT,
            f"one notebook graded takes {grading.ratio:.2f}x its floor (target <= {ONE_LIMIT:g}x)",
        ),
        (
            grading.batch_ratio <= BATCH_LIMIT,
            f"a batch of {grading.notebooks} with -j {grading.jobs} takes {grading.batch_ratio:.2f}x its floor"
            f" per notebook (target <= {BATCH_LIMIT:g}x)",
        ),
    ]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--floors"]:
        run_floors(Path(sys.argv[2]), Path(sys.argv[3]))
        raise SystemExit(0)
    raise SystemExit("usage: grading.py --floors FILE VIEWS (make bench runs it)")
