"""Which cells the grader runs: the learner's exercise cells, and the lab's setup from the course's copy.

Only cells tagged ``exercise`` come from the submission (docs/grading.md).
The setup (imports and the lab's own definitions before the first exercise) is
taken from the course's copy of the lab, so a learner who deletes or edits it,
or edits the checklist cell, changes nothing the grader runs. Stored outputs
are never read.
"""

from __future__ import annotations

from nbformat import NotebookNode

EXERCISE_TAG = "exercise"
CHECKLIST_TAG = "checklist"


def tags(cell: NotebookNode) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []) or [])


def exercise_sources(notebook: NotebookNode) -> tuple[str, ...]:
    """The learner's code: every code cell tagged ``exercise``, in notebook order."""
    return tuple(
        cell.source
        for cell in notebook.cells
        if cell.cell_type == "code" and EXERCISE_TAG in tags(cell) and CHECKLIST_TAG not in tags(cell)
    )


def setup_sources(template: NotebookNode) -> tuple[str, ...]:
    """The lab's own code cells before its first exercise: imports and the example it builds on."""
    sources: list[str] = []
    for cell in template.cells:
        if cell.cell_type != "code":
            continue
        if EXERCISE_TAG in tags(cell):
            break
        if CHECKLIST_TAG not in tags(cell):
            sources.append(cell.source)
    return tuple(sources)
