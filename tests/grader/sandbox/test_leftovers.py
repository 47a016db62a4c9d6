"""What a stopped ``course-grade`` left is removed by the next run; what a live one holds stays (issue 43).

A run killed with SIGKILL cleans nothing: its temporary folder is named after
its pid (``course-grade-<pid>-…``), and ``clean_leftovers`` (every grading run
before it starts, and ``course-grade clean``) removes it once that process is
gone. The runs end to end are in ``tests/grader/cli/test_stopping.py`` and
``test_grades_as_made.py``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from course_grader.batch.leftovers import alive, clean_leftovers


def gone_pid() -> int:
    """The pid of a process that ran and was reaped."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_a_gone_runs_folder_is_removed_and_a_live_runs_and_anything_else_stay(tmp_path: Path) -> None:
    dead = gone_pid()
    assert not alive(dead) and alive(os.getpid())
    left = tmp_path / f"course-grade-{dead}-k2x9"
    (left / "kernel").mkdir(parents=True)
    (left / "kernel" / "notebook.ipynb").write_text("{}", encoding="utf-8")
    running = tmp_path / f"course-grade-{os.getpid()}-a1b2"
    running.mkdir()
    unnamed = tmp_path / "course-grade-notes"
    unnamed.mkdir()
    linked = tmp_path / f"course-grade-{dead}-link"
    linked.symlink_to(running)
    removed = clean_leftovers(tmp_path)
    assert left in removed and not left.exists()
    assert running.is_dir() and unnamed.is_dir() and linked.is_symlink()
    assert not {running, unnamed, linked} & set(removed)
