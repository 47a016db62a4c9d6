"""Per-notebook time of a batch of honest submissions: the figure the grading issue asks for.

    .venv/bin/python scripts/batch_timing.py [--students 50] [-j 2] [--seed SECRET] [--keep DIR]

Writes ``--students`` folders ``submissions/s00/…`` holding the course's own solutions
(the five labs and the capstone, in turn), grades them with ``python -m course_grader``
as an instructor would, and prints the wall-clock time, the time per notebook and the
statuses. Only the command line is used, so the same script times any version of the grader.
The machine's load matters: compare runs made back to back.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course_lib.teaching import lab_registry  # noqa: E402 - imported once sys.path holds the repo


def write_class(folder: Path, students: int) -> None:
    """One solution per student, the labs in turn, under the lab's own file name."""
    solutions = [ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb" for entry in lab_registry.LABS.values()]
    for index in range(students):
        source = solutions[index % len(solutions)]
        student = folder / f"s{index:02d}"
        student.mkdir(parents=True)
        shutil.copyfile(source, student / source.name)


def grade_command(submissions: Path, out: Path, jobs: int, seed: str | None, *options: str) -> list[str]:
    """``course-grade`` on a folder as an instructor runs it, no progress bar (also ``scripts/cpu_hog.py``'s).

    Without ``seed`` the grader draws its own (what any version of it takes; a ``--seed`` is a secret since issue 43).
    """
    command = [sys.executable, "-m", "course_grader", str(submissions), "--out", str(out), "-j", str(jobs)]
    return [*command, *options, "--no-progress", *(("--seed", seed) if seed else ())]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--seed", help="the run's secret (default: the grader draws one)")
    parser.add_argument("--keep", type=Path, help="write the class and the CSV here instead of a temporary folder")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="batch-timing-") as temporary:
        base = arguments.keep or Path(temporary)
        submissions, out = base / "submissions", base / "grades.csv"
        write_class(submissions, arguments.students)
        command = grade_command(submissions, out, arguments.jobs, arguments.seed)
        started = time.monotonic()
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        seconds = time.monotonic() - started
        with out.open(encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    statuses = Counter(row["status"] for row in rows)
    full = sum(row["percent"] == "100.0" for row in rows)
    print(
        f"{len(rows)} notebooks, -j {arguments.jobs}: {seconds:.1f} s, {seconds / len(rows):.2f} s per notebook; "
        f"statuses {dict(statuses)}; {full} at 100 %"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
