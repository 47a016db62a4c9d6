"""What the grader reads from a notebook: its lab, the learner's exercise cells, the lab's setup.

Only cells tagged ``exercise`` come from the submission (docs/grading.md).
The setup (imports and the lab's own definitions before the first exercise) is
taken from the course's copy of the lab, so a learner who deletes or edits it,
or edits the checklist cell, changes nothing the grader runs. Stored outputs
are never read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from .. import labs
from .errors import NotALabNotebook, TemplateNotFound

LAB_FUNCTIONS: dict[str, tuple[str, ...]] = {lab.id: lab.functions for lab in labs.LABS.values()}
"""The function(s) each lab asks for (from the registry, ``course_lib.labs``)."""

EXERCISE_TAG = "exercise"
CHECKLIST_TAG = "checklist"
LABS_ENVIRONMENT = "COURSE_GRADE_LABS"
_FILE_LAB = re.compile(r"lab[_-]?(\d+)[_.-](\d+)(?!\d)", re.IGNORECASE)


@dataclass(frozen=True)
class Submission:
    path: Path
    lab: str
    exercise_sources: tuple[str, ...]
    notebook: NotebookNode


def read_notebook(path: str | Path) -> NotebookNode:
    """The notebook, or ``NotALabNotebook`` when the file is not a readable notebook."""
    try:
        return nbformat.read(os.fspath(path), as_version=4)
    except Exception as exc:  # noqa: BLE001 - invalid JSON, wrong schema, unreadable file
        raise NotALabNotebook(f"{Path(path).name} is not a readable Jupyter notebook ({type(exc).__name__}: {exc})") from None


def lab_of(notebook: NotebookNode, path: str | Path | None = None) -> str:
    """The lab from ``metadata.course.lab``, else from a file name like ``lab_11_3_….ipynb``."""
    course = notebook.get("metadata", {}).get("course", {})
    if isinstance(course, dict) and course.get("lab") is not None:
        try:
            return labs.lab(course["lab"]).id  # "11.3", "Lab 11.3" and 3 name the same lab
        except ValueError:
            pass
    match = _FILE_LAB.search(Path(path).name) if path is not None else None
    if match and f"{match.group(1)}.{match.group(2)}" in labs.LABS:
        return f"{match.group(1)}.{match.group(2)}"
    where = f"{Path(path).name}: " if path is not None else ""
    raise NotALabNotebook(f"{where}no lab in the notebook's metadata (course.lab) or its file name")


def tags(cell: NotebookNode) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []) or [])


def exercise_sources(notebook: NotebookNode) -> tuple[str, ...]:
    """The learner's code: every code cell tagged ``exercise``, in notebook order."""
    return tuple(
        cell.source for cell in notebook.cells
        if cell.cell_type == "code" and EXERCISE_TAG in tags(cell) and CHECKLIST_TAG not in tags(cell)
    )


def read_submission(path: str | Path, *, expected_lab: str | None = None) -> Submission:
    """The submission's lab and exercise cells; ``expected_lab`` is used when the notebook names none."""
    notebook = read_notebook(path)
    try:
        lab = lab_of(notebook, path)
    except NotALabNotebook:
        if expected_lab is None:
            raise
        lab = expected_lab
    if expected_lab is not None and lab != expected_lab:
        raise NotALabNotebook(f"{Path(path).name} is Lab {lab}, but this autograder grades Lab {expected_lab}")
    return Submission(Path(path), lab, exercise_sources(notebook), notebook)


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


def template_dirs(labs_dir: str | Path | None = None) -> list[Path]:
    """Where the course's lab notebooks may be: the option, ``$COURSE_GRADE_LABS``, ``./labs``, the checkout."""
    checkout = Path(__file__).resolve().parents[2]
    folders = sorted({lab.folder for lab in labs.LABS.values()})
    candidates = [labs_dir, os.environ.get(LABS_ENVIRONMENT), *(Path.cwd() / f for f in folders), *(checkout / f for f in folders)]
    found: list[Path] = []
    for candidate in candidates:
        if not candidate:
            continue
        for folder in (Path(candidate), Path(candidate) / "solutions"):
            if folder.is_dir() and folder.resolve() not in found:
                found.append(folder.resolve())
    return found


def find_template(lab: str, labs_dir: str | Path | None = None) -> NotebookNode:
    """The course's notebook for ``lab``: the learner version when present, else the solution."""
    searched = template_dirs(labs_dir)
    for folder in searched:
        for path in sorted(folder.glob("*.ipynb")):
            try:
                notebook = read_notebook(path)
                if lab_of(notebook, path) == lab:
                    return notebook
            except NotALabNotebook:
                continue
    raise TemplateNotFound(
        f"no notebook for Lab {lab} in {', '.join(map(str, searched)) or 'any labs folder'}; "
        f"pass --labs DIR or set {LABS_ENVIRONMENT}"
    )


_LAB_SUFFIX = re.compile(r"[\s_.-]*lab[\s_-]*\d+[\s_.-]*\d+(?!\d).*$", re.IGNORECASE)


def identify(path: str | Path, notebook: NotebookNode | None = None, root: str | Path | None = None) -> tuple[str, str]:
    """Who submitted ``path``, and how that was decided.

    In order: the notebook's metadata (``course.student``), the first folder
    under ``root`` (``DIR/alice/lab.ipynb``), the file name without its lab part
    (``alice_lab_11_3_build_context.ipynb``), else the folder holding the file.
    """
    path = Path(path)
    course = (notebook or {}).get("metadata", {}).get("course", {})
    named = course.get("student") if isinstance(course, dict) else None
    if isinstance(named, str) and named.strip():
        return named.strip(), "notebook metadata (course.student)"
    if root is not None:
        relative = path.resolve().relative_to(Path(root).resolve())
        if len(relative.parts) > 1:
            return relative.parts[0], "folder"
    stem = _LAB_SUFFIX.sub("", path.stem)
    if stem and labs.lab_of_notebook(path.stem) is None:
        return stem, "file name"
    return path.resolve().parent.name or path.stem, "containing folder"


def student_id(path: str | Path, root: str | Path | None = None) -> str:
    """The student's id alone (see ``identify``)."""
    return identify(path, None, root)[0]
