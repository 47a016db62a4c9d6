"""The term's commands in real sandboxes: a generated class through grade → feedback → report → export, and three
shards in parallel.

Both run the documented commands (``python -m course_grader …``) as an
instructor would, in subprocesses, and print each command's wall time (``-s``
shows them). The class comes as the LMS's own files (``tests/term_class.py``):
no file is written by hand but the course file. ``tests/grader/results/test_term.py``
covers the same parts without kernels; this is the end-to-end proof (``make test-sandboxed``).
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
import zipfile
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution
from mutants import MUTANTS
from term_class import CANVAS_LABS, Term, build, people
from term_secrets import OTHER, TERM

from course_grader.course.course_file import load_course
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


def test_a_generated_class_goes_through_grade_feedback_report_and_export(tmp_path: Path) -> None:
    term = build(tmp_path / "term")
    assert term.files >= 40
    graded = course_grade(
        term.submissions,
        "--course",
        term.course,
        "--out",
        tmp_path / "grades.csv",
        "-j",
        "2",
        "--no-progress",
        "--feedback",
        tmp_path / "feedback",
        cwd=tmp_path,
    )
    assert (
        "the term's secret" in graded.stdout
        and TERM not in graded.stdout
        and "1 submissions name no roster student" in graded.stdout
    )
    assert "MissingIDFieldWarning" not in graded.stdout + graded.stderr
    reported = course_grade("report", tmp_path / "grades.csv", "-o", tmp_path / "report.html", cwd=tmp_path)
    assert "report.html" in reported.stdout
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    for section in (
        "Score distribution per lab",
        "students × rules",
        "Difficulty and discrimination per test",
        "The most common failure messages",
    ):
        assert section in report
    assert report.count('src="data:image/svg+xml;base64,') >= 2  # the charts are in the page itself
    pages = sorted(path.name for path in (tmp_path / "feedback").glob("*.html") if path.name != "index.html")
    assert len(pages) == len(
        {(row[0], row[3]) for row in table(tmp_path / "grades.csv")[1:]}
    )  # one per student and lab
    index = (tmp_path / "feedback" / "index.html").read_text(encoding="utf-8")
    assert all(page in index for page in pages)
    exported = course_grade(  # the class is the course file's roster: Canvas's gradebook export
        "export", tmp_path / "grades.csv", "--course", term.course, "-o", tmp_path / "gradebook.csv", cwd=tmp_path
    )
    assert "1 counting rows name no roster student" in exported.stderr

    rows = [dict(zip(table(tmp_path / "grades.csv")[0], row)) for row in table(tmp_path / "grades.csv")[1:]]
    assert len(rows) == term.files and all(row["status"] == "ok" for row in rows), [
        r["notes"] for r in rows if r["status"] != "ok"
    ]
    unknown = [row for row in rows if row["student_from"].startswith("unknown")]
    assert [row["file"] for row in unknown] == [term.unknown] and "not on the roster" in unknown[0]["notes"]
    assert sum(row["counts"] == "False" for row in rows) == 2
    assert all(row["seed"] == TERM for row in rows)
    sources = {(r["lab"] in CANVAS_LABS, r["submitted_from"]) for r in rows}  # each time from the LMS's own file
    assert sources == {(True, "canvas-submissions"), (False, "moodle-worksheet")}, sources
    hers = {row["student_from"] for row in rows if row["student"] == "ilopes"}  # her folders NFD, the roster NFC
    assert {unicodedata.normalize("NFC", said) for said in hers} == {"Moodle name (Inês Lopes) on the roster"}
    assert all(unicodedata.is_normalized("NFD", said) and not unicodedata.is_normalized("NFC", said) for said in hers)

    course = load_course(term.course)
    book = table(tmp_path / "gradebook.csv")
    assert book[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Lab 11.1",
        "Lab 11.2",
        "Lab 11.3",
        "Lab 11.4",
        "Lab 11.5",
        "Capstone: compaction lifecycle",
    ]
    labs = ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone")
    assert book[1] == ["    Points Possible", "", "", "", "", *(f"{course.lab(lab).points:g}" for lab in labs)]
    in_canvas_order = sorted(people(), key=lambda p: (p.last, p.first))  # the export's order, the Test Student left out
    assert [row[:4] for row in book[2:]] == [[f"{p.first} {p.last}", p.canvas, p.id, p.email] for p in in_canvas_order]
    for row in book[2:]:
        student = row[2]
        for lab, cell in zip(labs, row[5:]):
            counted = term.expected.get((student, lab))
            points = course.lab(lab).points
            assert points is not None
            if counted is None:
                assert cell == "", (student, lab)
                continue
            kept = 1 - min(50, 10 * counted.days_late) / 100
            if counted.kind == "reference":
                assert float(cell) == pytest.approx(points * kept, abs=0.011), (student, lab, counted)
            else:
                assert 0 <= float(cell) < points * kept, (student, lab, counted)
    print(f"({term.files} submissions, {len(in_canvas_order)} students)")
    round_trip(term, tmp_path)


def round_trip(term: Term, tmp_path: Path) -> None:
    """After grading: an extension and an override (rescore, no regrade), one student regraded and merged in, the
    pages zipped for Canvas and Moodle, and both gradebooks from the merged term (issue 29's round trip)."""
    late = next(key for key, counted in term.expected.items() if counted.days_late and counted.kind == "reference")
    appeal = next(key for key, counted in term.expected.items() if counted.kind == "mutant" and key != late)
    exceptions = (
        f'\n[[extensions]]\nstudent = "{late[0]}"\nlab = "{late[1]}"\n'
        'deadline = 2026-12-31T23:59:00+01:00\nreason = "medical certificate"\n'
        f'\n[[overrides]]\nstudent = "{appeal[0]}"\nlab = "{appeal[1]}"\nscore = 7.5\nreason = "appeal upheld"\n'
    )
    course = term.course.with_name("course-after.toml")
    course.write_text(term.course.read_text(encoding="utf-8") + exceptions, encoding="utf-8")
    rescored = course_grade(
        "rescore", tmp_path / "grades.csv", "--course", course, "-o", tmp_path / "rescored.csv", cwd=tmp_path
    )
    changed = rescored.stdout.splitlines()[:-1]  # a line per row whose score changed, the summary last
    assert changed and all("(medical certificate)" in line or "(appeal upheld)" in line for line in changed), changed
    course_grade(
        term.submissions, "--course", course, "--only", f"student:{late[0]}", "--out", tmp_path / "regrade.csv",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    merged = course_grade(
        "merge", tmp_path / "rescored.csv", tmp_path / "regrade.csv", "-o", tmp_path / "term.csv", cwd=tmp_path
    )
    assert "replaced" in merged.stdout + merged.stderr
    for lms in ("canvas", "moodle"):
        pages = tmp_path / f"pages-{lms}"
        course_grade("feedback", tmp_path / "term.jsonl", "-o", pages, "--lms-zip", lms, cwd=tmp_path)
        with zipfile.ZipFile(pages / f"feedback-{lms}.zip") as archive:
            assert archive.namelist() and all(name.endswith(".html") for name in archive.namelist())
        exported = tmp_path / f"gradebook-{lms}.csv"
        course_grade("export", tmp_path / "term.csv", "--course", course, "--format", lms, "-o", exported, cwd=tmp_path)
        book = table(exported)
        column = book[0].index(load_course(course).column(appeal[1]))
        row = next(r for r in book if appeal[0] in r)
        assert row[column] == "7.5", (lms, row)
    points = load_course(course).lab(late[1]).points
    book = table(tmp_path / "gradebook-canvas.csv")
    row = next(r for r in book if late[0] in r)
    assert float(row[book[0].index(load_course(course).column(late[1]))]) == pytest.approx(points, abs=0.011)


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
