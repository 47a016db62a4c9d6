"""`make bench`'s row against nbgrader: the same notebooks graded by ``course-grade`` and by ``nbgrader autograde``.

nbgrader (a ``[dev]`` dependency) releases the Lab 11.3 solution from a course folder
(``tests/nbgrader_course.py``, as the interop tests do), and ``NOTEBOOKS`` students hand in
the released notebook with the solution's answers. Then, on those very files:

* ``nbgrader autograde`` (its console script, serially, no sandbox, the lab's 3 visible test
  cells), and
* ``python -m course_grader FOLDER -j 2`` (each notebook in its bubblewrap sandbox, the
  checklist's and the hidden tests: 10 and more per notebook),

each as wall-clock seconds per notebook, with the CPU seconds its processes used
(``RUSAGE_CHILDREN``). Target: ``course-grade``'s wall time per notebook within
``WALL_LIMIT`` of nbgrader's, and its CPU time per notebook no more than nbgrader's.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the course-folder helper the interop tests use

from grading import GRADED_LAB, JOBS, SEED, solution  # noqa: E402  # after the tests folder is on the path
from nbgrader_course import ASSIGNMENT, answered, console_nbgrader, release  # noqa: E402

NBGRADER_NOTEBOOKS = 10
WALL_LIMIT = 1.1
"""course-grade's wall time per notebook within 1.1x nbgrader's: it sandboxes each notebook and runs
more than three times its tests, on two workers where nbgrader runs one notebook after another."""
CPU_LIMIT = 1.0


@dataclass
class NbgraderRow:
    notebooks: int
    jobs: int
    course_grade: float
    """Wall-clock seconds per notebook of ``python -m course_grader FOLDER -j JOBS``."""
    course_grade_cpu: float
    nbgrader: float
    """Wall-clock seconds per notebook of ``nbgrader autograde``."""
    nbgrader_cpu: float

    @property
    def ratio(self) -> float:
        return self.course_grade / self.nbgrader

    @property
    def cpu_ratio(self) -> float:
        return self.course_grade_cpu / self.nbgrader_cpu


def timed(command: list[str] | None, run: object = None, **options: object) -> tuple[float, float]:
    """Wall seconds and the children's CPU seconds of one subprocess (``command``) or call (``run``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    if command is not None:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, **options)  # type: ignore[call-overload]
    else:
        assert callable(run)
        run()
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_nbgrader(workdir: Path, *, notebooks: int = NBGRADER_NOTEBOOKS, jobs: int = JOBS) -> NbgraderRow:
    """The same ``notebooks`` handed-in notebooks graded by nbgrader autograde and by course-grade."""
    course = workdir / "nbgrader"
    source = solution(GRADED_LAB)
    released = release(course, source)
    handed_in = answered(released, nbformat.read(source, as_version=4))
    submissions = workdir / "submissions"
    for index in range(notebooks):
        for folder in (course / "submitted" / f"s{index:02d}" / ASSIGNMENT, submissions / f"s{index:02d}"):
            folder.mkdir(parents=True)
            nbformat.write(handed_in, folder / source.name)

    def autograde() -> None:
        done = console_nbgrader(course, "autograde", ASSIGNMENT, "--force")
        if done.returncode != 0:
            raise RuntimeError(f"nbgrader autograde failed:\n{done.stderr[-3000:]}")

    nbgrader_wall, nbgrader_cpu = timed(None, autograde)
    command = [sys.executable, "-m", "course_grader", str(submissions), "--seed", str(SEED), "-j", str(jobs)]
    ours_wall, ours_cpu = timed([*command, "--out", str(workdir / "grades.csv"), "--no-progress"], cwd=ROOT)
    return NbgraderRow(
        notebooks=notebooks,
        jobs=jobs,
        course_grade=ours_wall / notebooks,
        course_grade_cpu=ours_cpu / notebooks,
        nbgrader=nbgrader_wall / notebooks,
        nbgrader_cpu=nbgrader_cpu / notebooks,
    )


def nbgrader_lines(row: NbgraderRow) -> list[str]:
    return [
        f"the same {row.notebooks} Lab {GRADED_LAB} notebooks: course-grade -j {row.jobs} {row.course_grade:.2f} s"
        f" per notebook ({row.course_grade_cpu:.2f} s CPU), nbgrader autograde {row.nbgrader:.2f} s"
        f" ({row.nbgrader_cpu:.2f} s CPU)"
    ]


def nbgrader_verdicts(row: NbgraderRow) -> list[tuple[bool, str]]:
    return [
        (
            row.ratio <= WALL_LIMIT,
            f"course-grade takes {row.ratio:.2f}x nbgrader autograde's wall time per notebook on the same"
            f" {row.notebooks} notebooks (target <= {WALL_LIMIT:g}x)",
        ),
        (
            row.cpu_ratio <= CPU_LIMIT,
            f"course-grade takes {row.cpu_ratio:.2f}x nbgrader autograde's CPU time per notebook on the same"
            f" {row.notebooks} notebooks (target <= {CPU_LIMIT:g}x)",
        ),
    ]
