"""A uid no other sandbox holds: drawn, locked machine-wide, checked free, released (issue 43).

A learner's kernel runs as a uid of its own, so that the per-uid process limit
and signals reach only its own sandbox. Drawn at random and never checked, two
concurrent sandboxes could draw the same one (about 1 in 3,000 per overlapping
pair): one submission holding 50 processes then exhausted the shared limit, and
its honest neighbour's kernel could not start ("ZMQError: Operation not
supported", 0/7). So each uid is held while its sandbox lives: an exclusive
``flock`` on a file named after it, in one root-only folder for the whole
machine (every grader, every batch), taken without waiting; a uid held, known
to the system (``/etc/passwd``) or running any process is passed over. The
lock goes with the file handle, so a grader that is killed releases its uids
with its last breath; its sandboxes' processes, until they are gone too, keep
their uids out of reach by the process check. The bubblewrap path and the
Gradescope learner account (``learner_account.py``) allocate through here, from
ranges of their own.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import random
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..errors import GradingError, SandboxError

BUBBLEWRAP = range(61000, 64000)
"""The bubblewrap path's uids (as root); the Gradescope account draws from ``learner_account.UIDS``."""
PLACES = (Path("/run/lock"), Path("/run"), Path("/var/lock"), Path("/var/tmp"))
"""Where the lock folder is made: the first that exists, the same for every grader on the machine."""
FOLDER = "course-grade-uids"


class NoFreeUid(SandboxError):
    """Every uid of the range was held, known or running a process: none could be given to a sandbox (the
    sandbox's failure, not the submission's: a batch grades the row again)."""


@dataclass
class HeldUid:
    """A uid this process holds until ``release``: its lock file stays locked while the handle is open."""

    uid: int
    handle: IO[bytes] | None = field(default=None, repr=False)

    def release(self) -> None:
        """Give the uid back (its processes must be gone first: the sandbox's clean-up kills them)."""
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def lock_folder() -> Path:
    """The machine's folder of uid locks: root's, mode 0700, never a link (refused otherwise)."""
    place = next((place for place in PLACES if place.is_dir()), Path("/tmp"))
    folder = place / FOLDER
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    status = os.lstat(folder)
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o077:
        raise GradingError(f"{folder} is not a folder of the grader's own (mode 0700): remove it and grade again")
    return folder


def in_use(uid: int) -> bool:
    """Whether the system knows ``uid`` (a user) or any process runs as it."""
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return bool(processes_of(uid))
    return True


def allocate(uids: range, attempts: int = 200) -> HeldUid:
    """A uid of ``uids`` that no other sandbox holds, no user has and no process runs as, held until released."""
    folder = lock_folder()
    draw = random.SystemRandom()
    for _ in range(attempts):
        uid = draw.choice(uids)
        handle = open(folder / str(uid), "ab")  # noqa: SIM115 - held open for as long as the sandbox lives
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        if in_use(uid):
            handle.close()
            continue
        return HeldUid(uid, handle)
    raise NoFreeUid(f"no free uid in {uids.start}–{uids.stop - 1} for a sandbox after {attempts} tries")


def processes_of(uid: int) -> list[int]:
    """Live processes (not zombies) with ``uid`` as any of their user ids."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue  # gone meanwhile
        fields = dict(line.split(":", 1) for line in lines if ":" in line)
        ids = fields.get("Uid", "").split()
        if str(uid) in ids and not fields.get("State", "").strip().startswith(("Z", "X")):
            found.append(int(status.parent.name))
    return found
