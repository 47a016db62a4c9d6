"""An exclusive lock on an open file, for the single-writer rule (R8, lifecycle benefit 3).

The lock belongs to the file, not to its name: a symlink or a second hard link to a
held session meets the same lock. ``fcntl.flock`` (POSIX) and ``msvcrt.locking``
(Windows) both lock per open handle, so a second store in the same process is refused
too. Each module is imported only where it exists, so importing the course works on
every platform.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import BinaryIO

_WINDOWS_LOCK_OFFSET = 2**31 - 2
"""Windows locks are mandatory for the bytes they cover, so the lock covers one byte far
past any session's data: readers never meet it; writers of the same file do."""


def try_lock(handle: BinaryIO) -> bool:
    """Lock ``handle``'s file exclusively without waiting; ``False`` if another handle holds it."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only (mypy reads sys.platform)
        import msvcrt

        return _on_lock_byte(handle, lambda fd: msvcrt.locking(fd, msvcrt.LK_NBLCK, 1))
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock(handle: BinaryIO) -> None:
    """Release the lock ``try_lock`` took; closing the handle releases it too."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only (mypy reads sys.platform)
        import msvcrt

        _on_lock_byte(handle, lambda fd: msvcrt.locking(fd, msvcrt.LK_UNLCK, 1))
        return
    import fcntl

    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _on_lock_byte(handle: BinaryIO, action: Callable[[int], object]) -> bool:  # pragma: no cover - Windows only
    """Run ``action(fd)`` with the file positioned on the lock byte, then put the position back."""
    fd = handle.fileno()
    position = os.lseek(fd, 0, os.SEEK_CUR)
    os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
    try:
        action(fd)
    except OSError:
        return False
    finally:
        os.lseek(fd, position, os.SEEK_SET)
    return True


__all__ = ["try_lock", "unlock"]
