"""A real nbgrader course folder, run as an instructor runs it: the console script, a ``PATH`` without the venv.

``release`` puts one lab's solution notebook in ``source/<assignment>/`` with
the example ``nbgrader_config.py`` (docs/examples/) and runs ``nbgrader
generate_assignment``; ``answered`` hands in the released notebook with a
solution's (or a mutant's) exercise cells; ``autograde`` puts the notebooks in
``submitted/<student>/<assignment>/``, runs ``nbgrader autograde`` and reads
each student's scores from nbgrader's gradebook. Used by
``tests/grader/packaging/test_nbgrader_interop.py`` and
``test_one_score_everywhere.py``.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENT = "chapter11"
SCRIPTS = Path(sysconfig.get_path("scripts"))
"""The venv's console scripts: ``nbgrader``, and the ``alembic`` it runs by name."""
EXAMPLE_CONFIG = ROOT / "docs" / "examples" / "nbgrader_config.py"


def path_without_the_venv() -> str:
    """``PATH`` as a shell that never activated the venv has it (a cron job, a CI step): no scripts folder."""
    kept = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p).resolve() != SCRIPTS.resolve()]
    return os.pathsep.join(kept or [os.defpath])


def console_nbgrader(course: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``.venv/bin/nbgrader ARGUMENTS`` in ``course``, with a ``PATH`` without the venv's scripts folder."""
    environment = os.environ | {
        "PATH": path_without_the_venv(),
        "JUPYTER_CONFIG_DIR": str(course / ".jupyter"),
        "JUPYTER_DATA_DIR": str(course / ".data"),
        "PYTHONPATH": str(ROOT),  # the kernels grade with this checkout's course_lib
    }
    return subprocess.run(
        [str(SCRIPTS / "nbgrader"), *arguments],
        cwd=course,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def release(course: Path, solution_path: Path) -> Any:
    """``nbgrader generate_assignment`` (with its gradebook) on one solution notebook: the released notebook."""
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(solution_path, course / "source" / ASSIGNMENT / solution_path.name)
    config = EXAMPLE_CONFIG.read_text(encoding="utf-8") + f"\nc.CourseDirectory.root = {str(course)!r}\n"
    (course / "nbgrader_config.py").write_text(config, encoding="utf-8")
    generated = console_nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    assert generated.returncode == 0, generated.stderr
    return nbformat.read(course / "release" / ASSIGNMENT / solution_path.name, as_version=4)


def answered(released: Any, done: Any) -> Any:
    """The released notebook handed in with ``done``'s exercise cells (a solution's or a mutant's), by cell id."""
    notebook = copy.deepcopy(released)
    answers = {cell.id: cell.source for cell in done.cells if "exercise" in cell.metadata.get("tags", [])}
    assert answers and set(answers) <= {cell.id for cell in notebook.cells}
    for cell in notebook.cells:
        cell.source = answers.get(cell.id, cell.source)
    return notebook


@dataclass(frozen=True)
class Autograded:
    """One student's notebook as nbgrader's gradebook scored it."""

    cells: dict[str, float]
    """Each grade cell's score, by its name (``check-7``, …)."""
    max_score: float


def autograde(course: Path, notebook_name: str, handed_in: dict[str, Any]) -> dict[str, Autograded]:
    """``nbgrader autograde`` of ``handed_in`` (student: notebook, saved as ``notebook_name``); their scores."""
    from nbgrader.api import Gradebook

    for student, notebook in handed_in.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / notebook_name)
    done = console_nbgrader(course, "autograde", ASSIGNMENT, "--force")
    assert done.returncode == 0, done.stderr
    scores: dict[str, Autograded] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in handed_in:
            notebook = gradebook.find_submission_notebook(Path(notebook_name).stem, ASSIGNMENT, student)
            cells = {grade.name: float(grade.score) for grade in notebook.grades}
            scores[student] = Autograded(cells, float(notebook.max_score))
    return scores
