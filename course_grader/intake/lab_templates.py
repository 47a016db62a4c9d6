"""The course's own copy of each lab (its template): where it is looked for, and a missing one found before grading.

A lab's setup cells come from this copy, never from the submission
(``cells.setup_sources``), so without it no submission of the lab can be graded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from course_lib.teaching import lab_registry
from course_lib.teaching.lab_registry import Lab

from ..checkout import CHECKOUT
from ..errors import TemplateNotFound
from .lab_names import lab_in_metadata, lab_in_name

LABS_ENVIRONMENT = "COURSE_GRADE_LABS"


def template_dirs(labs_dir: str | Path | None = None) -> list[Path]:
    """Where the course's lab notebooks may be: the option, ``$COURSE_GRADE_LABS``, ``./labs``, the checkout."""
    checkout = CHECKOUT
    folders = sorted({lab.folder for lab in lab_registry.LABS.values()})
    candidates = [
        labs_dir,
        os.environ.get(LABS_ENVIRONMENT),
        *(Path.cwd() / f for f in folders),
        *(checkout / f for f in folders),
    ]
    found: list[Path] = []
    for candidate in candidates:
        if not candidate:
            continue
        for folder in (Path(candidate), Path(candidate) / "solutions"):
            if folder.is_dir() and folder.resolve() not in found:
                found.append(folder.resolve())
    return found


def find_template(lab: Lab, labs_dir: str | Path | None = None) -> NotebookNode:
    """The course's notebook for ``lab``: the learner version when present, else the solution."""
    searched = template_dirs(labs_dir)
    for folder in searched:
        for path in sorted(folder.glob("*.ipynb")):
            try:
                notebook = nbformat.read(os.fspath(path), as_version=4)  # the course's own copy: links allowed
            except Exception:  # noqa: BLE001 - not a notebook: not the lab's template either
                continue
            if lab_in_metadata(notebook) == lab.id or (
                lab_in_metadata(notebook) is None and lab_in_name(path) == lab.id
            ):
                return notebook
    raise TemplateNotFound(
        f"no notebook for Lab {lab.id} in {', '.join(map(str, searched)) or 'any labs folder'}; "
        f"pass --labs DIR or set {LABS_ENVIRONMENT}"
    )


def missing_templates(labs: Iterable[Lab], labs_dir: str | Path | None = None) -> str | None:
    """Why the course's notebooks for ``labs`` cannot be found, or ``None``: a set-up error, found before grading.

    Without them no submission can be graded (each lab's setup cells come from
    them), so every row would be an ``error`` 0: a plain ``pip install`` ships no
    ``labs/``, and a TA may run the command outside the checkout.
    """
    missing = []
    for lab in dict.fromkeys(labs):
        try:
            find_template(lab, labs_dir)
        except TemplateNotFound:
            missing.append(lab.label)
    if not missing:
        return None
    searched = ", ".join(map(str, template_dirs(labs_dir)))
    where = (
        f"in {searched}"
        if searched
        else "anywhere: no labs folder exists (--labs, $COURSE_GRADE_LABS, ./labs, the checkout's labs/; a plain pip install ships none)"
    )
    return (
        f"the course's notebook for {', '.join(missing)} is not found {where}; nothing was graded. "
        f"Pass --labs DIR (the course's labs/ folder, e.g. from a clone of the course) or set {LABS_ENVIRONMENT}=DIR"
    )
