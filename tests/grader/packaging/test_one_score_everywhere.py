"""One score everywhere: the same notebook graded by ``course-grade``, in a Gradescope dry run and by ``nbgrader autograde``.

Issue 29's last promise. Lab 11.3 under the documented course file
(``docs/examples/course.toml``: 10 points, H1 and H2 weighing 2, the term's
secret in ``term.secret`` beside it, here ``term_secrets.TERM``). The notebooks are nbgrader's own release of the solution
(``nbgrader generate_assignment``), handed in once with a mutant's answer (it
fails check 8) and once with the solution's, and each file is graded three ways:

- ``course-grade NOTEBOOK --course course.toml --results local.json`` in its
  sandbox: results.json as Gradescope's, written locally;
- the bundle built with ``--course`` and ``--seed`` the term's secret, set up and
  run as Gradescope runs it (``tests/gradescope_dry_run.py``);
- ``nbgrader autograde`` with the example config (``tests/nbgrader_course.py``).

Gradescope's results are course-grade's, test by test (points, weights,
status) and in total. nbgrader carries the checklist only: its grade cells
``check-7`` … ``check-9`` are a point each, and the hidden tests are
course-grade's alone (nbgrader's notebook has no way to draw them without
giving them away). So each grade cell scores the share of its test that
course-grade gives, and nbgrader's total is course-grade's checklist tests passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest
from gradescope_dry_run import dry_run_folder, set_up
from grading_corpus import solution
from mutants import MUTANTS
from nbgrader_course import answered, autograde, release
from term_secrets import TERM, beside

from course_grader import load_course
from course_lib.teaching import lab_registry

pytestmark = [pytest.mark.slow, pytest.mark.sandboxed]  # kernels, bubblewrap, a Gradescope dry run, real nbgrader

ROOT = Path(__file__).resolve().parents[3]
COURSE = ROOT / "docs" / "examples" / "course.toml"
LAB = "11.3"
WRONG = "11_3_overflow_not_charged"
"""A mutant of tests/mutants that fails check 8 (and some hidden tests): a score strictly between 0 and 10."""


def timed(what: str, started: float) -> None:
    print(f"{time.monotonic() - started:7.1f} s  {what}")


def local_results(notebook: Path, course: Path) -> dict[str, Any]:
    """``course-grade NOTEBOOK --course course.toml``: its results.json (the term's secret draws the hidden cases)."""
    results = notebook.with_suffix(".json")
    done = subprocess.run(
        [sys.executable, "-m", "course_grader", str(notebook), "--course", str(course), "--results", str(results)],
        cwd=notebook.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "course score: " in done.stdout, done.stdout
    return json.loads(results.read_text(encoding="utf-8"))


def per_test(data: dict[str, Any]) -> list[tuple[str, float, float, str]]:
    return [(test["number"], test["score"], test["max_score"], test["status"]) for test in data["tests"]]


def test_one_notebook_scores_the_same_locally_on_gradescope_and_under_nbgrader(tmp_path: Path) -> None:
    course_file = Path(shutil.copytree(COURSE.parent, tmp_path / "course")) / COURSE.name
    beside(course_file)
    course = load_course(course_file)
    seed, timeout = course.secret, course.settings.limits.timeout
    assert seed == TERM and timeout is not None
    entry = lab_registry.lab(LAB)
    name = f"{entry.notebook}.ipynb"
    started = time.monotonic()
    released = release(tmp_path / "nbgrader", ROOT / entry.folder / "solutions" / name)
    timed("nbgrader generate_assignment", started)
    wrong = next(m for m in MUTANTS if m.name == WRONG)
    handed_in = {"wrong": answered(released, wrong.notebook()), "right": answered(released, solution(LAB))}
    started = time.monotonic()
    nbgrader = autograde(tmp_path / "nbgrader", name, handed_in)
    timed(f"nbgrader autograde ({len(handed_in)} notebooks)", started)

    local: dict[str, dict[str, Any]] = {}
    for student, notebook in handed_in.items():
        (tmp_path / student).mkdir()
        nbformat.write(notebook, tmp_path / student / name)
        started = time.monotonic()
        local[student] = local_results(tmp_path / student / name, course_file)
        timed(f"course-grade {student}/{name} --course course.toml", started)

    with dry_run_folder("course-grade-one-score-") as (folder, python):
        started = time.monotonic()
        grader = set_up(LAB, folder, python, secret=seed, timeout=timeout, course=course_file)
        timed("course-grade bundle --course course.toml, unpacked, setup.sh", started)
        for student, notebook in handed_in.items():
            started = time.monotonic()
            gradescope, _ = grader.submit({name: notebook}, cwd=folder)
            timed(f"run_autograder ({student})", started)
            assert per_test(gradescope) == per_test(local[student]), student
            assert gradescope["score"] == local[student]["score"], student
            assert seed not in json.dumps(gradescope), "the secret reached what a learner sees"

    assert local["right"]["score"] == 10 and 0 < local["wrong"]["score"] < 10, local["wrong"]["score"]
    for student, got in nbgrader.items():
        checklist = [test for test in local[student]["tests"] if not test["number"].startswith("H")]
        assert got.max_score == len(checklist) == 3, student
        cells = {cell: points for cell, points in got.cells.items() if cell.startswith("check-")}
        shares = {f"check-{test['number']}": test["score"] / test["max_score"] for test in checklist}
        assert cells == pytest.approx(shares), student
        assert sum(cells.values()) == sum(test["status"] == "passed" for test in checklist), student
    assert nbgrader["wrong"].cells["check-8"] == 0 and nbgrader["right"].cells["check-8"] == 1
