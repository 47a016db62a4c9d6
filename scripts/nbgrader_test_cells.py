"""nbgrader's autograder test cells of a lab notebook: one per check of its lab, after its checklist cell (issue 29).

``scripts/make_learner_labs.py`` adds them to every lab's solution notebook, and so to
its learner version (the one nbgrader releases keeps them too). Each cell calls
``course_lib.checklist.grade_cell(N, <the lab's functions>)``: silent when check N
passes, its reason on stderr when not, which nbgrader scores 0, so ``nbgrader
autograde`` gives a submission one point per passing check, as ``course-grade``'s
default scoring gives the checklist's tests (docs/grading.md, *nbgrader*). The
checks and the functions come from the course (``checklist.select``, the lab
registry), never from the text source, so a new check gets its test cell on the
next ``make learner-labs``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course_grader.intake.cells import CHECKLIST_TAG  # noqa: E402 - the tag the grader reads
from course_lib import checklist  # noqa: E402 - the checklist cell it writes
from course_lib.teaching import lab_registry  # noqa: E402 - each lab's checks and the functions it grades

NBGRADER_SCHEMA = 3


class GradeCellError(ValueError):
    """A lab's notebook cannot take nbgrader's test cells: no single checklist cell, an unknown lab, a taken id."""


GRADE_CELL_ID = "check-{number}"
GRADE_CELL = (
    "# nbgrader's test of check {number}: silent when the check passes, its reason on stderr (0 points) when not\n"
    "checklist.grade_cell({number}, {functions})"
)
"""An nbgrader autograder test cell: one per check of the lab, after its checklist cell (``course_lib.checklist.grade_cell``)."""
GRADE_CELL_POINTS = 1
"""What each check is worth under nbgrader: ``course-grade``'s default, one point per test (docs/grading.md, *nbgrader*)."""


def grade_cells(lab_id: str, where: str = "<source>") -> list[NotebookNode]:
    """nbgrader's test cells for ``lab_id``: one per check of the lab, each passing every function the lab grades."""
    try:
        lab = lab_registry.lab(lab_id)
    except ValueError as exc:
        raise GradeCellError(
            f"{where}: lab {lab_id!r} is not in course_lib/teaching/lab_registry.py, so its checks (nbgrader's test cells) "
            "are unknown"
        ) from exc
    functions = ", ".join(f"{name}={name}" for name in lab.functions)
    cells = []
    for case in checklist.select(lab.id):
        cell = nbformat.v4.new_code_cell(GRADE_CELL.format(number=case.number, functions=functions))
        cell.id = GRADE_CELL_ID.format(number=case.number)
        cell.metadata["nbgrader"] = {
            "grade": True,
            "grade_id": cell.id,
            "locked": True,
            "points": GRADE_CELL_POINTS,
            "schema_version": NBGRADER_SCHEMA,
            "solution": False,
        }
        cells.append(cell)
    return cells


def with_grade_cells(notebook: NotebookNode, where: str = "<source>") -> NotebookNode:
    """``notebook`` with nbgrader's test cells right after its one ``checklist`` cell (a lab needs exactly one)."""
    at = [index for index, cell in enumerate(notebook.cells) if CHECKLIST_TAG in cell.metadata.get("tags", [])]
    if len(at) != 1:
        raise GradeCellError(f"{where}: a lab needs exactly one cell tagged {CHECKLIST_TAG!r}, found {len(at)}")
    added = grade_cells(notebook.metadata["course"]["lab"], where)
    taken = {cell.id for cell in notebook.cells} & {cell.id for cell in added}
    if taken:
        raise GradeCellError(f"{where}: the ids {sorted(taken)} are nbgrader's test cells'; give those cells others")
    notebook.cells[at[0] + 1 : at[0] + 1] = added
    return notebook
