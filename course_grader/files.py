"""Every file the grader writes (CSV, records, pages, bundles) is written whole or not at all; every text file an
instructor hands it (a roster, a times file) is read as UTF-8 or refused, naming the file; every temporary folder
it makes is named after the process that made it (``scratch_prefix``), so the next run knows a stopped one's."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from .errors import GradingError
from .safe_text import valid


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    A reader (or a crash) sees the old file or the new one, never half of one.
    A lone surrogate (a file name that is not UTF-8, as Python reads it) is
    written as U+FFFD (``safe_text.valid``): the CSV of a whole batch must not
    fail at the last step over one folder's name.
    """
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(valid(text))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_instructor_text(path: Path, name: str, error: type[GradingError], resave: str) -> str:
    """``path``'s text (a byte-order mark dropped, as spreadsheets write one); ``error`` names ``name`` otherwise.

    ``resave`` says how to get the file as UTF-8 again (an LMS's download, a spreadsheet's "CSV UTF-8").
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise error(f"{name}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise error(f"{name}: not UTF-8 text ({resave})") from None


SCRATCH = re.compile(r"course-grade-(\d+)-")
"""A temporary folder's name as ``scratch_prefix`` begins it: the pid of the process that made it."""


def scratch_prefix() -> str:
    """The prefix of a temporary folder this process makes: ``course-grade-4242-`` (issue 43).

    A run stopped by SIGKILL cleans nothing; the next run (or ``course-grade clean``) removes the folders whose
    process is gone (``batch/leftovers.py``). Short: a kernel's Unix sockets live below it (about 100 bytes).
    """
    return f"course-grade-{os.getpid()}-"


def made_by(name: str) -> int | None:
    """The pid a temporary folder's name says made it, or None for a name ``scratch_prefix`` did not make."""
    found = SCRATCH.match(name)
    return int(found.group(1)) if found else None
