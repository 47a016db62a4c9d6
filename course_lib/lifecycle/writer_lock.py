"""One writer per session file (benefit 3): a second writer is refused, never interleaved.

Appending is safe only if one process owns the file: two writers appending at
once can interleave half-written lines and parent ids that race each other. The
lock is ``fcntl.flock`` on a sidecar ``<session>.lock`` file, taken without
waiting, so the second writer gets a clear ``SessionLockedError`` at once.
The store is opened (and the log read) only after the lock is held.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..store import JsonlSessionStore
from .errors import SessionLockedError


def lock_path(session_path: str | os.PathLike[str]) -> Path:
    path = Path(session_path)
    return path.with_name(path.name + ".lock")


@contextmanager
def open_session_writer(session_path: str | os.PathLike[str], **options: Any) -> Iterator[JsonlSessionStore]:
    """``with open_session_writer(path) as store:`` — the only writer of ``path`` until the block ends.

    The sidecar lock file is left in place afterwards: removing it could let two
    writers lock two different files of the same name.
    """
    path = Path(session_path)
    descriptor = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SessionLockedError(
                f"session {path.name} already has a writer; a second writer is refused so lines are "
                "never interleaved (read it with JsonlSessionStore.open(...).read(), or wait)",
                session=path.name,
            ) from None
        try:
            with JsonlSessionStore.open(path, **options) as store:
                yield store
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)
