"""One writer per session file (benefit 3): a second writer is refused, never interleaved.

Appending is safe only if one process owns the file: two writers appending at
once can interleave half-written lines and parent ids that race each other. The
store itself enforces it (R8): the lock is on the session file, not on its name,
so a symlink or a second hard link is refused too, and it is taken without
waiting, so the second writer gets a clear ``SessionLockedError`` at once.
``open_session_writer`` takes the lock before reading the log, so the writer
sees every entry a previous writer committed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..store import JsonlSessionStore


def lock_path(session_path: str | os.PathLike[str]) -> Path:
    """The file that carries the writer's lock: the session file itself.

    (It used to be a sidecar ``<session>.lock``, which a second name for the same
    session escaped.)
    """
    return Path(session_path)


@contextmanager
def open_session_writer(session_path: str | os.PathLike[str], **options: Any) -> Iterator[JsonlSessionStore]:
    """``with open_session_writer(path) as store:`` — the only writer of ``path`` until the block ends."""
    with JsonlSessionStore.open(session_path, lock=True, **options) as store:
        yield store
