"""A submitted notebook as the grader reads it: the file as a notebook (or what it is instead), its lab, its exercise cells.

A submitted file is hostile, its name and metadata included: it is read only
as a regular file of bounded size (``regular_file``), a file that is no
notebook is named for what it is (an empty file, an HTML page, a ZIP), and its
lab is the one its file name names (``lab_names``); whose it is comes from
where the instructor put it (``identity``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.warnings import MissingIDFieldWarning

from course_lib.teaching import lab_registry
from course_lib.teaching.lab_registry import Lab

from ..errors import NotALabNotebook
from .cells import exercise_sources
from .lab_names import lab_conflict, lab_in_metadata, lab_in_name, lab_of
from .regular_file import read_regular_file

LAB_FUNCTIONS: dict[str, tuple[str, ...]] = {lab.id: lab.functions for lab in lab_registry.LABS.values()}
"""The function(s) each lab asks for (from the registry, ``course_lib.teaching.lab_registry``)."""


@dataclass(frozen=True)
class Submission:
    path: Path
    lab: Lab
    exercise_sources: tuple[str, ...]
    notebook: NotebookNode
    notes: tuple[str, ...] = ()
    """What the file claims that the grader did not follow (a lab its metadata names but its file name does not)."""


def read_notebook(path: str | Path) -> NotebookNode:
    """The submitted notebook, or ``NotALabNotebook`` (``NotARegularFile``, ``SubmissionTooLarge``) saying why not."""
    data = read_regular_file(path)
    try:
        with warnings.catch_warnings():  # an older notebook's cells have no ids: the grader never uses them, nor should a batch's output say so per file
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            return nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception as exc:  # noqa: BLE001 - invalid UTF-8 or JSON, wrong schema, nesting too deep
        what = what_it_is(data)
        detail = (
            f"{what}, not a Jupyter notebook"
            if what
            else f"not a readable Jupyter notebook ({type(exc).__name__}: {str(exc)[:300]})"
        )
        raise NotALabNotebook(
            f"{Path(path).name} is {detail}; nothing in it was graded: "
            "ask for the notebook itself (File → Download in Jupyter, .ipynb)"
        ) from None


_KINDS: tuple[tuple[tuple[bytes, ...], str], ...] = (
    ((b"<!doctype html", b"<html", b"<head", b"<body"), "an HTML page (a web page saved under the notebook's name)"),
    ((b"pk\x03\x04",), "a ZIP archive"),
    ((b"%pdf",), "a PDF document"),
    ((b"{\\rtf",), "an RTF document"),
)


def what_it_is(data: bytes) -> str | None:
    """What a file that is not a notebook is, from its first bytes: an empty file, an HTML page, a ZIP, a PDF.

    The 0-byte upload and the browser's *Save page as* are the common ways a
    zero arrives with no notebook in it (docs/grading.md, statuses); the note
    says which, so the learner knows what to hand in instead.
    """
    if not data:
        return "an empty file (0 bytes)"
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if not head:
        return f"a file of {len(data)} blank bytes"
    for starts, what in _KINDS:
        if head.startswith(starts) or (what.startswith("an HTML") and b"<html" in head):
            return what
    return None


def read_submission(path: str | Path, *, expected_lab: Lab | None = None) -> Submission:
    """The submission's lab and exercise cells (``lab_of``).

    ``expected_lab`` (an autograder's lab, or ``--lab``) is graded when the
    file name or the metadata names it, or when neither names a lab; a
    notebook that names only other labs is refused.
    """
    notebook = read_notebook(path)
    named = {lab for lab in (lab_in_name(path), lab_in_metadata(notebook)) if lab}
    if expected_lab is not None and (expected_lab.id in named or not named):
        lab = expected_lab
    else:
        lab = lab_registry.LABS[
            lab_of(notebook, path)
        ]  # the notebook's lab, read once: the registry's entry from here on
    if expected_lab is not None and lab != expected_lab:
        raise NotALabNotebook(f"{Path(path).name} is Lab {lab.id}, but this autograder grades Lab {expected_lab.id}")
    note = lab_conflict(notebook, path, lab.id)
    return Submission(Path(path), lab, exercise_sources(notebook), notebook, (note,) if note else ())


def lab_named(path: str | Path) -> str | None:
    """The lab a submission will be graded as, if its file name or metadata says (``None`` for a file that is no notebook)."""
    named = lab_in_name(path)
    if named is not None:
        return named
    try:
        return lab_in_metadata(read_notebook(path))
    except NotALabNotebook:
        return None
