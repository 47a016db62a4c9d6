"""The learner's account in Gradescope mode: the kernel runs as an unused uid, and none of its processes outlives grading.

Gradescope's container runs the autograder as root and has no bubblewrap. So
the kernel is started as an account of its own (``learner_kernel.py``): an
unused uid picked per run, outside the range the bubblewrap path draws from.
Everything the grader must keep (course_lib with the lab's reference, the
bundle's secret, the results) is root-only, which ``exposed`` checks *as that
account* before anything of the submission runs. Before results are written,
``kill_all`` kills every process of the account: ``kill(-1, SIGKILL)`` sent by
a process running as the account reaches all of them at once (the kernel
refuses to fork while it runs), so a process that left the kernel's session
cannot survive to rewrite a grade.
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import GradingError

UIDS = range(64100, 65400)
"""Where the account's uid is drawn from: below ``nobody`` (65534), above the bubblewrap path's 61000–64000."""
LAUNCHER = Path(__file__).with_name("learner_kernel.py")
WORLD_WRITABLE = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
"""Where else the account can leave files (its home is removed with the run's folder)."""
KILL_BOUND = 10.0
"""Seconds ``kill_all`` keeps killing before it gives up."""


class LearnerSetupIncomplete(GradingError):
    """The learner's account could read what the grader keeps, or cannot run the kernel's Python (setup.sh did not run)."""

    def __init__(self, why: str) -> None:
        super().__init__(f"the autograder is not set up: {why}; run setup.sh as root (docs/grading.md)")


class LearnerProcessesSurvived(GradingError):
    """Processes of the learner's account were still alive after ``KILL_BOUND`` seconds of killing."""


@dataclass(frozen=True)
class LearnerAccount:
    uid: int
    gid: int


def unused_account() -> LearnerAccount:
    """A uid no user, group or process has: nothing else on the machine can be signalled or read through it."""
    draw = random.SystemRandom()
    for _ in range(200):
        uid = draw.choice(UIDS)
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if not processes_of(uid):
                return LearnerAccount(uid, uid)
    raise GradingError(f"no unused uid in {UIDS.start}–{UIDS.stop - 1} for the learner's kernel")


def kernel_wrap(account: LearnerAccount, homes: Path) -> functools.partial[list[str]]:
    """``Sandbox(wrap=…)``: the kernel command, started through ``learner_kernel.py`` as ``account``."""
    return functools.partial(_wrapped, account, str(homes))


def _wrapped(account: LearnerAccount, homes: str, command: list[str]) -> list[str]:
    return [
        sys.executable,
        "-I",
        "-S",
        str(LAUNCHER),
        "--uid",
        str(account.uid),
        "--gid",
        str(account.gid),
        "--homes",
        homes,
        "--",
        *command,
    ]


def _as_account(
    account: LearnerAccount,
    command: list[str],
    *,
    cwd: str = "/",
    env: dict[str, str] | None = None,
    timeout: float = 30,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        user=account.uid,
        group=account.gid,
        extra_groups=[],
        cwd=cwd,
        env=env or {},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


_PROBE = """\
import importlib.util, json, os, sys
found = []
try:
    spec = importlib.util.find_spec('course_lib')
    with open(spec.origin, 'rb'):
        found.append('course_lib imports from ' + os.path.dirname(spec.origin))
except Exception:
    pass
for path in sys.argv[1:]:
    try:
        with open(path, 'rb'):
            found.append(path + ' is readable')
    except OSError:
        pass
print(json.dumps(found))
"""


def exposed(account: LearnerAccount, python: str, secrets: list[Path]) -> list[str]:
    """What the account can import or read of the grader's: course_lib on its own path, or any of ``secrets``.

    Run as the account, with the kernel's interpreter and no package view: it is what a
    submission that drops the view from ``sys.path`` would find.
    """
    home = "/"
    try:
        finished = _as_account(
            account,
            [python, "-c", _PROBE, *map(str, secrets)],
            cwd=home,
            env={"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"},
        )
    except OSError as exc:  # e.g. the interpreter lives in a folder only root can enter
        raise LearnerSetupIncomplete(f"the learner's account cannot run {python} ({exc.strerror})") from None
    if finished.returncode != 0:
        raise LearnerSetupIncomplete(f"the learner's account cannot run {python} ({finished.stderr.strip()[-300:]})")
    return list(json.loads(finished.stdout.strip().splitlines()[-1]))


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


def kill_all(account: LearnerAccount, bound: float = KILL_BOUND) -> None:
    """Kill every process of ``account``; ``LearnerProcessesSurvived`` if some still live after ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while True:
        _as_account(account, ["/bin/sh", "-c", "kill -9 -1 2>/dev/null"])  # kill(-1): all of the account's but itself
        alive = processes_of(account.uid)
        if not alive:
            return
        if time.monotonic() > deadline:
            raise LearnerProcessesSurvived(
                f"{len(alive)} process(es) of the learner's kernel survived {bound:g} s of SIGKILL"
            )
        time.sleep(0.05)


def remove_leftovers(account: LearnerAccount) -> None:
    """Remove what the account left in the machine's shared temporary folders (after ``kill_all``)."""
    for folder in WORLD_WRITABLE:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != account.uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                continue
