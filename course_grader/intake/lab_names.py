"""Which lab a submitted file is: the lab its file name names, else the one its metadata names.

The file name is what the instructor's folder or LMS download shows; the
metadata is whatever the learner's copy says. Where they disagree on the lab,
the file name decides and a note says so (``lab_conflict``).
"""

from __future__ import annotations

import re
from pathlib import Path

from nbformat import NotebookNode

from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import message
from course_lib.teaching.lab_registry import Lab

from ..errors import NotALabNotebook
from ..notes import NOTE

_FILE_LAB = re.compile(r"lab[_-]?(\d+)[_.-](\d+)(?!\d)", re.IGNORECASE)


def lab_in_name(path: str | Path) -> str | None:
    """The lab a file name names: ``lab_11_3_….ipynb``, ``Lab-11.5.ipynb``, a lab notebook's own name, ``…capstone…``."""
    name = Path(path).name
    match = _FILE_LAB.search(name)
    if match and f"{match.group(1)}.{match.group(2)}" in lab_registry.LABS:
        return f"{match.group(1)}.{match.group(2)}"
    for entry in lab_registry.LABS.values():
        if entry.notebook in name or (
            not entry.id[0].isdigit() and re.search(rf"(?<![a-z]){entry.id}(?![a-z])", name, re.I)
        ):
            return entry.id
    return None


def in_sentence(lab: str) -> str:
    """How a sentence names a lab after its start: ``Lab 11.3``, ``the capstone`` (``Lab.label`` begins one)."""
    label = lab_registry.lab(lab).label
    return label[:1].lower() + label[1:] if label.startswith("The ") else label


def the_assignment(lab: str) -> str:
    """How a sentence names a lab's LMS assignment: ``the Lab 11.3 assignment``, ``the capstone assignment``."""
    return THE_ASSIGNMENT(lab=in_sentence(lab).removeprefix("the "))


THE_CAPSTONE = NOTE(message("the capstone"))
THE_CAPSTONE_ASSIGNMENT = NOTE(message("the capstone assignment"))
THE_ASSIGNMENT = NOTE(message("the {lab} assignment"))


def named_lab(path: str | Path) -> Lab | None:
    """The registry's entry for the lab a file name names (``lab_in_name``): what the grader passes on, not the id."""
    named = lab_in_name(path)
    return lab_registry.LABS[named] if named is not None else None


def begins_with_lab(name: str) -> bool:
    """A file name that starts with its lab (``lab_11_3_build_context.ipynb``, ``Lab-11.3.ipynb``, ``02_lifecycle_capstone…``).

    Such a file is the lab's notebook under its own name, handed in as it is: an
    LMS download name starts with the student (Canvas's ``login_userid_…``), so
    none of its patterns is read from it (``lab_11_3`` is not login ``lab``, user ``11``).
    """
    match = _FILE_LAB.match(name)
    if match and f"{match.group(1)}.{match.group(2)}" in lab_registry.LABS:
        return True
    return any(name.startswith(entry.notebook) for entry in lab_registry.LABS.values())


def lab_in_metadata(notebook: NotebookNode) -> str | None:
    """The lab ``metadata.course.lab`` names ("11.3", "Lab 11.3" and 3 name the same lab), if any."""
    course = notebook.get("metadata", {}).get("course", {})
    if isinstance(course, dict) and course.get("lab") is not None:
        try:
            return lab_registry.lab(course["lab"]).id
        except ValueError:
            return None
    return None


def lab_of(notebook: NotebookNode, path: str | Path | None = None) -> str:
    """The lab the file name names, else the one ``metadata.course.lab`` names.

    The file name comes first: it is what the instructor's folder or LMS
    download shows, while the metadata is whatever the learner's copy says
    (``lab_conflict`` notes a disagreement).
    """
    lab = (lab_in_name(path) if path is not None else None) or lab_in_metadata(notebook)
    if lab is None:
        where = f"{Path(path).name}: " if path is not None else ""
        raise NotALabNotebook(f"{where}no lab in its file name or the notebook's metadata (course.lab)")
    return lab


def lab_conflict(notebook: NotebookNode, path: str | Path, graded: str) -> str | None:
    """A note when the file name and ``metadata.course.lab`` name different labs, saying which one was graded."""
    named, claimed = lab_in_name(path), lab_in_metadata(notebook)
    if named is None or claimed is None or named == claimed:
        return None
    decided = NAME_DECIDES() if graded == named else AUTOGRADER_DECIDES()
    return LAB_CONFLICT(
        named=in_sentence(named), claimed=in_sentence(claimed), graded=in_sentence(graded), decided=decided
    )


LAB_CONFLICT = NOTE(
    message(
        "the file name says {named} but the notebook's metadata (course.lab) says {claimed}: graded as {graded} "
        "({decided})"
    )
)
NAME_DECIDES = NOTE(message("the file name decides"))
AUTOGRADER_DECIDES = NOTE(message("the lab this autograder grades"))
