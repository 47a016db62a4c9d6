"""The bubblewrap (``bwrap``) command line that starts a learner's kernel in a sandbox of its own.

Its own PID, network, IPC and UTS namespaces; a read-only view of the Python
environment and nothing else of the host's files but the kernel's connection
file, the folder for its sockets and the lab's view of ``course_lib``
mounted over the package; a home folder and a ``/tmp`` that are size-limited
tmpfs mounts; a user id of its own (``kernel.py`` says why each matters).
Also what the grader says when bubblewrap is missing, and what is given up
without it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from .limits import Limits
from .view import PACKAGE

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; or run make grading-tools)"
GIVEN_UP = (
    "without a sandbox the submission's code runs as you, with your files, network and processes "
    "in reach; only the time and memory limits and the withheld reference remain"
)

HOME = Path("/home/learner")
"""The kernel's home and working folder inside the sandbox (a tmpfs)."""


def bubblewrap() -> str | None:
    return shutil.which("bwrap")


def bwrap_command(
    command: list[str], limits: Limits, *, view: Path, connection_file: Path, ipc: Path, uid: int | None
) -> list[str]:
    """``command`` (the kernel's) run inside bubblewrap, as ``uid`` when the grader is root.

    ``view`` is mounted over the package, ``connection_file`` read-only and
    ``ipc`` (where the kernel binds its sockets) writable, each where it is on the host.
    """
    mounts = _Mounts()
    mounts.system()
    for folder in python_folders():
        mounts.bind(folder, folder)
    mounts.bind(view, PACKAGE)  # the lab's view over the package, wherever it is installed
    mounts.bind(connection_file, connection_file)
    mounts.bind(ipc, ipc, writable=True)
    args = [
        "bwrap",
        *_NAMESPACES,
        *_home_and_tmp(limits),
        *mounts.args,
        "--chdir",
        str(HOME),
        "--unsetenv",
        "JPY_PARENT_PID",  # the kernel's parent is bwrap's init here
    ]
    if uid is None:  # not root: a user namespace of our own; RLIMIT_NPROC counts inside it
        return [*args, "--unshare-user", "--disable-userns", "--", *command]
    drop = [
        "/usr/bin/setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]
    return [*args, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", *drop, *command]


_NAMESPACES = (
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
    "--hostname",
    "grading",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
)
"""The sandbox's own processes, network, IPC and host name, gone with the grader."""


def _home_and_tmp(limits: Limits) -> list[str]:
    """``/tmp`` and the home folder as tmpfs mounts of the limits' sizes: nothing written reaches the host's disk."""
    return [
        "--size",
        str(limits.tmp_mb * 2**20),
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
        "--perms",
        "0755",
        "--dir",
        str(HOME.parent),
        "--size",
        str(limits.home_mb * 2**20),
        "--perms",
        "1777",
        "--tmpfs",
        str(HOME),
    ]


class _Mounts:
    """bwrap mount arguments; parent folders are created world-traversable (bwrap's default is 0700)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._made: set[Path] = {Path("/"), Path("/tmp"), HOME.parent, HOME}  # the sandbox's own, mounted first

    def system(self) -> None:
        self.args += ["--ro-bind", "/usr", "/usr"]
        self._made.add(Path("/usr"))
        for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
            host = Path("/") / name
            if host.is_symlink():
                self.args += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                self.args += ["--ro-bind", str(host), str(host)]

    def bind(self, source: Path, target: Path, *, writable: bool = False) -> None:
        for parent in reversed(target.parents):
            if parent not in self._made and not any(parent.is_relative_to(made) for made in (Path("/usr"),)):
                self.args += ["--perms", "0755", "--dir", str(parent)]
                self._made.add(parent)
        self.args += ["--bind" if writable else "--ro-bind", str(source), str(target)]


def python_folders() -> list[Path]:
    """The Python installation and environment the kernel needs, and nothing of the course's checkout."""
    candidates = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    candidates.add(Path(os.path.realpath(sys.executable)).parent.parent)
    folders = sorted({c.resolve() for c in candidates if c.is_dir() and not c.resolve().is_relative_to("/usr")})
    return [f for f in folders if not any(f != other and f.is_relative_to(other) for other in folders)]
