"""Generate every notebook from its text source, then execute them (``make learner-labs``).

Each lab (and the capstone) gives a solution and a learner notebook; the notebooks
without exercises (``notebooks/00_start_here``, ``01_projection_explorer``,
``03_your_own_session``) give one notebook each, their source's cells as they are.

Usage: python scripts/make_learner_labs.py [--changed] [--no-execute]

``--changed`` writes and executes only the notebooks whose cells or metadata differ
from their source (quick while editing one lab; after a change to ``course_lib``, which
changes outputs and not sources, run it without). ``--no-execute`` writes without executing.

The single source of each lab is a jupytext py:percent file (docs/notebooks.md):
``labs/sources/lab_11_N_*.py`` for the labs, ``notebooks/sources/02_lifecycle_capstone.py``
for the capstone (``<registry folder>/sources/<notebook>.py``). The edit loop:

1. edit the text source (any editor; a cell starts at ``# %%``, markdown cells at
   ``# %% [markdown]``, each marker carrying the cell's ``id="…"`` and its ``tags=[…]``;
   the YAML header holds the notebook metadata: ``kernelspec`` and ``course``);
2. ``make learner-labs``: writes ``<folder>/solutions/<notebook>.ipynb`` (the solution)
   and ``<folder>/<notebook>.ipynb`` (the learner version), then executes both in place;
3. commit the source and the regenerated notebooks together.

``tests/notebooks/test_learner_labs.py`` fails when a committed notebook (solution, learner or one
without exercises) is not what this script generates from its source, outputs aside.

A source in ``notebooks/sources/`` that is no lab's is a notebook without exercises:
``notebooks/sources/<name>.py`` gives ``notebooks/<name>.ipynb``, with no solution
regions, no nbgrader metadata and no learner version.

The solution notebook is the source as it is, plus nbgrader cell metadata derived from
the tags (so ``nbgrader generate_assignment`` accepts it, issue 17): an ``exercise``
cell is an autograded answer (``solution: true``), the setup cell (the first code cell)
and the ``checklist`` cell are read-only (``locked: true``); each
cell's nbgrader ``grade_id`` is its cell id. After the ``checklist`` cell the generator
adds nbgrader's autograder test cells, one per check of the lab (``grade_cells``: id
``check-N``, 1 point, ``checklist.grade_cell(N, …)``; ``scripts/nbgrader_test_cells.py``), so ``nbgrader autograde`` scores
the checks as ``course-grade`` scores the checklist's tests; the learner version keeps
them, as nbgrader's released version does. The learner version replaces each region
between ``### BEGIN SOLUTION`` and ``### END SOLUTION``, at the marker's indentation, by a stub:

- inside a function: ``raise NotImplementedError("Lab 11.N not implemented yet: <function>")``
  (``"The capstone not implemented yet: ..."`` for the capstone),
  so the learner notebook runs and the checklist shows "not implemented yet";
- inside a class body: ``pass``, so the class still exists (Lab 11.1's models).

Everything else (prose, hints, tags, cell and notebook metadata) is copied as
it is; outputs are cleared and then refilled by ``scripts/execute_notebooks.py``.

Each notebook whose source has a translation catalog also gets its edition in that
language (``labs/zh/…``, ``notebooks/zh/…``): the same cells, the prose from the catalog,
its links to docs/rules.md pointing to that language's rules page (``scripts/translated_notebooks.py``).
"""

from __future__ import annotations

import copy
import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course_grader.intake.cells import CHECKLIST_TAG, EXERCISE_TAG  # noqa: E402 - the tags the grader reads
from course_lib.teaching import lab_registry  # noqa: E402 - the registry says where each lab's notebooks live

sys.path.insert(0, str(ROOT / "scripts"))
translated_notebooks = importlib.import_module("translated_notebooks")  # the editions in other languages, beside this
nbgrader_test_cells = importlib.import_module("nbgrader_test_cells")  # nbgrader's test cells after the checklist

TEXT_FORMAT = "py:percent"
SOURCES = "sources"
SOLUTIONS = "solutions"
NOTEBOOK_METADATA = ("course", "kernelspec")
"""What a source's header holds; ``language_info`` comes from the kernel at execution."""
NOTEBOOK_METADATA_FROM_EXECUTION = ("language_info",)
"""Notebook metadata the kernel writes when the notebook is executed: not the source's."""
CELL_METADATA_FROM_EXECUTION = ("execution",)
"""nbclient's timing metadata (not recorded by ``scripts/execute_notebooks.py``, ignored if present)."""
TEXT_LAYOUT_METADATA = ("lines_to_next_cell", "lines_to_end_of_cell_marker")
"""jupytext's notes on the blank lines around a cell in the text: layout of the source, nothing a notebook needs."""

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
NBGRADER_SCHEMA = nbgrader_test_cells.NBGRADER_SCHEMA
_DEFINITION = re.compile(r"^(?P<indent>\s*)(?:async\s+def|def|class)\s+(?P<name>\w+)")
_KIND = re.compile(r"^\s*(?P<kind>async\s+def|def|class)\b")
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # nbformat's cell id rule, and nbgrader's grade_id rule


class SolutionRegionError(ValueError):
    """A solution region is unbalanced or sits where no stub can replace it."""


class LabSourceError(ValueError):
    """A lab's text source cannot give a notebook whose cells keep their ids (missing, invalid or repeated)."""


def strip_solutions(source: str, lab: str) -> str:
    """``source`` with every solution region replaced by its stub (see the module docstring)."""
    lines = source.split("\n")
    out: list[str] = []
    inside: tuple[int, str] | None = None  # (line number of BEGIN, stub indentation)
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside is not None:
                raise SolutionRegionError(f"line {number}: {BEGIN} inside another solution region")
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + stub for stub in stub_lines(lines[: number - 1], indent, lab, number))
            inside = (number, indent)
        elif marker == END:
            if inside is None:
                raise SolutionRegionError(f"line {number}: {END} without {BEGIN}")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise SolutionRegionError(f"line {inside[0]}: {BEGIN} is never closed by {END}")
    return "\n".join(out)


def stub_lines(before: list[str], indent: str, lab: str, number: int = 0) -> list[str]:
    """The stub's lines for a region at ``indent`` after the lines ``before``: named after the nearest enclosing def or class.

    ``number`` (the BEGIN marker's line) only makes an error message point at the region.
    """
    for line in reversed(before):
        match = _DEFINITION.match(line)
        kind = _KIND.match(line)
        if match and kind and len(match.group("indent")) < len(indent):
            name = match.group("name")
            if kind.group("kind") == "class":
                return [f"pass  # Your code here: the body of {name} ({_label(lab)})."]
            return [
                "# Your code here: replace the next line.",
                f'raise NotImplementedError("{lab_registry.STUB.format(label=_label(lab), function=name)}")',
            ]
    raise SolutionRegionError(f"line {number}: a solution region must sit inside a def or class body")


def _label(lab: str) -> str:
    """``Lab 11.3``, ``The capstone``: how a stub names its lab (an id outside the registry reads ``Lab <id>``)."""
    try:
        return lab_registry.lab(lab).label
    except ValueError:
        return f"Lab {lab}"


def _tags(cell: NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def nbgrader_metadata(cells: list[NotebookNode]) -> dict[int, dict[str, Any]]:
    """nbgrader's cell metadata, by cell index, derived from the course's tags (issue 17's interop).

    ``exercise`` cells are nbgrader's "autograded answer" cells. The setup cell
    (the first code cell: imports, which the grader takes from the course's copy)
    and the ``checklist`` cell (which the grader never runs from a submission) are
    "read-only": a learner's edit there would only make the inline checklist say
    something the grader does not. Other cells (prose, the example, the learner's
    ``my_prediction``) carry none.
    """
    setup = next((i for i, c in enumerate(cells) if c.cell_type == "code"), None)
    found: dict[int, dict[str, Any]] = {}
    for index, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        tags = _tags(cell)
        if EXERCISE_TAG in tags:
            solution, locked = True, False
        elif CHECKLIST_TAG in tags or index == setup:
            solution, locked = False, True
        else:
            continue
        found[index] = {
            "grade": False,
            "grade_id": cell.id,
            "locked": locked,
            "schema_version": NBGRADER_SCHEMA,
            "solution": solution,
        }
    return found


BANNER = "# INSTRUCTOR'S SOLUTION SOURCE"
"""The first line of every source: it holds the full solutions (a learner opens the generated notebook instead)."""


def solution_notebook(text: str, where: str = "<source>") -> NotebookNode:
    """The solution notebook a lab's text source describes: its cells with their ids, tags and nbgrader metadata,
    and nbgrader's test cells after the checklist cell (``nbgrader_test_cells``).

    The source's first line, the ``BANNER`` saying it is the instructor's, is not part of the notebook.
    """
    notebook = plain_notebook(text, where)
    for index, metadata in nbgrader_metadata(notebook.cells).items():
        notebook.cells[index].metadata["nbgrader"] = metadata
    return nbgrader_test_cells.with_grade_cells(notebook, where)


def plain_notebook(text: str, where: str = "<source>") -> NotebookNode:
    """The notebook a text source describes, as it is: its cells with their ids, tags and metadata.

    A notebook without exercises is this; a lab's solution notebook adds nbgrader's metadata.
    """
    if text.startswith(BANNER):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    notebook = jupytext.reads(text, fmt=TEXT_FORMAT)
    notebook.metadata = {key: notebook.metadata[key] for key in NOTEBOOK_METADATA if key in notebook.metadata}
    seen: set[str] = set()
    for number, cell in enumerate(notebook.cells, start=1):
        for key in TEXT_LAYOUT_METADATA:
            cell.metadata.pop(key, None)
        cell_id = cell.metadata.pop("id", None)
        if not isinstance(cell_id, str) or not _CELL_ID.match(cell_id):
            raise LabSourceError(
                f'{where}: cell {number} has no valid id="…" on its `# %%` line '
                f'(letters, digits, - and _; e.g. id="{_suggest_id(notebook.cells, number)}")'
            )
        if cell_id in seen:
            raise LabSourceError(f"{where}: cell {number} repeats the id {cell_id!r}; each cell needs its own")
        seen.add(cell_id)
        cell.id = cell_id
    return notebook


def _suggest_id(cells: list[NotebookNode], number: int) -> str:
    """An id for cell ``number`` (1-based) that follows its predecessor's, whose id is already set."""
    return f"{cells[number - 2].id}-b" if number > 1 else "cell-01"


def learner_notebook(solution: NotebookNode) -> NotebookNode:
    """The learner version of a solution notebook: regions stubbed, outputs cleared."""
    lab = solution.metadata["course"]["lab"]
    learner = copy.deepcopy(solution)
    for cell in learner.cells:
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, lab)
        cell.outputs = []
        cell.execution_count = None
    return learner


def source_paths() -> list[Path]:
    """Every lab's text source, in the registry's order."""
    return [ROOT / lab.folder / SOURCES / f"{lab.notebook}.py" for lab in lab_registry.LABS.values()]


def solution_path(source: Path) -> Path:
    return source.parent.parent / SOLUTIONS / f"{source.stem}.ipynb"


def solution_paths() -> list[Path]:
    """Every lab's solution notebook, in the registry's order."""
    return [solution_path(source) for source in source_paths()]


def learner_path(solution: Path) -> Path:
    return solution.parent.parent / solution.name


def read_source(source: Path) -> NotebookNode:
    return solution_notebook(source.read_text(encoding="utf-8"), str(source.relative_to(ROOT)))


def plain_source_paths() -> list[Path]:
    """The text sources of the notebooks without exercises: every one in ``notebooks/sources/`` that is no lab's."""
    labs = set(source_paths())
    return sorted(path for path in (ROOT / "notebooks" / SOURCES).glob("*.py") if path not in labs)


def plain_path(source: Path) -> Path:
    """``notebooks/sources/00_start_here.py`` gives ``notebooks/00_start_here.ipynb``."""
    return source.parent.parent / f"{source.stem}.ipynb"


def read_plain_source(source: Path) -> NotebookNode:
    """The notebook a source without exercises gives; one with a lab's metadata or a solution region is refused.

    Such a source is a lab the registry does not know: published as it is, its solutions would reach learners.
    """
    where = str(source.relative_to(ROOT))
    notebook = plain_notebook(source.read_text(encoding="utf-8"), where)
    if "course" in notebook.metadata or any(BEGIN in cell.source for cell in notebook.cells):
        raise LabSourceError(
            f"{where}: a lab's metadata or a solution region in a notebook without exercises; "
            "a lab needs its entry in course_lib/teaching/lab_registry.py"
        )
    return notebook


def english_notebooks() -> Iterator[tuple[Path, Path, NotebookNode]]:
    """Every English notebook the sources give: its source, where it is committed, the notebook."""
    for source in source_paths():
        solution = read_source(source)
        yield source, solution_path(source), solution
        yield source, learner_path(solution_path(source)), learner_notebook(solution)
    for source in plain_source_paths():
        yield source, plain_path(source), read_plain_source(source)


def generated() -> Iterator[tuple[Path, NotebookNode]]:
    """Every notebook the sources give, with where it is committed: each lab's two, then the plain ones,
    each followed by its edition in every language whose catalog of its source exists (translated_notebooks)."""
    for source, target, notebook in english_notebooks():
        yield target, notebook
        for language in translated_notebooks.TRANSLATED:
            if translated_notebooks.has_catalog(source, language):
                edition = translated_notebooks.edition(notebook, source, language)
                yield translated_notebooks.edition_path(target, language, ROOT), edition


def comparable_cell(cell: NotebookNode) -> dict[str, Any]:
    """What the generator decides about a cell: everything but outputs, execution counts and timing."""
    metadata = {key: value for key, value in cell.metadata.items() if key not in CELL_METADATA_FROM_EXECUTION}
    return {"id": cell.get("id"), "cell_type": cell.cell_type, "source": cell.source, "metadata": metadata}


def comparable(notebook: NotebookNode) -> dict[str, Any]:
    """What the generator decides about a notebook (``comparable_cell``, and the metadata its source gives)."""
    metadata = {key: value for key, value in notebook.metadata.items() if key not in NOTEBOOK_METADATA_FROM_EXECUTION}
    return {"metadata": metadata, "cells": [comparable_cell(cell) for cell in notebook.cells]}


def is_up_to_date(generated: NotebookNode, committed: Path) -> bool:
    """Whether the notebook at ``committed`` is ``generated``, outputs aside."""
    return committed.is_file() and comparable(nbformat.read(committed, as_version=4)) == comparable(generated)


def main(arguments: list[str]) -> int:
    written = []
    for target, notebook in generated():
        if "--changed" in arguments and is_up_to_date(notebook, target):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, target)
        written.append(target)
        print(f"wrote {target.relative_to(ROOT)}")
    if "--no-execute" in arguments or not written:
        return 0
    executor = ROOT / "scripts" / "execute_notebooks.py"
    return subprocess.call([sys.executable, str(executor), *map(str, written)])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
