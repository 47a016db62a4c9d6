"""Feedback the LMS takes back: the pages zipped, each named as Canvas's or Moodle's download named the submission."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from course_grader import GradeResult, TestResult, write_feedback, write_records
from course_grader.cli import app as cli
from course_grader.publish.feedback import lms_zip, page_paths
from course_grader.publish.lms_feedback import Lms, entry_name


def graded(submission: str, student: str, lab: str = "11.3") -> GradeResult:
    tests = (TestResult(name="t", number="7", lab=lab, score=1.0),)
    return GradeResult(submission=submission, student=student, lab=lab, status="ok", tests=tests)


RESULTS = [
    graded("smithjudy_48213_9981299_lab_11_3_build_context.ipynb", "jsmith"),
    graded("lab_11_4/smithjudy_LATE_48213_9981301_lab_11_4.ipynb", "jsmith", "11.4"),  # an assignment's folder
    graded("Alex Miller_55102_assignsubmission_file_/lab_11_3.ipynb", "amiller"),
    graded("bchen/lab_11_3.ipynb", "bchen"),  # not a download name: no entry
    graded('a\\b:"c_61_62_lab_11_3.ipynb', "mallory"),  # Canvas-shaped, with what no zip entry may hold
]


@pytest.mark.parametrize(
    ("lms", "expected"),
    [
        (
            "canvas",
            [
                "smithjudy_48213_9981299_feedback_lab_11_3.html",
                "smithjudy_LATE_48213_9981301_feedback_lab_11_4.html",
                None,
                None,
                "a_b_c_61_62_feedback_lab_11_3.html",
            ],
        ),
        ("moodle", [None, None, "Alex Miller_55102_assignsubmission_file_/feedback_lab_11_3.html", None, None]),
    ],
)
def test_each_page_is_named_as_the_lms_named_the_download(lms: Lms, expected: list[str | None]) -> None:
    assert [entry_name(result, lms) for result in RESULTS] == expected


def test_the_zip_holds_the_pages_and_the_command_names_what_it_left_out(tmp_path: Path) -> None:
    folder = tmp_path / "feedback"
    write_feedback(RESULTS, folder, rules_base="rules.md")
    (folder / "feedback-canvas.zip").write_bytes(b"an earlier run's zip of every assignment")
    lines = lms_zip(RESULTS, folder, "canvas").splitlines()
    assert lines[:2] == [
        f"wrote {folder / 'feedback-canvas-lab_11_3.zip'}: 2 pages for canvas's bulk feedback upload of the Lab 11.3 "
        "assignment",
        f"wrote {folder / 'feedback-canvas-lab_11_4.zip'}: 1 pages for canvas's bulk feedback upload of the Lab 11.4 "
        "assignment",
    ]
    assert "Alex Miller_55102_assignsubmission_file_/lab_11_3.ipynb, bchen/lab_11_3.ipynb" in lines[2]
    pages = {result.submission: path for result, path in page_paths(RESULTS, folder)}
    with zipfile.ZipFile(folder / "feedback-canvas-lab_11_3.zip") as archive:  # one zip per assignment (issue 44)
        assert archive.namelist() == [
            "a_b_c_61_62_feedback_lab_11_3.html",
            "smithjudy_48213_9981299_feedback_lab_11_3.html",
        ]
        entry = "smithjudy_48213_9981299_feedback_lab_11_3.html"
        assert archive.read(entry) == pages[RESULTS[0].submission].read_bytes()
    with zipfile.ZipFile(folder / "feedback-canvas-lab_11_4.zip") as archive:
        assert archive.namelist() == ["smithjudy_LATE_48213_9981301_feedback_lab_11_4.html"]
    assert not list(folder.glob(".*.part")) and not (folder / "feedback-canvas.zip").exists()  # no stale zip left


def test_a_page_goes_to_the_zip_of_the_assignment_its_file_was_handed_in_to(tmp_path: Path) -> None:
    """A Lab 11.2 notebook handed in to the 11.3 assignment: Canvas attaches its page to that submission, in 11.3's."""
    wrong = graded("lopezsofia_48230_9981400_lab_11_2_group_interactions.ipynb", "slopez", "11.2")
    wrong = wrong.model_copy(update={"handed_in": "11.3"})
    folder = tmp_path / "feedback"
    write_feedback([wrong], folder, rules_base="rules.md")
    lms_zip([wrong], folder, "canvas")
    assert [path.name for path in folder.glob("*.zip")] == ["feedback-canvas-lab_11_3.zip"]


def test_the_feedback_command_and_the_grade_verb_take_lms_zip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "grades.jsonl"
    write_records(RESULTS, records)
    assert cli.main(["feedback", str(records), "-o", str(tmp_path / "pages"), "--lms-zip", "moodle"]) == 0
    assert "feedback-moodle-lab_11_3.zip" in capsys.readouterr().out
    with zipfile.ZipFile(tmp_path / "pages" / "feedback-moodle-lab_11_3.zip") as archive:
        assert archive.namelist() == ["Alex Miller_55102_assignsubmission_file_/feedback_lab_11_3.html"]
    with pytest.raises(SystemExit):
        cli.main([str(tmp_path), "--out", str(tmp_path / "g.csv"), "--lms-zip", "canvas"])
    assert "--lms-zip packs the feedback pages: give --feedback DIR too" in capsys.readouterr().err
