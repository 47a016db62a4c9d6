"""The learner's account in Gradescope mode: the kernel runs as an unused uid, and none of its processes outlives grading.

Gradescope's container runs the autograder as root and has no bubblewrap. So
the kernel is started as an account of its own (``learner_kernel.py``): an
unused uid held per run (``uids.allocate``: locked, checked free, released by
``remove_leftovers``), outside the range the bubblewrap path draws from.
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
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GradingError
from .uids import HeldUid, allocate, processes_of

UIDS = range(64100, 65400)
"""Where the account's uid is drawn from: below ``nobody`` (65534), above the bubblewrap path's 61000–64000."""
LAUNCHER = Path(__file__).with_name("learner_kernel.py")
WORLD_WRITABLE = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
"""Where else the account can leave files (its home is removed with the run's folder)."""
KILL_BOUND = 10.0
"""Seconds ``kill_all`` keeps killing before it gives up."""


SETUP_FIX = "run setup.sh as root (docs/grading.md)"


class LearnerSetupIncomplete(GradingError):
    """The learner's account could read what the grader keeps, or cannot run the kernel's Python: nothing is graded.

    ``fix`` says what to do: run setup.sh (the grader's files are readable), make
    another copy of the reference unreadable, or pick a Python other users can run.
    """

    def __init__(self, why: str, fix: str = SETUP_FIX) -> None:
        super().__init__(f"the autograder is not set up: {why}; {fix}")


class LearnerProcessesSurvived(GradingError):
    """Processes of the learner's account were still alive after ``KILL_BOUND`` seconds of killing."""


@dataclass(frozen=True)
class LearnerAccount:
    uid: int
    gid: int
    held: HeldUid | None = field(default=None, compare=False, repr=False)
    """The uid's machine-wide lock (``uids.py``), given back by ``remove_leftovers``."""


def unused_account() -> LearnerAccount:
    """A uid no user, group, process or other sandbox has: nothing else can be signalled or read through it."""
    held = allocate(UIDS)
    return LearnerAccount(held.uid, held.uid, held)


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
        raise LearnerSetupIncomplete(
            f"the learner's account cannot run {python} ({exc.strerror})", PYTHON_FIX
        ) from None
    if finished.returncode != 0:
        raise LearnerSetupIncomplete(
            f"the learner's account cannot run {python} ({finished.stderr.strip()[-300:]})", PYTHON_FIX
        )
    return list(json.loads(finished.stdout.strip().splitlines()[-1]))


PYTHON_FIX = (
    "the kernel runs as another account, so its Python must be one other users can run (not one under a private "
    "folder such as /root/.pyenv): rebuild with a system or venv Python first on PATH, or COURSE_GRADE_PYTHON "
    "naming one (docs/grading.md)"
)
COPY_FIX = (
    "the learner's kernel could read the lab's reference there: make it unreadable to other users "
    "(chmod -R o-rwx on the course checkout, or remove the copy), or dry-run with course-grade dry-run, whose sandbox "
    "mounts no checkout (docs/grading.md)"
)
PSEUDO_FILE_SYSTEMS = (Path("/proc"), Path("/sys"), Path("/dev"), Path("/run"))
"""Not searched for copies of the reference: no file there holds one."""
_SKIPPED = {"__pycache__", ".git", "node_modules"}
VIEW_HEADER = "# Withheld while grading Lab"
"""The first line of a withheld module in a lab's view (``view.stub_source``): a stub, not the reference."""


def reference_copies(modules: list[str], top: Path = Path("/"), distribution: str = "course_lib") -> list[Path]:
    """Every copy of the lab's withheld ``modules`` on the machine that another user could reach, found as root.

    A course checkout, a site-packages, an unpacked wheel (``…/course_lib/context.py``),
    the distribution's wheels and the autograder zips holding one: wherever they are,
    a kernel that drops the view from ``sys.path`` could read the reference there
    (issue 27's dry run scored 7/7 from a world-readable checkout). A folder other
    users cannot enter (no ``o+x``: the learner's account has no group) is not
    searched; whether each copy found is readable is then asked *as the account*
    (``exposed``). Lab views are skipped: their withheld modules are stubs.
    """
    wanted = {tuple(module.split(".")) for module in modules}
    leaves = {parts[-1] + ".py": parts[:-1] for parts in wanted}
    found: list[Path] = []
    for current, folders, files in os.walk(top, onerror=lambda error: None):
        here = Path(current)
        folders[:] = [
            name
            for name in sorted(folders)
            if name not in _SKIPPED and here / name not in PSEUDO_FILE_SYSTEMS and _others_may_enter(here / name)
        ]
        found.extend(path for path in (here / name for name in sorted(files)) if _is_copy(path, leaves, distribution))
    return found


def _is_copy(path: Path, leaves: dict[str, tuple[str, ...]], distribution: str) -> bool:
    package = leaves.get(path.name)
    if package is not None:
        return path.parent.parts[-len(package) :] == package and not _is_view_stub(path)
    if path.name.endswith(".whl"):
        return path.name.startswith(f"{distribution}-")
    return path.name.endswith(".zip") and _holds(path, distribution)


def _others_may_enter(folder: Path) -> bool:
    try:
        status = os.stat(folder, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and bool(status.st_mode & stat.S_IXOTH)


def _is_view_stub(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.readline().startswith(VIEW_HEADER)
    except OSError:
        return False


def _holds(path: Path, distribution: str) -> bool:
    """A zip (an autograder bundle) holding the distribution's wheel or its package."""
    try:
        with zipfile.ZipFile(path) as archive:
            return any(
                name.startswith((f"wheels/{distribution}-", f"{distribution}/")) for name in archive.namelist()[:10_000]
            )
    except (OSError, zipfile.BadZipFile, ValueError, RuntimeError):
        return False


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
    """Remove what the account left in the machine's shared temporary folders (after ``kill_all``), then give its
    uid back (``uids.HeldUid.release``): this run is done with it."""
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
    if account.held is not None:
        account.held.release()
