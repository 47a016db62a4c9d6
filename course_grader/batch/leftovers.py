"""What a stopped ``course-grade`` left behind, found by the pid in each name and removed (issue 43).

SIGTERM, SIGHUP and SIGINT stop a run cleanly (``cli/stopping.py``): its
workers, sandboxes, cgroups and temporary folder are gone before it exits.
SIGKILL runs nothing of the grader: its workers die with it (``worker_pool``
asks the kernel for that), their sandboxes with them (bubblewrap's
``--die-with-parent``), but their cgroups and the run's temporary folder stay.
Every one of those is named after the process that made it (a cgroup
``course-grade-<pid>-…``, ``cgroup.py``; a temporary folder ``course-grade-<pid>-…``,
``files.scratch_prefix``), so the next grading run, or ``course-grade clean``,
removes each one whose process is gone, killing what still runs in it first.
One whose process lives (another run on the machine) is left alone.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..files import made_by
from ..sandbox import cgroup
from .worker_cleanup import remove_folder


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not): a leftover of a live process is that process's to remove."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return fields[0] not in ("Z", "X")


def clean_leftovers(temporary: Path | None = None) -> list[Path]:
    """Remove the cgroups and temporary folders of every ``course-grade`` process that is gone; returns what went."""
    removed: list[Path] = []
    gone = {pid for folder in cgroup.made_here() if (pid := _cgroup_pid(folder.name)) and not alive(pid)}
    for pid in sorted(gone):
        try:
            removed += cgroup.remove_made_by(pid)
        except OSError:  # a process the kernel cannot kill in 10 s: the next clean tries again
            continue
    for folder in sorted(Path(temporary or tempfile.gettempdir()).glob("course-grade-*")):
        pid = made_by(folder.name)
        if pid is None or alive(pid) or not folder.is_dir() or folder.is_symlink():
            continue
        remove_folder(folder)
        removed.append(folder)
    return removed


def _cgroup_pid(name: str) -> int | None:
    """The pid in a sandbox cgroup's name (``course-grade-4242-1a2b3c4d``), or None."""
    parts = name.removeprefix(cgroup.PREFIX).split("-")
    return int(parts[0]) if len(parts) == 2 and parts[0].isdigit() else None
