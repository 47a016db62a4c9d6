"""The term's commands in real sandboxes: a generated class through every command, and three shards in parallel.

Both run the documented commands (``python -m course_grader …``) as an
instructor would, in subprocesses, and print each command's wall time (``-s``
shows them). The class comes as the LMS's own files (``tests/term_class.py``):
no file is written by hand but the course file. ``tests/grader/results/test_term.py``
walks the same class without kernels (and merges its shards byte for byte); this
is the end-to-end proof (``make test-sandboxed``).
"""

from __future__ import annotations

import csv
import io
import os
import shlex
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution
from mutants import MUTANTS
from term_class import build, people, walk
from term_secrets import OTHER, TERM

from course_grader.intake.shard import shard_of

pytestmark = pytest.mark.sandboxed

ROOT = Path(__file__).resolve().parents[3]


def course_grade(*arguments: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``course-grade ARGUMENTS`` in ``cwd``; its wall time printed with the command, paths relative to ``cwd``."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "course_grader", *map(str, arguments)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    seconds = time.monotonic() - started
    shown = [os.path.relpath(a, cwd) if isinstance(a, Path) else a for a in arguments]
    print(f"{seconds:7.1f} s  course-grade {shlex.join(shown)}")
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def table(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_a_generated_class_goes_through_every_command_with_nothing_written_by_hand_but_the_course_file(
    tmp_path: Path,
) -> None:
    """The class of ``tests/term_class.py`` in real sandboxes: grade → report → rescore → a roster change and its
    regrade → merge → feedback zipped per assignment → both gradebooks (``term_class.walk``), issue 44's cases checked
    on the way; prints each command's wall time and each case's note as the CSV holds it (``-s``)."""
    term = build(tmp_path / "term")
    assert term.files >= 50

    def run(*arguments: str | Path) -> str:
        done = course_grade(*arguments, cwd=term.folder)
        return done.stdout + done.stderr

    notes = walk(term, run)
    rows = table(term.folder / "grades.csv")
    graded = [dict(zip(rows[0], row)) for row in rows[1:]]
    assert len(graded) == term.files and all(row["status"] == "ok" for row in graded), [
        row["notes"] for row in graded if row["status"] != "ok"
    ]
    assert {row["seed"] for row in graded} == {TERM} and "MissingIDFieldWarning" not in str(notes)
    hers = {row["student_from"] for row in graded if row["student"] == "ilopes"}  # her folders NFD, the roster NFC
    assert {unicodedata.normalize("NFC", said) for said in hers} == {"Moodle name (Inês Lopes) on the roster"}
    report = (term.folder / "report.html").read_text(encoding="utf-8")
    for section in ("Score distribution per lab", "students × rules", "Difficulty and discrimination per test"):
        assert section in report
    assert report.count('src="data:image/svg+xml;base64,') >= 2  # the charts are in the page itself
    print(f"({term.files} submissions, {len(people())} students)")
    print("".join(f"\n{case}:\n    {note}" for case, note in notes.items()))


def test_three_shards_in_parallel_merge_into_the_unsharded_csv(tmp_path: Path) -> None:
    """Everything but the measured ``seconds`` is identical; duplicates across shards are decided by merge."""
    folder = tmp_path / "submissions"
    wrong = next(m for m in MUTANTS if m.lab == "11.2")
    files = {
        "ana/lab_11_2_group_interactions.ipynb": solution("11.2"),
        "ana/lab_11_2_final.ipynb": wrong.notebook(),
        "ana/lab_11_2_v3.ipynb": solution("11.2"),
        "ben_lab_11_2.ipynb": wrong.notebook(),
        "cy_lab_11_2.ipynb": solution("11.2"),
        "dee_lab_11_1.ipynb": solution("11.1"),
    }
    for number, (name, notebook) in enumerate(files.items()):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, folder / name)
        os.utime(folder / name, (1_700_000_000 + number, 1_700_000_000 + number))
    assert len({shard_of(name, 3) for name in files if name.startswith("ana/")}) > 1
    common = ["--seed", OTHER, "--no-progress", "--timeout", "20"]
    jobs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "course_grader",
                str(folder),
                "--shard",
                f"{i}/3",
                "--out",
                str(tmp_path / f"shard-{i}.csv"),
                *common,
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        for i in (1, 2, 3)
    ]
    course_grade(folder, "--out", tmp_path / "whole.csv", *common, cwd=tmp_path)
    for job in jobs:
        _, err = job.communicate(timeout=1800)
        assert job.returncode == 0, err[-3000:]
    course_grade(
        "merge", *(tmp_path / f"shard-{i}.csv" for i in (3, 1, 2)), "-o", tmp_path / "merged.csv", cwd=tmp_path
    )
    whole, merged = table(tmp_path / "whole.csv"), table(tmp_path / "merged.csv")
    assert whole[0] == merged[0]
    seconds = whole[0].index("seconds")
    blank = lambda rows: [[cell for index, cell in enumerate(row) if index != seconds] for row in rows]  # noqa: E731
    assert blank(merged) == blank(whole)
    ana = [dict(zip(whole[0], row)) for row in whole[1:] if row[0] == "ana"]
    assert [row["counts"] for row in ana] == ["False", "False", "True"] and all(
        "duplicate" in row["notes"] for row in ana
    )
