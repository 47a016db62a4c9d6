"""Only a regular file of at most ``MAX_NOTEBOOK_MB`` is read: a submitted file is hostile, its kind and size included.

A link is never followed, a FIFO never opened (it would block), a device never
touched (it may act on open), and a file too large for a notebook is refused
before it is read; each refusal is a note that says what the file is instead
(docs/grading.md, statuses).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from course_lib.teaching.i18n import message

from ..errors import NotALabNotebook, NotARegularFile, SubmissionTooLarge
from ..notes import NOTE

MAX_NOTEBOOK_MB = 20
MAX_NOTEBOOK_BYTES = MAX_NOTEBOOK_MB * 2**20
"""The largest submitted file the grader reads; a lab notebook with outputs is well under 1 MB."""


def not_regular(path: str | Path, status: os.stat_result) -> str | None:
    """What ``path`` is instead of a regular file, from its ``lstat`` (links are described, not followed)."""
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        try:
            return LINK_TO(target=os.readlink(path))
        except OSError:
            return A_LINK
    return next((what for test, what in KINDS if test(mode)), NOT_REGULAR)


def refusal(path: str | Path, what: str) -> str:
    """The note for a file that is not graded because of what it is (``not_regular``)."""
    return REFUSED(name=Path(path).name, what=what)


REFUSED = NOTE(message("{name} is {what}: only regular files are graded, and links are never followed"))
LINK_TO = NOTE(message("a symbolic link (to {target})"))
A_LINK = NOTE(message("a symbolic link"))()
NOT_REGULAR = NOTE(message("not a regular file"))()
KINDS = (
    (stat.S_ISDIR, NOTE(message("a folder"))()),
    (stat.S_ISFIFO, NOTE(message("a FIFO (named pipe)"))()),
    (stat.S_ISSOCK, NOTE(message("a socket"))()),
    (stat.S_ISCHR, NOTE(message("a character device"))()),
    (stat.S_ISBLK, NOTE(message("a block device"))()),
)
"""What a file is instead of a regular one, as a note says it (``not_regular``)."""


def _too_large(path: str | Path, size: int, limit: int) -> SubmissionTooLarge:
    return SubmissionTooLarge(
        f"{Path(path).name}: a file of {size / 2**20:.1f} MB exceeds the "
        f"{limit / 2**20:g} MB limit for a notebook; it was not read"
    )


_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular_file(path: str | Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; never follows or opens anything else.

    ``lstat`` decides before anything is opened (a FIFO would block, a device
    may act on open); the open itself refuses a link (``O_NOFOLLOW``) and
    cannot block (``O_NONBLOCK``), and ``fstat`` checks the file opened is
    still a regular file, so a file swapped for a link in between is refused too.
    """
    try:
        status = os.lstat(path)
        what = not_regular(path, status)
        if what:
            raise NotARegularFile(refusal(path, what))
        if status.st_size > limit:
            raise _too_large(path, status.st_size, limit)
        try:
            handle = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise NotARegularFile(refusal(path, A_LINK)) from None
            raise
        with os.fdopen(handle, "rb") as file:
            opened = os.fstat(file.fileno())
            what = not_regular(path, opened) if not stat.S_ISLNK(opened.st_mode) else A_LINK
            if what:
                raise NotARegularFile(refusal(path, what))
            data = file.read(limit + 1)  # a file that grew after fstat is still not read past the limit
    except OSError as exc:
        raise NotALabNotebook(
            f"{Path(path).name} could not be read ({type(exc).__name__}: {exc.strerror or exc})"
        ) from None
    if len(data) > limit:
        raise _too_large(path, len(data), limit)
    return data
