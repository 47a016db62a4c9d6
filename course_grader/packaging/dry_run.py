"""A Gradescope dry run on the instructor's machine, in a sandbox that sees only the bundle (issue 44).

The autograder refuses to grade while the learner's account could read a copy
of the lab's reference anywhere on the machine (``learner_account.reference_copies``,
kept as strict as it is for the real autograder). Gradescope's container holds no
such copy; an instructor's machine holds the course's checkouts, readable by all
under a default umask, so a dry run by hand scored every test 0 ("the autograder
is not set up: the learner's account can read a copy of the lab's reference").

``dry_run`` runs the zip's own ``setup.sh`` and ``run_autograder``, unchanged and
as root as Gradescope runs them, inside bubblewrap with a mount namespace of
its own whose only files are:

- a fresh ``/autograder`` (a private folder of this machine's ``/tmp``): the zip
  unpacked into ``source/`` with its modes, the uploads in ``submission/``;
- the system (``/usr``, ``/bin``, ``/lib…``, ``/etc``) and the Python environment
  ``course-grade`` runs in, read-only, given to ``setup.sh`` as ``COURSE_GRADE_PYTHON``
  (it has the dependencies, so nothing is downloaded), with every copy of the
  reference found in them covered (an empty folder over a ``course_lib`` package
  and the ``course_grader`` beside it, ``/dev/null`` over a wheel or zip);
- its own ``/tmp``, ``/root``, ``/proc`` and ``/dev``.

Other checkouts, home folders and bundles are never mounted: out of reach by
construction, so the check inside finds nothing to refuse. The sandbox has its
own PID, network, IPC and host-name namespaces, and of root's capabilities only
those the autograder uses (switching to the learner's uid, owning and removing
its files, killing its processes).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course_lib.teaching.lab_registry import LABS

from ..errors import GradingError
from ..sandbox.bubblewrap import INSTALL_HINT, bubblewrap, python_folders
from ..sandbox.learner_account import reference_copies
from ..sandbox.view import PACKAGE

AUTOGRADER = Path("/autograder")
"""Where Gradescope unpacks the bundle, and where the dry run's sandbox mounts its fresh copy."""
CAPABILITIES = (
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
)
"""What setup.sh and run_autograder do as root: chown the grader's files, switch to the learner's uid, clean up."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc")
STEP_TIMEOUT = 3600.0
"""Seconds a step (setup, or grading one submission) may take before the dry run gives up on it."""


class DryRunFailed(GradingError):
    """The dry run could not run (not root, no bubblewrap, not a bundle) or a step of the bundle failed."""


@dataclass(frozen=True)
class DryRun:
    """What ``run_autograder`` wrote and printed in the sandbox."""

    results: dict[str, Any]
    """``/autograder/results/results.json``, as Gradescope would read it."""
    output: str
    """``run_autograder``'s stdout (the table Gradescope shows instructors) and stderr."""


def dry_run(bundle: Path, uploads: list[Path]) -> DryRun:
    """Set ``bundle`` up and grade ``uploads`` (what a learner uploads) as Gradescope would, in the sandbox.

    Runs as root (as Gradescope runs both steps). The fresh ``/autograder`` is removed afterwards.
    """
    _check_can_run(bundle, uploads)
    with _fresh_autograder() as root:
        _unpack(bundle, root / "source")
        (root / "submission").mkdir(mode=0o700)
        for upload in uploads:
            shutil.copyfile(upload, root / "submission" / upload.name, follow_symlinks=False)
        sandbox = sandbox_command(root)
        _step("setup.sh", sandbox)
        finished = _step("run_autograder", sandbox)
        try:
            results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DryRunFailed(f"run_autograder wrote no readable results.json ({exc}):\n{_tail(finished)}") from None
    return DryRun(results, finished.stdout + finished.stderr)


def _check_can_run(bundle: Path, uploads: list[Path]) -> None:
    if os.geteuid() != 0:
        raise DryRunFailed(
            "the dry run runs setup.sh and run_autograder as root, as Gradescope does (the learner's kernel runs as "
            "another uid, which only root can switch to): run it with sudo"
        )
    if bubblewrap() is None:
        raise DryRunFailed(f"the dry run needs bubblewrap for its sandbox: {INSTALL_HINT}")
    if not zipfile.is_zipfile(bundle):
        raise DryRunFailed(f"{bundle}: not a zip (an autograder from course-grade bundle)")
    with zipfile.ZipFile(bundle) as archive:
        missing = {"setup.sh", "run_autograder"} - set(archive.namelist())
    if missing:
        raise DryRunFailed(f"{bundle}: not an autograder from course-grade bundle (no {', '.join(sorted(missing))})")
    names = [upload.name for upload in uploads]
    for upload in uploads:
        if not stat.S_ISREG(os.stat(upload, follow_symlinks=False).st_mode):
            raise DryRunFailed(f"{upload}: not a regular file (Gradescope takes files)")
        if names.count(upload.name) > 1:
            raise DryRunFailed(f"two uploads are named {upload.name}: Gradescope keeps one file per name")


@contextmanager
def _fresh_autograder() -> Iterator[Path]:
    """A new folder for the sandbox's ``/autograder``, inside a folder only root can enter; removed afterwards."""
    private = Path(tempfile.mkdtemp(prefix="course-grade-dry-run-"))
    try:
        root = private / "autograder"
        root.mkdir(mode=0o755)
        yield root
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _unpack(bundle: Path, source: Path) -> None:
    """The zip into ``source`` with the modes it gives (Gradescope's unzip keeps them, ``extractall`` does not)."""
    source.mkdir(mode=0o755)
    with zipfile.ZipFile(bundle) as archive:
        for info in archive.infolist():
            path = Path(archive.extract(info, source))
            if not info.is_dir():
                path.chmod((info.external_attr >> 16) & 0o777 or 0o644)


def _step(name: str, sandbox: list[str]) -> subprocess.CompletedProcess[str]:
    """``bash /autograder/source/NAME`` in the ``sandbox``; ``DryRunFailed`` with its output when it fails."""
    try:
        finished = subprocess.run(
            [*sandbox, "bash", str(AUTOGRADER / "source" / name)],
            env=_environment(),
            cwd="/",
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise DryRunFailed(f"{name} did not finish in {STEP_TIMEOUT:g} s") from None
    if finished.returncode != 0:
        raise DryRunFailed(f"{name} failed (exit status {finished.returncode}):\n{_tail(finished)}")
    return finished


def _tail(finished: subprocess.CompletedProcess[str], size: int = 3000) -> str:
    return (finished.stdout + finished.stderr).strip()[-size:]


def _environment() -> dict[str, str]:
    """Gradescope's: root's home, a plain PATH, no AUTOGRADER_ROOT (``/autograder`` is where it is there)."""
    return {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "COURSE_GRADE_PYTHON": sys.executable,  # the dependencies are there: setup.sh installs nothing from PyPI
        "PIP_NO_INDEX": "1",
        "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


def sandbox_command(root: Path) -> list[str]:
    """bwrap's arguments: ``root`` as ``/autograder``, the system and this Python read-only, nothing else of the host."""
    args = [
        "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--hostname",
        "autograder",
        "--die-with-parent",
        "--new-session",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
        "--perms",
        "0711",  # Gradescope's root home; enterable, since a Python may live in it (pyenv's)
        "--tmpfs",
        "/root",
    ]
    for folder in map(Path, SYSTEM):
        if folder.is_symlink():
            args += ["--symlink", os.readlink(folder), str(folder)]
        elif folder.is_dir():
            args += ["--ro-bind", str(folder), str(folder)]
    for folder in python_folders():
        args += [*_parents(folder), "--ro-bind", str(folder), str(folder)]
    args += _covers([Path(folder) for folder in SYSTEM if not Path(folder).is_symlink()] + python_folders())
    args += ["--bind", str(root), str(AUTOGRADER), "--chdir", str(AUTOGRADER)]
    for capability in CAPABILITIES:
        args += ["--cap-add", capability]
    return [*args, "--"]


def _parents(folder: Path) -> list[str]:
    """The folders above a bound one, made in the sandbox and enterable by all (bwrap makes them 0700)."""
    args: list[str] = []
    for parent in reversed(folder.parents):
        if parent != Path("/") and not any(parent.is_relative_to(system) for system in SYSTEM):
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _covers(folders: list[Path]) -> list[str]:
    """Every copy of the reference in the mounted ``folders`` covered: an empty root-only folder, or ``/dev/null``.

    A Python environment may have course_lib installed (not only the checkout's
    editable link): the learner's account must not read it there either.
    """
    modules = sorted({withheld.module for lab in LABS.values() for withheld in lab.withheld})
    packages: set[Path] = set()
    files: set[Path] = set()
    for folder in dict.fromkeys(folders):
        for copy in reference_copies(modules, folder):
            if copy.suffix == ".py":
                package = next(parent for parent in copy.parents if parent.name == PACKAGE.name)
                packages |= {package, package.with_name("course_grader")}
            else:
                files.add(copy)
    args: list[str] = []
    for package in sorted(path for path in packages if path.is_dir()):
        args += ["--perms", "0700", "--tmpfs", str(package)]
    for file in sorted(files):
        args += ["--ro-bind", "/dev/null", str(file)]
    return args
