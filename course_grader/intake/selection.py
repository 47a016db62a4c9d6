"""Which part of a folder a partial regrade grades: ``--only student:ID``, ``--only lab:LAB``, ``--only FILE``.

Why: a term is graded once, whole; then one student's files are fixed (a
roster alias added, a file handed in late by arrangement), one lab's grading
changes, or a few files need another look. Grading the whole folder again for
that costs hours and redraws nothing useful. A selection grades those files
alone, from the same folder, so their rows name the files as the term's CSV
does (the path under the folder) and ``course-grade merge term.csv
regrade.csv`` puts them in place (``results.term_merge``; docs/grading.md,
*Regrading part of a term*).

Who a file belongs to and which lab it is are decided as grading decides them
(``roster.attribute``, ``notebook.lab_named``): the selection never reads a
file the batch would not read (a link or a FIFO has no lab, so only a file
selection takes it). Several selections of one kind add up; kinds narrow each
other (``--only student:bchen --only lab:11.1`` is Bo Chen's Lab 11.1).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from course_lib.teaching import lab_registry

from ..errors import GradingError
from .identity import submission_name
from .notebook import lab_named
from .roster import Names, attribute

STUDENT, LAB = "student:", "lab:"


class SelectionError(GradingError, ValueError):
    """An ``--only`` that names no lab, or nothing under the folder."""


@dataclass(frozen=True)
class Selection:
    """The students (ids, as the CSV's ``student`` column names them), labs and files (paths under the folder) taken."""

    students: tuple[str, ...] = ()
    labs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    """A path under the folder (``alice/lab_11_3.ipynb``), or a folder under it (``alice``): everything below it."""

    def takes(self, path: str | Path, root: str | Path, names: Names | None, *, readable: bool = True) -> bool:
        """Whether the entry at ``path`` is selected; ``readable`` false for one the batch refuses unopened (no lab)."""
        where = submission_name(path, root)
        if self.files and not any(where == file or where.startswith(f"{file}/") for file in self.files):
            return False
        if self.students and attribute(path, root, names)[0] not in self.students:
            return False
        if self.labs:
            lab = lab_named(path) if readable else None
            return lab in self.labs
        return True

    def described(self) -> str:
        """``student bchen, lab 11.1``: what the selection says, for the command's messages."""
        parts = [f"student {s}" for s in self.students] + [f"lab {lab}" for lab in self.labs] + list(self.files)
        return ", ".join(parts)


def selection(values: Sequence[str], folder: Path) -> Selection:
    """The ``--only`` values read: ``student:ID``, ``lab:LAB`` (``11.3``, ``capstone``), else a path under ``folder``.

    A path may be given as the CSV names it (``alice/lab_11_3.ipynb``), or as
    a path to it from here (``submissions/alice/lab_11_3.ipynb``, absolute).
    """
    students, labs, files = [], [], []
    for value in values:
        if value.startswith(STUDENT) and value[len(STUDENT) :].strip():
            students.append(value[len(STUDENT) :].strip())
        elif value.startswith(LAB):
            try:
                labs.append(lab_registry.lab(value[len(LAB) :].strip()).id)
            except ValueError as exc:
                raise SelectionError(f"--only {value}: {exc}") from None
        else:
            files.append(_under(value, folder))
    return Selection(tuple(dict.fromkeys(students)), tuple(dict.fromkeys(labs)), tuple(dict.fromkeys(files)))


def _under(value: str, folder: Path) -> str:
    """A file selection as a path under ``folder``, the way the CSV's ``file`` column writes it."""
    if os.path.lexists(value):
        inside = Path(os.path.abspath(value))
        try:
            return inside.relative_to(os.path.abspath(folder)).as_posix()
        except ValueError:
            pass
    return Path(value.replace("\\", "/")).as_posix().strip("/")


def unmatched(chosen: Selection, folder: Path, entries: Iterable[Path], names: Names | None) -> str | None:
    """Why some part of ``chosen`` takes nothing under ``folder`` (``entries``: what the batch finds), or ``None``.

    Checked before grading: a regrade of ``student:bhcen`` that grades nobody
    would write an empty CSV and merge nothing, silently.
    """
    listed = list(entries)
    where = {path: submission_name(path, folder) for path in listed}
    for file in chosen.files:
        if not any(name == file or name.startswith(f"{file}/") for name in where.values()):
            return f"--only {file}: no submission under {folder} is that file or under that folder"
    for student in chosen.students:
        if not any(attribute(path, folder, names)[0] == student for path in listed):
            return f"--only {STUDENT}{student}: no submission under {folder} belongs to {student}"
    for lab in chosen.labs:
        if not any(lab_named(path) == lab for path in listed):
            return f"--only {LAB}{lab}: no submission under {folder} is {lab_registry.lab(lab).label}"
    if not any(chosen.takes(path, folder, names) for path in listed):
        return f"--only {chosen.described()}: no submission under {folder} is all of that"
    return None
