"""Finding the submissions in a folder: every entry that is, or poses as, a notebook, none of them opened.

What the folder holds is hostile, so the listing follows nothing: a link (to a
file or a folder, inside the tree or not), a FIFO, a device, a socket or a
folder named ``.ipynb`` is found and reported as what it is instead of a
regular file, so the batch gives it an ``error`` row without opening or
entering it (docs/grading.md, *Grading a folder*). A folder that cannot be
listed is reported too: the batch gives it a row of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .regular_file import not_regular

CHECKPOINTS = ".ipynb_checkpoints"


@dataclass(frozen=True)
class Found:
    """An entry of the submissions folder that is, or poses as, a notebook."""

    path: Path
    refused: str | None = None
    """What it is instead of a regular file (``notebook.not_regular``): it gets an ``error`` row, unopened."""
    modified: int = 0
    """Its modification time (``lstat``, ns): the latest of a student's duplicates counts."""


def discover(folder: str | Path, unreadable: list[Path] | None = None) -> list[Found]:
    """Every ``.ipynb`` under ``folder``, plus every link to a folder, in path order; nothing is followed.

    ``os.scandir`` with ``follow_symlinks=False`` throughout: a link (to a
    file or a folder, inside the tree or not) is reported, never entered or
    opened; a folder named ``.ipynb`` is reported, not entered; Jupyter's
    checkpoints are skipped. Folders that cannot be listed are added to
    ``unreadable`` (when given), so the batch can report them.
    """
    found: list[Found] = []
    pending = [Path(folder)]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError as error:
            if unreadable is not None:
                unreadable.append(Path(error.filename or current))
            continue
        for entry in entries:
            path = Path(entry.path)
            notebook = entry.name.endswith(".ipynb")
            try:
                status = entry.stat(follow_symlinks=False)
                if entry.is_symlink():
                    if notebook or os.path.isdir(path):  # a stat through the link, never an open
                        found.append(Found(path, not_regular(path, status), status.st_mtime_ns))
                elif entry.is_dir(follow_symlinks=False):
                    if notebook:
                        found.append(Found(path, "a folder", status.st_mtime_ns))
                    elif entry.name != CHECKPOINTS:
                        pending.append(path)
                elif notebook:
                    found.append(Found(path, not_regular(path, status), status.st_mtime_ns))
            except OSError as error:  # gone or unreadable between the listing and the lstat
                if notebook:
                    found.append(Found(path, f"unreadable ({error.strerror or error})"))
    return sorted(found, key=lambda item: item.path)


def find_submissions(folder: str | Path, unreadable: list[Path] | None = None) -> list[Path]:
    """The paths ``discover`` finds (regular or not: reading them is what refuses the others)."""
    return [item.path for item in discover(folder, unreadable)]
