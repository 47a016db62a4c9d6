"""Who submitted a file, and how results name it: decided by where the instructor put it, never by the notebook.

A submitted file is hostile, its metadata included: ``metadata.course.student``
is the learner's to edit, so it never decides whose the file is
(``claimed_student`` notes when it names someone else).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from nbformat import NotebookNode

from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import message

from ..notes import NOTE

_LAB_SUFFIX = re.compile(r"[\s_.-]*lab[\s_-]*\d+[\s_.-]*\d+(?!\d).*$", re.IGNORECASE)
_NOTEBOOK_SUFFIX = re.compile(
    "[\\s_.-]*(?:"
    + "|".join(
        [
            *(re.escape(entry.notebook) for entry in lab_registry.LABS.values()),
            *(
                rf"(?:lab[\s_-]*)?{entry.id}(?![a-z])"
                for entry in lab_registry.LABS.values()
                if not entry.id[0].isdigit()
            ),
        ]
    )
    + ").*$",
    re.IGNORECASE,
)
"""A lab's notebook name or a named lab (``…_lab_capstone``, ``…_capstone_v2``): not part of the student's name."""


def identify(path: str | Path, root: str | Path | None = None) -> tuple[str, str]:
    """Who submitted ``path``, and how that was decided: by where the instructor put it, never by the notebook.

    In order: the first folder under ``root`` (``DIR/alice/lab.ipynb``), the
    file name without its lab part (``alice_lab_11_3_build_context.ipynb``,
    ``carol_02_lifecycle_capstone.ipynb``), else the folder holding the file.
    The notebook's ``metadata.course.student`` is the learner's to edit, so it
    never decides; ``claimed_student`` notes when it names someone else.
    Paths are compared as written, never resolved through links.
    """
    path = Path(path)
    if root is not None:
        try:
            relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
        except ValueError:
            relative = Path(path.name)
        if len(relative.parts) > 1:
            return relative.parts[0], "folder"
    stem = _NOTEBOOK_SUFFIX.sub("", _LAB_SUFFIX.sub("", path.stem))
    if stem and lab_registry.lab_of_notebook(path.stem) is None:
        return stem, "file name"
    return Path(os.path.abspath(path)).parent.name or path.stem, "containing folder"


def claimed_student(notebook: NotebookNode, student: str) -> str | None:
    """A note when ``metadata.course.student`` names someone other than ``student`` (it is not followed)."""
    course = notebook.get("metadata", {}).get("course", {})
    named = course.get("student") if isinstance(course, dict) else None
    if not isinstance(named, str) or not named.strip() or named.strip() == student:
        return None
    return CLAIMED(named=repr(named.strip()[:80]), student=student)


CLAIMED = NOTE(
    message(
        "the notebook's metadata (course.student) names {named}, but the file is graded as {student}'s: its folder "
        "or file name decides who it belongs to, never the notebook"
    )
)


def submission_name(path: str | Path, root: str | Path | None = None) -> str:
    """How results name the file: its path under ``root`` (``alice/lab.ipynb``), else its name."""
    if root is not None:
        try:
            return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            pass
    return Path(path).name


def student_id(path: str | Path, root: str | Path | None = None) -> str:
    """The student's id alone (see ``identify``)."""
    return identify(path, root)[0]
