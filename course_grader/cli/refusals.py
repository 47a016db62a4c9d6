"""Where the output goes and what is read, refused before any work: a batch never grades for an hour, then fails.

Each check ends the command as a usage error (exit status 2) naming the
option and the path.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..intake.regular_file import MAX_NOTEBOOK_BYTES, MAX_NOTEBOOK_MB, not_regular, refusal


def writable(parser: argparse.ArgumentParser, path: Path, option: str) -> None:
    """Fail before grading, not after, when the output cannot be written."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        parser.error(f"{option} {path} is a folder; give a file name")
    if not folder.is_dir():
        parser.error(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        parser.error(f"{option} {path}: the folder {folder} is not writable")


def writable_folder(parser: argparse.ArgumentParser, folder: Path | None, option: str) -> None:
    """Fail before grading, not after, when files could not be written into ``folder`` (made if missing)."""
    if folder is None:
        return
    existing = folder if folder.exists() else folder.parent if str(folder.parent) else Path(".")
    if folder.exists() and not folder.is_dir():
        parser.error(f"{option} {folder} is not a folder")
    if not existing.is_dir():
        parser.error(f"{option} {folder}: the folder {existing} does not exist")
    if not os.access(existing, os.W_OK):
        parser.error(f"{option} {folder}: the folder {existing} is not writable")


def readable_file(parser: argparse.ArgumentParser, path: Path) -> None:
    """Only a regular file of a notebook's size is graded: a link (to a solution, to /etc/shadow) is never followed."""
    status = os.lstat(path)
    what = not_regular(path, status)
    if what:
        parser.error(f"{refusal(path, what)}; give the file itself")
    if status.st_size > MAX_NOTEBOOK_BYTES:
        parser.error(
            f"{path}: a file of {status.st_size / 2**20:.1f} MB exceeds the {MAX_NOTEBOOK_MB} MB limit for a notebook"
        )
