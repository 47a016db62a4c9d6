"""Which uploaded notebook a Gradescope autograder grades: the one for its lab, or a refusal that says what to upload.

A learner may upload several files. The notebook graded is the one whose file
name and metadata name this lab and nothing else; a lone notebook that names
no lab is graded as this lab. Anything else (none, or several, for the lab) is
refused with the list of what was uploaded, never settled by picking the
alphabetically first. File names, sizes and kinds are the learner's: only
regular files are opened (a symlink to the bundle's secret or a FIFO never
is), only up to ``MAX_BYTES``, and names are shown escaped and shortened.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from course_lib.teaching import lab_registry
from course_lib.teaching.lab_registry import Lab

from ..errors import NotALabNotebook
from .notebook import read_notebook

MAX_BYTES = 32 * 2**20
"""Larger uploads are not opened to look for their lab (Gradescope's own upload limit is about this size)."""
_FILE_LAB = re.compile(r"lab[_-]?(\d+)[_.-](\d+)(?!\d)", re.IGNORECASE)
_SHOWN = 80


@dataclass(frozen=True)
class Upload:
    path: Path
    labs: frozenset[Lab]
    """The labs its file name and its metadata (``course.lab``) name."""
    problem: str = ""
    """Why it cannot be graded at all (not a regular file, too large, not a notebook)."""

    @property
    def name(self) -> str:
        return shown(self.path.name)

    def describe(self) -> str:
        if self.problem:
            return f"{self.name} ({self.problem})"
        return f"{self.name} ({', '.join(lab.label for lab in sorted(self.labs, key=lambda lab: lab.id)) if self.labs else 'names no lab'})"


def shown(name: str) -> str:
    """A learner's file name as it may appear in feedback: printable, at most ``_SHOWN`` characters."""
    text = "".join(c if c.isprintable() else "?" for c in name)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def file_labs(name: str) -> set[str]:
    """Labs a file name names: ``lab_11_3`` anywhere in it, or a lab's own notebook name (``02_lifecycle_capstone``)."""
    found = {f"{m.group(1)}.{m.group(2)}" for m in _FILE_LAB.finditer(name)} & set(lab_registry.LABS)
    return found | {lab.id for lab in lab_registry.LABS.values() if lab.notebook in name}


def uploaded(folder: Path) -> list[Upload]:
    """Every ``.ipynb`` entry under ``folder`` (checkpoints excluded), looked at without following links."""
    found: list[Upload] = []
    for current, folders, files in os.walk(folder):  # os.walk never descends into a linked folder
        folders[:] = sorted(name for name in folders if name != ".ipynb_checkpoints")
        names = [*files, *(name for name in folders if name.endswith(".ipynb"))]
        found.extend(_look(Path(current) / name) for name in sorted(names) if name.endswith(".ipynb"))
    return found


def _look(path: Path) -> Upload:
    named = {lab_registry.LABS[lab] for lab in file_labs(path.name)}  # read once: the registry's entries from here
    try:
        info = os.lstat(path)
    except OSError as exc:
        return Upload(path, frozenset(named), f"cannot be read: {exc.strerror}")
    if not stat.S_ISREG(info.st_mode):
        return Upload(path, frozenset(named), "not a regular file; links, folders and FIFOs are never opened")
    if info.st_size > MAX_BYTES:
        return Upload(path, frozenset(named), f"{info.st_size / 2**20:.0f} MB: too large to be a lab notebook")
    try:
        course = read_notebook(path).get("metadata", {}).get("course", {})
    except NotALabNotebook:
        return Upload(path, frozenset(named), "not a readable Jupyter notebook")
    if isinstance(course, dict) and course.get("lab") is not None:
        try:
            named.add(lab_registry.lab(course["lab"]))
        except ValueError:
            pass
    return Upload(path, frozenset(named))


def choose(uploads: list[Upload], lab: Lab) -> Path | str:
    """The notebook to grade for ``lab``, or why none is graded (a message for the learner)."""
    readable = [upload for upload in uploads if not upload.problem]
    matching = [upload for upload in readable if upload.labs == {lab}]
    if len(matching) == 1:
        return matching[0].path
    if not matching and len(uploads) == len(readable) == 1:
        return readable[0].path  # a lone notebook: graded as this lab, or refused if it names another
    wanted = f"{lab.label} notebook"
    if not uploads:
        return f"no {wanted} in the submission (no .ipynb file was uploaded)"
    listing = "; ".join(upload.describe() for upload in uploads)
    count = f"{len(uploads)} notebooks were" if len(uploads) > 1 else "1 notebook was"
    how_many = "none is" if not matching else f"{len(matching)} are"
    return (
        f"not graded: {count} uploaded and {how_many} the {wanted}: {listing}. "
        f"Upload only your {wanted} ({lab.notebook}.ipynb), with its metadata as the course gave it."
    )
