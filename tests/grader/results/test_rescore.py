"""Extensions and overrides in the course file, applied to existing grades by ``course-grade rescore`` (no regrade)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from course_grader import GradeResult, TestResult, load_course, read_frame, score, write_csv, write_records
from course_grader.cli import app as cli
from course_grader.course.course_settings import CourseFileError
from course_grader.results.records import companion

TERM = """
[late]
submitted = "file-name"
flag_percent = 20

[labs."11.3"]
points = 10
deadline = 2026-10-16T23:59:00+02:00
"""
EXTENSION = """
[[extensions]]
student = "jsmith"
lab = "11.3"
deadline = 2026-10-20T23:59:00+02:00
reason = "medical certificate"
"""
OVERRIDE = """
[[overrides]]
student = "amiller"
lab = "11.3"
score = 9
reason = "appeal: test 8's message was misleading"
"""


def course_file(tmp_path: Path, *parts: str) -> Path:
    path = tmp_path / f"course{len(parts)}.toml"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def graded(submission: str, student: str, passed: int) -> GradeResult:
    tests = tuple(TestResult(name=f"t{n}", number=str(n), lab="11.3", score=float(n <= passed)) for n in range(1, 6))
    return GradeResult(submission=submission, student=student, lab="11.3", status="ok", tests=tests)


RESULTS = [
    graded("smithjudy_LATE_48213_9981299_lab_11_3.ipynb", "jsmith", 5),  # flagged LATE by Canvas
    graded("milleralex_48214_9981300_lab_11_3.ipynb", "amiller", 3),
    graded("chenbo_48215_9981301_lab_11_3.ipynb", "bchen", 4),
]


def test_an_extension_is_the_students_deadline_and_an_override_their_score(tmp_path: Path) -> None:
    term = load_course(course_file(tmp_path, TERM))
    assert score(RESULTS[0], term).score == 8  # 10 points, LATE: −20 %
    judy = score(RESULTS[0], load_course(course_file(tmp_path, TERM, EXTENSION)))
    assert (
        judy.score == 10 and "deadline extended to 2026-10-20T23:59:00+02:00 (medical certificate)" in judy.explanation
    )
    alex = score(RESULTS[1], load_course(course_file(tmp_path, TERM, OVERRIDE)))
    assert (alex.points, alex.penalty, alex.score) == (9, 0, 9)  # the override stands for points and penalty
    assert alex.explanation.startswith("3/5 tests passed: 6/10 points")  # what the tests gave, kept
    assert alex.explanation.endswith("score set to 9/10 by the course file (appeal: test 8's message was misleading)")
    assert score(RESULTS[2], load_course(course_file(tmp_path, TERM, EXTENSION, OVERRIDE))).score == 8  # bchen: none


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (EXTENSION + EXTENSION, "extensions: jsmith and 11.3 are named twice; keep one"),
        (EXTENSION.replace('"11.3"', '"11.9"'), "no lab '11.9'"),
        (EXTENSION.replace("+02:00", ""), "needs a time zone offset"),
        (OVERRIDE.replace("score = 9", "score = -1"), "greater than or equal to 0"),
        (
            OVERRIDE.replace("score = 9", "score = 11"),
            "overrides: amiller's score for 11.3 is 11, over the lab's 10 points",
        ),
        (OVERRIDE.replace('reason = "appeal: test 8\'s message was misleading"\n', ""), "reason"),
    ],
)
def test_a_wrong_extension_or_override_is_refused_naming_it(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(CourseFileError, match="course file") as refused:
        load_course(course_file(tmp_path, TERM, text))
    assert says in str(refused.value)


def test_rescore_applies_them_to_the_grades_without_a_regrade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grades = tmp_path / "grades.csv"
    write_csv(RESULTS, grades, load_course(course_file(tmp_path, TERM)))
    write_records(RESULTS, companion(grades))
    later = course_file(tmp_path, TERM, EXTENSION, OVERRIDE)
    out = tmp_path / "rescored.csv"
    assert cli.main(["rescore", str(grades), "--course", str(later), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "smithjudy_LATE_48213_9981299_lab_11_3.ipynb: 8 → 10 (" in said
    assert "milleralex_48214_9981300_lab_11_3.ipynb: 6 → 9 (" in said and "2 changed" in said
    frame = read_frame(out)
    assert list(frame["score"]) == [10, 9, 8] and list(frame["penalty"]) == [0, 0, 0]
    assert set(frame["course"]) == {load_course(later).stamp}
    before = read_frame(grades)
    kept = [column for column in before.columns if column not in ("points", "late", "penalty", "score", "course")]
    assert before[kept].equals(frame[kept])  # tests, notes, counts: as graded
    assert companion(out).read_bytes() == companion(grades).read_bytes()
    # the gradebook and the pages follow the rescored CSV
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,aliases\njsmith,J S,j@x,48213\namiller,A M,a@x,48214\nbchen,B C,b@x,48215\n")
    book = tmp_path / "gradebook.csv"
    assert cli.main(["export", str(out), "--roster", str(roster), "--course", str(later), "-o", str(book)]) == 0
    assert [row[-1] for row in csv.reader(io.StringIO(book.read_text(encoding="utf-8")))][2:] == ["10", "9", "8"]
    pages = tmp_path / "pages"
    assert cli.main(["feedback", str(companion(out)), "-o", str(pages)]) == 0
    assert "appeal: test 8&#39;s message was misleading" in (pages / "amiller_lab_11_3.html").read_text(
        encoding="utf-8"
    )


ROSTER = "id,name,email,aliases\njsmith,Judith Smith,j@x,48213\namiller,A M,a@x,48214\nbchen,B C,b@x,48215\n"


@pytest.mark.parametrize(
    ("student", "roster", "says"),
    [
        ("jsmiht", True, "student 'jsmiht' is not on the roster (roster.csv), so this override (11.3, appeal"),
        ("48213", True, "student '48213' is not on the roster (roster.csv); '48213' names jsmith there: write student"),
        ("Judith Smith", True, "(roster.csv); 'Judith Smith' names jsmith there: write student = 'jsmith', so this"),
        ("jsmiht", False, "student 'jsmiht' is not on the grades in {grades}, so this override"),
    ],
)
def test_an_override_naming_no_student_is_refused_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], student: str, roster: bool, says: str
) -> None:
    """Issue 43: a typo, a Canvas user id, a full name applied to no one and rescore said "0 changed"."""
    grades = tmp_path / "grades.csv"
    write_csv(RESULTS, grades)
    write_records(RESULTS, companion(grades))
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    named = 'roster = "roster.csv"\n' if roster else ""
    path = course_file(tmp_path, named, TERM, EXTENSION, OVERRIDE.replace('"amiller"', f'"{student}"'))
    with pytest.raises(SystemExit):
        cli.main(["rescore", str(grades), "--course", str(path), "-o", str(grades)])
    err = capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    line = text[: text.index("[[overrides]]")].count("\n") + 1  # the entry's header
    assert f"course file {path}, line {line} ([[overrides]] 1): " in err and says.format(grades=grades) in err, err
    assert read_frame(grades)["score"].tolist() == [5, 3, 4]  # nothing rewritten


def test_an_override_for_a_lab_without_a_submission_reaches_the_gradebook_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: the cell stayed empty; now it is the override's score, and rescore and export say why."""
    grades = tmp_path / "grades.csv"
    write_csv(RESULTS, grades)
    write_records(RESULTS, companion(grades))
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    oral = (
        OVERRIDE.replace('"11.3"', '"11.4"')
        .replace("score = 9", "score = 7")
        .replace("appeal: test 8's message was misleading", "oral exam")
    )
    path = course_file(tmp_path, 'roster = "roster.csv"\n', TERM, oral)
    assert cli.main(["rescore", str(grades), "--course", str(path), "-o", str(grades)]) == 0
    said = "amiller, Lab 11.4: no submission; the gradebook gets the course file's override, 7 (oral exam)"
    assert said in capsys.readouterr().out
    book = tmp_path / "gradebook.csv"
    assert cli.main(["export", str(grades), "--course", str(path), "-o", str(book)]) == 0
    assert said in capsys.readouterr().out
    rows = {row["SIS User ID"]: row for row in csv.DictReader(io.StringIO(book.read_text(encoding="utf-8")))}
    assert (rows["amiller"]["Lab 11.4"], rows["jsmith"]["Lab 11.4"]) == ("7", "")


def test_rescore_refuses_grades_without_their_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grades = tmp_path / "grades.csv"
    write_csv(RESULTS, grades)
    write_records(RESULTS[:2], companion(grades))
    with pytest.raises(SystemExit):
        cli.main(["rescore", str(grades), "--course", str(course_file(tmp_path, TERM)), "-o", str(grades)])
    assert "no record for chenbo_48215_9981301_lab_11_3.ipynb" in capsys.readouterr().err
    assert read_frame(grades)["score"].tolist() == [5, 3, 4]  # nothing rewritten


def test_a_late_flag_alone_can_be_left_to_the_lms_and_the_explanation_says_so(tmp_path: Path) -> None:
    course = load_course(course_file(tmp_path, TERM.replace("flag_percent = 20", 'flag = "lms"')))
    judy = score(RESULTS[0], course)
    assert (judy.score, judy.late) == (10, "LATE flag")
    assert judy.explanation.endswith("late (the LMS name says LATE): no penalty here, the LMS's late policy applies")
    assert score(RESULTS[0], load_course(course_file(tmp_path, TERM))).explanation.endswith(
        "how late is unknown): −20 % = −2 → 8/10"
    )
