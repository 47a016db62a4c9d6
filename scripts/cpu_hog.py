"""An honest neighbour's score next to a CPU hog, graded in one batch: the figure the grading issue asks for.

    .venv/bin/python scripts/cpu_hog.py [-j 2] [--children 40] [--keep DIR]

Writes three submissions: ``a_hog`` (the Lab 11.5 solution whose exercise cell
forks ``--children`` busy processes, under the sandbox's 64-task limit, each
stopping by itself after two minutes, and whose ``build_context`` sleeps 0.5 s
before answering, so that the hog lives through all its calls), then two honest ones, the course's own
Lab 11.5 and Lab 11.1 solutions from ``labs/solutions/``. With ``-j 2`` the hog
and the honest Lab 11.5 start together, each on a worker of its own; the Lab 11.1
follows on whichever worker is free first. It grades them with
``python -m course_grader`` as an instructor would (only the command line: the
same script runs against any version of the grader) and prints each row's
score, status and seconds. Before issue 27 the honest Lab 11.5 got 0/8 ("setup
over 60 s") beside such a hog; ``tests/grader/sandbox/test_grading_cpu.py`` asserts full marks.
"""

from __future__ import annotations

import argparse
import copy
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]  # the repo, and batch_timing (also when a test loads this file)

from batch_timing import grade_command  # type: ignore[import-not-found]  # noqa: E402 - on sys.path at run time (above), not on mypy_path, where scripts/ is a package

from course_lib.teaching import lab_registry  # noqa: E402 - imported once sys.path holds the repo

BUDGET = 90.0
"""The batch's ``--budget``: bounds how long the hog's sandbox (and so its processes) can live."""
TIMEOUT = 3.0
"""The batch's ``--timeout`` per cell and call: an honest call needs a fraction of a second of CPU."""

HOG = """
import os as _os, time as _time
_start = _time.monotonic() + 1  # every child is forked before any spins: the cell itself ends at once
_end = _start + 120  # each busy child stops by itself; the sandbox's end kills them sooner
_hogs = []
for _ in range({children}):
    try:
        _pid = _os.fork()
    except OSError:  # the sandbox's task limit
        break
    if _pid == 0:
        _time.sleep(max(0, _start - _time.monotonic()))
        while _time.monotonic() < _end:
            pass
        _os._exit(0)
    _hogs.append(_pid)

_build_context = build_context


def build_context(*args, **kwargs):  # right, and slow without computing: the hog lives through every call
    _time.sleep(0.5)
    return _build_context(*args, **kwargs)
"""


def solution(lab: str) -> Path:
    entry = lab_registry.lab(lab)
    return ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb"


def hog_notebook(children: int) -> nbformat.NotebookNode:
    """The Lab 11.5 solution, its exercise cell also forking ``children`` busy processes."""
    notebook = copy.deepcopy(nbformat.read(solution("11.5"), as_version=4))
    cell = next(
        cell
        for cell in notebook.cells
        if "exercise" in cell.metadata.get("tags", []) and "def build_context(" in cell.source
    )
    cell.source += "\n\n" + HOG.format(children=children)
    return notebook


def write_class(folder: Path, children: int = 40) -> dict[str, Path]:
    """``a_hog``, then the honest ``b_honest`` (Lab 11.5) and ``c_honest`` (Lab 11.1): path order is queue order."""
    made = {
        "a_hog": folder / "a_hog" / solution("11.5").name,
        "b_honest": folder / "b_honest" / solution("11.5").name,
        "c_honest": folder / "c_honest" / solution("11.1").name,
    }
    for path in made.values():
        path.parent.mkdir(parents=True)
    nbformat.write(hog_notebook(children), made["a_hog"])
    made["b_honest"].write_bytes(solution("11.5").read_bytes())
    made["c_honest"].write_bytes(solution("11.1").read_bytes())
    return made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--children", type=int, default=40)
    parser.add_argument("--seed", help="the run's secret (default: the grader draws one)")
    parser.add_argument("--keep", type=Path, help="write the class and the CSV here instead of a temporary folder")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cpu-hog-") as temporary:
        base = arguments.keep or Path(temporary)
        submissions, out = base / "submissions", base / "grades.csv"
        write_class(submissions, arguments.children)
        options = ("--budget", f"{BUDGET:g}", "--timeout", f"{TIMEOUT:g}")
        command = grade_command(submissions, out, arguments.jobs, arguments.seed, *options)
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        with out.open(encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    for row in rows:
        notes = row["notes"][:160]
        print(
            f"{row['student']:>9} lab {row['lab']:<4} {row['total']:>3}/{row['max_score']:<3} {row['status']:<7} "
            f"{row['seconds']:>6} s  {notes}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
