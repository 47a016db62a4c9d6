"""Grades are written as they are made (issue 43): a grader killed mid-batch leaves every finished row on disk.

Before, the CSV and the records were written once, after the similarity pass:
a grader OOM-killed there lost every honest neighbour's grade. Now each row is
appended to ``grades.partial.jsonl`` as it comes in (the records' format), and
the CSV and records are written before the similarity pass starts. What the
killed run left in its temporary folder, the next run removes before it grades.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution, tagged

from course_grader.results.records import read_records

SLOW = "\nimport time\ntime.sleep(120)\n"


@pytest.mark.slow  # a batch of kernels, killed in the middle
def test_a_grader_killed_mid_batch_leaves_every_finished_row(tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    slow = solution("11.1")
    tagged(slow, "exercise")[-1].source += SLOW
    for name, notebook in (("a", solution("11.1")), ("b", solution("11.1")), ("c", solution("11.1")), ("d", slow)):
        (folder / name).mkdir(parents=True)
        nbformat.write(notebook, folder / name / "lab_11_1_compaction_record.ipynb")
    out = tmp_path / "grades.csv"
    journal = tmp_path / "grades.partial.jsonl"
    command = [sys.executable, "-m", "course_grader", str(folder), "--out", str(out), "--no-progress"]
    scratch = Path(tempfile.mkdtemp(prefix="cgj-", dir="/tmp"))  # short: kernels' unix sockets live below it
    grader = subprocess.Popen(
        [*command, "--no-sandbox", "--timeout", "200", "--budget", "600"],
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline and grader.poll() is None:
            if journal.exists() and len(journal.read_text(encoding="utf-8").splitlines()) >= 3:
                break
            time.sleep(0.5)
    finally:
        os.killpg(grader.pid, signal.SIGKILL)  # as the OOM killer or a node's eviction would: no clean-up runs
        grader.wait()
    finished = read_records(journal)
    assert sorted(row.student for row in finished) == ["a", "b", "c"], [row.notes for row in finished]
    assert all(row.status == "ok" and row.score == row.max_score > 0 for row in finished)
    assert not out.exists()  # the batch never got to its CSV: the journal is what is left, whole
    assert any(scratch.iterdir())  # what the killed run left: its temporary folder
    again = subprocess.run(  # the next run removes it before it grades (course-grade clean: test_stopping.py)
        [sys.executable, "-m", "course_grader", str(folder / "a" / "lab_11_1_compaction_record.ipynb"), "--no-sandbox"],
        env={**os.environ, "TMPDIR": str(scratch)},
        cwd=tmp_path,  # one notebook's results.json
        capture_output=True,
        text=True,
        check=True,
    )
    assert "a stopped course-grade left" in again.stderr, again.stderr
    assert list(scratch.iterdir()) == [] and journal.exists()  # litter gone, rows kept
    scratch.rmdir()
