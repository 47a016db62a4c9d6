"""A killed grading worker leaves nothing behind: no cgroup, no process, no folder (issue 27).

A worker killed for memory runs no clean-up of its own; before, its sandboxes'
cgroups (and the relay in them) stayed. The batch owns the clean-up now
(``worker_cleanup.clean_up_after``): the cgroups that worker made (named by its pid) and
every process in them, any process naming the worker's folder, the folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution

from course_grader import GradeOptions, Limits, SandboxSettings
from course_grader.batch.batch import grade_folder
from course_grader.batch.worker_cleanup import clean_up_after, processes_naming, processes_with
from course_grader.judging.kernel_run import lab_view
from course_grader.judging.verdicts import GradeResult
from course_grader.sandbox import cgroup
from course_grader.sandbox.bubblewrap import bubblewrap
from course_grader.sandbox.kernel import Sandbox
from course_lib.teaching import lab_registry

MARKER = "course-grade-cleanup-test-sleeper"
"""In the command line of each process the doomed sandbox starts, so the test can count them on the host."""

SLEEPERS = f"""
import subprocess, sys
_sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {MARKER!r}]) for _ in range(3)]
"""


def doomed(path: Path, options: GradeOptions, *, root: str | None = None) -> GradeResult:
    """A worker that opens a real sandbox with three sleeping children in it, says what it holds, and is SIGKILLed."""
    with tempfile.TemporaryDirectory(prefix="course-grade-") as folder:
        box = Sandbox(
            Path(folder) / "home", options.sandbox.limits, lab_view(lab_registry.LABS["11.1"], options.sandbox.views)
        )
        with box:
            assert box.run(SLEEPERS).status == "ok"
            assert box.cgroup is not None and box._relay is not None
            held = {
                "worker": os.getpid(),
                "cgroups": [str(folder) for folder in box.cgroup.folders],
                "processes": box.cgroup.processes(),
                "folder": folder,
            }
            with path.with_suffix(".held").open("a") as record:
                record.write(json.dumps(held) + "\n")
            os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would: no clean-up runs in this process
    raise AssertionError("unreachable")


def _marked() -> list[int]:
    return processes_with(MARKER)


def _gone(pid: int) -> bool:
    try:
        return "zombie" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


@pytest.mark.slow
@pytest.mark.sandboxed
def test_a_killed_worker_leaves_no_cgroup_process_or_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if bubblewrap() is None or cgroup.unavailable() is not None:
        pytest.fail(f"this test needs bubblewrap and a per-sandbox cgroup (CI runs as root): {cgroup.unavailable()}")
    scratch = Path(tempfile.mkdtemp(prefix="cgc-", dir="/tmp"))  # short: kernels' unix sockets live below it
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    root = tmp_path / "submissions"
    (root / "doomed").mkdir(parents=True)
    nbformat.write(solution("11.1"), root / "doomed" / "lab_11_1_compaction_record.ipynb")
    marked_before, cgroups_before = _marked(), cgroup.made_here()
    limits = Limits(cell_timeout=30, interrupt_grace=2, budget=120)
    results = grade_folder(
        root,
        GradeOptions(sandbox=SandboxSettings(limits=limits)),
        jobs=2,
        progress=False,
        grade=doomed,
        job_timeout=200,
    )
    assert [result.status for result in results] == ["error"], [result.notes for result in results]
    assert "also when graded again alone" in results[0].notes[0]

    held = [json.loads(line) for line in (root / "doomed" / "lab_11_1_compaction_record.held").read_text().splitlines()]
    assert len(held) == 2  # graded in the batch, then once more alone: each time killed holding a sandbox
    for record in held:
        assert len(record["cgroups"]) >= 2 and len(record["processes"]) >= 5  # bwrap, kernel, relay, 3 sleepers
        assert not any(Path(folder).exists() for folder in record["cgroups"]), record
        assert cgroup.made_here(record["worker"]) == set()
        assert all(_gone(pid) for pid in record["processes"]), record
        assert not Path(record["folder"]).exists()
    deadline = time.monotonic() + 10  # the sleepers die with their sandbox's PID namespace, reaped by init
    while _marked() != marked_before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked() == marked_before
    assert not (cgroup.made_here() - cgroups_before - {Path(f) for r in held for f in r["cgroups"]})
    assert processes_naming(scratch) == []
    assert list(scratch.iterdir()) == []
    scratch.rmdir()


def test_clean_up_after_kills_what_names_the_workers_folder_and_removes_it(tmp_path: Path) -> None:
    """The fallback without a cgroup: a process whose command line names the worker's folder is killed."""
    folder = tmp_path / "7"
    (folder / "box").mkdir(parents=True)
    other = tmp_path / "70"  # a neighbour's folder whose name starts alike is not touched
    other.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(folder / "box" / "k.json")])
    neighbour = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(other / "k.json")])
    try:
        assert processes_naming(folder) == [sleeper.pid]
        clean_up_after(2**22 + 1, folder)  # no cgroup was made by that pid
        assert sleeper.wait(10) == -signal.SIGKILL
        assert not folder.exists() and neighbour.poll() is None
    finally:
        sleeper.kill()
        neighbour.kill()
        sleeper.wait()
        neighbour.wait()
