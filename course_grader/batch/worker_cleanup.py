"""Nothing left of a grading worker once it ended: the processes it started, their cgroups, its folder.

Clean-up is the batch's, not the worker's (issue 27: a worker killed for memory
runs no clean-up of its own, and left its sandboxes' cgroups behind): each
worker has its own folder under the batch's, and whenever a worker ends, killed
or not, the batch kills every process in the cgroups that worker made (their
names hold its pid, ``cgroup.remove_made_by``) and any process whose command
line names the worker's folder (a sandbox without a cgroup), then removes the
cgroups and the folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

from ..sandbox import cgroup


def clean_up_after(pid: int, folder: Path) -> None:
    """Nothing left of a worker that ended: its sandboxes' cgroups and every process in them, its folder.

    Processes first (the cgroups' own, then any whose command line names the
    folder: bwrap and the relay of a sandbox without a cgroup), then the folder
    they used. A worker that ended normally had removed everything already.
    """
    try:
        cgroup.remove_made_by(pid)
    except OSError as exc:  # a process the kernel cannot kill in 10 s: say so, and let the batch finish its rows
        print(f"course-grade: a grading worker's cgroup could not be removed: {exc}", file=sys.stderr)
    remove_folder(folder)


def remove_folder(folder: Path) -> None:
    """Kill every process whose command line names ``folder`` (a sandbox without a cgroup), then remove the folder."""
    for survivor in processes_naming(folder):
        try:
            os.kill(survivor, signal.SIGKILL)
        except OSError:
            pass
    shutil.rmtree(folder, ignore_errors=True)


def processes_naming(folder: Path) -> list[int]:
    """The processes whose command line names a path inside ``folder`` (Linux's ``/proc``; none elsewhere)."""
    return processes_with(f"{folder}{os.sep}")


def processes_with(text: str) -> list[int]:
    """The processes whose command line contains ``text``."""
    mark = os.fsencode(text)
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if mark in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return sorted(found)
