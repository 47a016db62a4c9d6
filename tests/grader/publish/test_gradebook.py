"""The gradebook an LMS imports: Canvas's Points Possible row, and a 0 only where a lab is due."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from course_grader import GradeResult, TestResult, load_course, load_roster, read_frame, results_frame, write_csv
from course_grader.course.course import NO_COURSE, Course
from course_grader.intake.roster_formats import CANVAS_NO_ONE
from course_grader.publish import gradebook
from course_grader.results.grades_csv import GradesCsvError

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
COURSE = EXAMPLES / "course.toml"
"""Deadlines 2 October (11.1) to 13 November 2026 (the capstone); 10 points a lab, 20 the capstone."""


def graded(submission: str, student: str, lab: str, passed: int = 3, tests: int = 4) -> GradeResult:
    results = tuple(
        TestResult(name=f"t{n}", number=str(n), lab=lab, score=float(n <= passed)) for n in range(1, tests + 1)
    )
    return GradeResult(submission=submission, student=student, lab=lab, status="ok", tests=results)


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def grades_csv(tmp_path: Path, rows: list[GradeResult], course: Course) -> Path:
    path = tmp_path / "grades.csv"
    write_csv(rows, path, course)
    return path


def test_canvas_gets_the_points_possible_row_its_own_export_writes(tmp_path: Path) -> None:
    course = load_course(COURSE)
    path = grades_csv(tmp_path, [graded("jsmith_lab_11_3.ipynb", "jsmith", "11.3")], course)
    book = gradebook.build(read_frame(path), load_roster(EXAMPLES / "roster.csv"), course=course, labs=["11.3", "11.4"])
    assert table(book.text)[1] == ["    Points Possible", "", "", "", "", "10", "10"]
    assert gradebook.POINTS_POSSIBLE.strip().casefold() in CANVAS_NO_ONE  # read back as a roster, it is no one
    exported = tmp_path / "gradebook.csv"
    exported.write_text(book.text, encoding="utf-8")
    assert [s.id for s in load_roster(exported).students] == [
        s.id for s in load_roster(EXAMPLES / "roster.csv").students
    ]


def test_moodle_has_no_points_row(tmp_path: Path) -> None:
    course = load_course(COURSE)
    path = grades_csv(tmp_path, [graded("jsmith_lab_11_3.ipynb", "jsmith", "11.3")], course)
    book = gradebook.build(read_frame(path), load_roster(EXAMPLES / "roster.csv"), layout="moodle", course=course)
    rows = table(book.text)
    assert rows[0][:3] == ["ID number", "Email address", "Full name"] and rows[1][0] == "jsmith"


def test_points_possible_are_what_the_rows_were_scored_out_of() -> None:
    """Without a course file, a lab's points are its tests (4 here, 5 there); a lab nobody handed in has none."""
    rows = [graded("a_lab_11_3.ipynb", "a", "11.3"), graded("b_lab_11_1.ipynb", "b", "11.1", tests=5)]
    frame = pd_frame(rows)
    assert gradebook.points_possible(frame, NO_COURSE, ["11.1", "11.3", "11.4"]) == {
        "11.1": "5",
        "11.3": "4",
        "11.4": "",
    }


def test_rows_scored_out_of_different_points_are_refused() -> None:
    rows = [graded("a_lab_11_3.ipynb", "a", "11.3"), graded("b_lab_11_3.ipynb", "b", "11.3", tests=5)]
    with pytest.raises(GradesCsvError, match=r"Lab 11\.3 rows disagree on its points \(4, 5\)"):
        gradebook.points_possible(pd_frame(rows), NO_COURSE, ["11.3"])


@pytest.mark.parametrize(
    ("now", "zeros"),
    [
        (datetime(2026, 10, 1, tzinfo=UTC), ()),  # before every deadline: nothing is due, no 0 anywhere
        (datetime(2026, 10, 20, tzinfo=UTC), ("11.1", "11.2", "11.3")),  # 11.4 is due on the 23rd
        (datetime(2026, 12, 1, tzinfo=UTC), ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone")),
    ],
)
def test_missing_zero_writes_0_only_in_labs_that_are_due(tmp_path: Path, now: datetime, zeros: tuple[str, ...]) -> None:
    course = load_course(COURSE)
    path = grades_csv(tmp_path, [graded("jsmith_lab_11_3.ipynb", "jsmith", "11.3")], course)
    book = gradebook.build(
        read_frame(path), load_roster(EXAMPLES / "roster.csv"), layout="moodle", missing="zero", course=course, now=now
    )
    header, bchen = table(book.text)[0], table(book.text)[3]  # bchen handed nothing in
    labs = dict(zip(book.labs, bchen[3:]))
    assert header[3:] == [course.column(lab) for lab in book.labs]
    assert {lab for lab, cell in labs.items() if cell == "0"} == set(zeros)
    assert {lab for lab, cell in labs.items() if cell == ""} == set(book.labs) - set(zeros)
    assert book.not_due == tuple(lab for lab in book.labs if lab not in zeros)


def test_without_deadlines_a_lab_is_due_once_someone_was_graded_in_it() -> None:
    frame = pd_frame([graded("a_lab_11_3.ipynb", "a", "11.3")])
    assert gradebook.due(frame, NO_COURSE, ["11.1", "11.3"], datetime(2026, 1, 1, tzinfo=UTC)) == ("11.3",)


def pd_frame(rows: list[GradeResult]) -> pd.DataFrame:
    return results_frame(rows)


def test_export_takes_a_choice_of_labs_and_says_which_stay_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from course_grader.cli import app as cli

    course = load_course(COURSE)
    path = grades_csv(tmp_path, [graded("jsmith_lab_11_3.ipynb", "jsmith", "11.3")], course)
    out = tmp_path / "gradebook.csv"
    argv = ["export", str(path), "--course", str(COURSE), "--missing", "zero", "-o", str(out)]
    assert cli.main([*argv, "--labs", "Lab 11.4, 11.3"]) == 0
    assert table(out.read_text(encoding="utf-8"))[0][5:] == ["Lab 11.3", "Lab 11.4"]  # in course order
    assert "2 labs (11.3, 11.4)" in capsys.readouterr().out  # both past their deadline today: no "not due" line
    with pytest.raises(SystemExit):
        cli.main([*argv, "--labs", "11.9"])
    assert "unknown lab '11.9'" in capsys.readouterr().err


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
def test_every_header_cell_is_prefixed_as_the_rows_cells_are(tmp_path: Path, layout: gradebook.Layout) -> None:
    """A course file's own ``column = "=1+1 …"`` is text in the header too, never a formula (issue 43)."""
    text = (EXAMPLES / "course.toml").read_text(encoding="utf-8")
    (tmp_path / "course.toml").write_text(
        text.replace('[labs."11.3"]\n', '[labs."11.3"]\ncolumn = "=1+1 Lab 11.3"\n'), encoding="utf-8"
    )
    for name in ("roster.csv", "submitted.csv"):
        (tmp_path / name).write_bytes((EXAMPLES / name).read_bytes())
    course = load_course(tmp_path / "course.toml")
    path = grades_csv(tmp_path, [graded("jsmith_lab_11_3.ipynb", "jsmith", "11.3")], course)
    book = gradebook.build(read_frame(path), load_roster(EXAMPLES / "roster.csv"), layout=layout, course=course)
    header = table(book.text)[0]
    assert "'=1+1 Lab 11.3" in header and not any(cell.startswith(("=", "+", "-", "@")) for cell in header)
