"""Stopping is clean (issue 43): SIGTERM, SIGHUP and SIGINT leave nothing; what SIGKILL leaves, the next run removes.

Before, ``course-grade`` stopped by SIGTERM left its workers and their
sandboxes running for 30–60 s, and 8 cgroups, 14 sandbox processes and its
temporary folder for good. Here two sandboxes are grading (two workers, each on
a cell that sleeps a minute) when the command is stopped.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution, tagged

from course_grader.batch.leftovers import alive
from course_grader.batch.worker_cleanup import processes_naming
from course_grader.sandbox import cgroup

pytestmark = [pytest.mark.slow, pytest.mark.sandboxed]  # real sandboxes, each in a cgroup of its own (root)


def parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def pid_of(folder: Path) -> int:
    return int(folder.name.removeprefix(cgroup.PREFIX).split("-")[0])


@pytest.fixture
def grading(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path, set[Path]]]:
    """The command grading two sleeping submissions in two workers; its scratch folder; its workers' cgroups."""
    if (reason := cgroup.unavailable()) is not None:
        pytest.fail(f"this test needs a per-sandbox cgroup (CI runs as root): {reason}")
    scratch = Path(tempfile.mkdtemp(prefix="cgs-", dir="/tmp"))  # short: kernels' unix sockets live below it
    folder = tmp_path / "submissions"
    for name in ("a", "b"):
        sleepy = solution("11.1")
        tagged(sleepy, "exercise")[-1].source += "\nimport time\ntime.sleep(60)\n"
        (folder / name).mkdir(parents=True)
        nbformat.write(sleepy, folder / name / "lab_11_1_compaction_record.ipynb")
    command = [sys.executable, "-m", "course_grader", str(folder), "--out", str(tmp_path / "grades.csv"), "-j", "2"]
    grader = subprocess.Popen(
        [*command, "--no-progress", "--timeout", "120", "--budget", "600"],
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline, ours = time.monotonic() + 300, set[Path]()
    while time.monotonic() < deadline and len(ours) < 2 and grader.poll() is None:
        time.sleep(0.5)
        ours = {g for g in cgroup.made_here() if parent_of(pid_of(g)) == grader.pid}  # its workers' sandboxes
    assert len(ours) >= 2, "both workers' sandboxes must be up before the command is stopped"
    time.sleep(2)  # the kernels are starting or running their cells
    try:
        yield grader, scratch, ours
    finally:
        if grader.poll() is None:
            os.killpg(grader.pid, signal.SIGKILL)
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stopped_run_removes_every_worker_sandbox_cgroup_and_folder(
    grading: tuple[subprocess.Popen[bytes], Path, set[Path]], number: int
) -> None:
    grader, scratch, ours = grading
    workers = {pid_of(g) for g in ours}
    grader.send_signal(number)
    assert grader.wait(timeout=120) == 128 + number
    assert grader.stderr is not None and b"stopped by" in grader.stderr.read()
    assert not any(alive(pid) for pid in workers)
    assert ours.isdisjoint(cgroup.made_here()) and not any(folder.exists() for folder in ours)
    assert processes_naming(scratch) == [] and list(scratch.iterdir()) == []  # the batch's temporary folder is gone


def test_what_a_killed_run_leaves_the_next_one_removes(
    grading: tuple[subprocess.Popen[bytes], Path, set[Path]],
) -> None:
    grader, scratch, ours = grading
    workers = {pid_of(g) for g in ours}
    os.kill(grader.pid, signal.SIGKILL)  # the command alone: nothing of it runs again
    grader.wait()
    deadline = time.monotonic() + 60
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(pid) for pid in workers), "its workers die with it"
    left = [folder for folder in scratch.iterdir() if folder.name.startswith(f"course-grade-{grader.pid}-")]
    assert left and any(folder.exists() for folder in ours)  # what SIGKILL leaves
    cleaned = subprocess.run(
        [sys.executable, "-m", "course_grader", "clean"],
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cleaned.returncode == 0 and all(f"removed {folder}" in cleaned.stdout for folder in left), cleaned.stdout
    assert not any(folder.exists() for folder in ours) and list(scratch.iterdir()) == []
