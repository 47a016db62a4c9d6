"""Submission times from the LMS's own files (issue 29): Moodle's grading worksheet, Canvas's submissions JSON.

The sample files are the ones docs/grading.md shows (``docs/examples/``),
written from the documented formats: Moodle's worksheet with the grading
table's download headers (``Identifier``, ``Full name``, …, ``Last modified
(submission)``) and ``userdate()``'s English times, Canvas's list of
submission objects as a logged-in browser saves it (``while(1);`` first).
The class is issue 29's: one file 6 minutes late, inside the 15-minute grace
(0 %), one 8 days late (capped at 50 %), one with no submission. No kernel runs.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from course_grader import GradeOptions, GradeResult, TestResult, grade_folder
from course_grader.cli import app as cli
from course_grader.cli import grade_batch
from course_grader.course.course import Course
from course_grader.course.course_file import load_course
from course_grader.course.course_settings import CourseFileError
from course_grader.course.lms_times import SubmissionTimesError
from course_grader.course.submission_times import iso, when_submitted
from course_grader.intake.discovery import Found
from course_grader.intake.identity import submission_name
from course_grader.intake.lab_names import lab_in_name
from course_grader.intake.roster import attribute
from course_grader.results.grades_csv import read_frame
from course_grader.results.scoring import score

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
COURSE = """[late]
submitted = "manifest"
{times}
percent_per_day = 10
max_percent = 50
grace_minutes = 15
[labs."11.2"]
points = 10
deadline = 2026-10-09T23:59:00+02:00
[labs."11.3"]
points = 10
deadline = 2026-10-16T23:59:00+02:00
{lab}
"""
MOODLE = (
    "Judy Smith_55101_assignsubmission_file_lab_11_3.ipynb",
    "Alex Miller_55102_assignsubmission_file_/lab_11_3.ipynb",  # Moodle's folder form
    "Bo Chen_55103_assignsubmission_file_lab_11_3.ipynb",
)
CANVAS = (
    "smithjudy_LATE_48213_9981299_lab_11_3.ipynb",
    "milleralex_LATE_48214_9981300_lab_11_3.ipynb",
    "chenbo_48215_9981301_lab_11_3.ipynb",
)
HEADER = (
    'Identifier,"Full name","Email address",Status,Grade,"Maximum grade","Grade can be changed",'
    '"Last modified (submission)","Online text","Last modified (grade)","Feedback comments"\n'
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def course(folder: Path, times: str, *, zone: str = 'timezone = "Europe/Berlin"', lab: str = "") -> Course:
    """The course file of issue 29's lab (10 points, 10 %/day up to 50 %, 15 minutes' grace) naming ``times``."""
    return load_course(write(folder / "course.toml", COURSE.format(times=f"{times}\n{zone}", lab=lab)))


def worksheet(*rows: str) -> str:
    """A grading worksheet: Moodle's header, then ``Participant N,Name,…,<Last modified (submission)>,…`` rows."""
    lines = [
        f'"Participant {ident}","{name}",{name.split()[0].lower()}@example.edu,"Submitted for grading",,10.00,Yes,'
        f'"{when}",,-,'
        for ident, name, when in (row.split("|") for row in rows)
    ]
    return HEADER + "".join(f"{line}\n" for line in lines)


def result(submission: str, lab: str = "11.3") -> GradeResult:
    tests = tuple(TestResult(name=f"t{n}", number=n, lab=lab, score=float(n != "H1")) for n in ("1", "2", "H1", "H2"))
    return GradeResult(submission=submission, student="s", lab=lab, status="ok", tests=tests)


def scored(resolved: Course, file: str) -> tuple[str, float, float, str]:
    record = score(result(file), resolved)
    return record.late, record.penalty, record.score, record.explanation


# --- the two formats as documented ------------------------------------------------------------------


def test_moodle_worksheet_times_each_participants_files_in_the_course_time_zone(tmp_path: Path) -> None:
    resolved = course(tmp_path, f'manifest = "{EXAMPLES / "moodle-worksheet.csv"}"').for_submissions(MOODLE, "s")
    judy, alex, bo = MOODLE
    assert iso(resolved.submitted_at[judy]) == "2026-10-16T22:05:00.000000+00:00"  # 12:05 AM in Berlin, summer time
    assert scored(resolved, judy)[:3] == ("", 0, 7.5)  # 6 minutes late, inside the 15 minutes' grace: 0 %
    assert scored(resolved, alex) == (
        "8 days",
        3.75,
        3.75,
        "3/4 tests passed: 7.5/10 points; 8 days late: −50 % (10 %/day, at most 50 %) = −3.75 → 3.75/10",
    )
    assert scored(resolved, bo)[:3] == ("", 0, 7.5)  # '-': nothing submitted by the worksheet, so no time
    assert "not in the submission-time manifest (moodle-worksheet.csv): no late penalty" in scored(resolved, bo)[3]
    row = when_submitted(result(alex), Found(Path(alex)), resolved)
    assert (row.submitted, row.submitted_from) == ("2026-10-24T19:30:00.000000+00:00", "moodle-worksheet")


def test_canvas_submissions_json_as_the_browser_saves_it_times_each_users_files(tmp_path: Path) -> None:
    text = (EXAMPLES / "canvas-submissions.json").read_text(encoding="utf-8")
    assert text.startswith("while(1);")  # what Canvas sends a logged-in browser
    resolved = course(tmp_path, f'manifest = "{EXAMPLES / "canvas-submissions.json"}"', zone="")
    resolved = resolved.for_submissions(CANVAS, "s")
    judy, alex, bo = CANVAS
    assert scored(resolved, judy)[:3] == ("", 0, 7.5)  # LATE in its name, but 6 minutes, inside the grace
    assert scored(resolved, alex)[:3] == ("8 days", 3.75, 3.75)  # capped at 50 %, not one day's 10 %
    assert "not in the submission-time manifest (canvas-submissions.json)" in scored(resolved, bo)[3]
    row = when_submitted(result(judy), Found(Path(judy)), resolved)
    assert (row.submitted, row.submitted_from) == ("2026-10-16T22:05:00.000000+00:00", "canvas-submissions")


def test_the_time_alone_decides_once_canvas_gives_it_not_the_late_flag(tmp_path: Path) -> None:
    """Before, with only the name, both files lost one day's 10 % (issue 29); the flag still decides without a time."""
    by_name = load_course(
        write(tmp_path / "flag.toml", COURSE.format(times="", lab="").replace('"manifest"', '"file-name"'))
    )
    assert [scored(by_name, file)[1] for file in CANVAS[:2]] == [0.75, 0.75]
    resolved = course(tmp_path, f'manifest = "{EXAMPLES / "canvas-submissions.json"}"', zone="")
    assert [scored(resolved.for_submissions(CANVAS, "s"), file)[1] for file in CANVAS[:2]] == [0, 3.75]


# --- the time zone ----------------------------------------------------------------------------------


def test_worksheet_times_follow_the_zones_summer_time(tmp_path: Path) -> None:
    write(
        tmp_path / "w.csv",
        worksheet(
            "55101|Judy Smith|Saturday, 24 October 2026, 11:30 PM",  # CEST, +02:00
            "55102|Alex Miller|Monday, 26 October 2026, 9:05 AM",  # CET, +01:00: the clocks went back on the 25th
            "55103|Bo Chen|Sunday, 25 October 2026, 2:30 AM",  # twice that night: the earlier, the student's benefit
        ),
    )
    resolved = course(tmp_path, 'manifest = "w.csv"').for_submissions(MOODLE, "s")
    assert [iso(resolved.submitted_at[file]) for file in MOODLE] == [
        "2026-10-24T21:30:00.000000+00:00",
        "2026-10-26T08:05:00.000000+00:00",
        "2026-10-25T00:30:00.000000+00:00",
    ]
    in_new_york = course(tmp_path, 'manifest = "w.csv"', zone='timezone = "America/New_York"')
    assert iso(in_new_york.for_submissions(MOODLE, "s").submitted_at[MOODLE[1]]) == "2026-10-26T13:05:00.000000+00:00"


@pytest.mark.parametrize(
    ("zone", "says"),
    [
        ("", "w.csv (late.manifest): Moodle writes its times without an offset, in the time zone of whoever"),
        ('timezone = "Europe/Berln"', "key late.timezone: Value error, no time zone 'Europe/Berln' (an IANA name"),
        ('timezone = "../etc"', "key late.timezone: Value error, no time zone '../etc'"),
    ],
)
def test_a_worksheet_needs_a_time_zone_that_exists(tmp_path: Path, zone: str, says: str) -> None:
    write(tmp_path / "w.csv", worksheet("55101|Judy Smith|Saturday, 17 October 2026, 12:05 AM"))
    with pytest.raises(CourseFileError) as refused:
        course(tmp_path, 'manifest = "w.csv"', zone=zone)
    assert says in str(refused.value), refused.value


# --- every bad line refused with its file, line and column ------------------------------------------


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        (
            ("55101|Judy Smith|Saturday, 17 October 2026, 12:05 AM", "55102|Alex Miller|24/10/2026 21:30"),
            "w.csv (late.manifest), line 3, column 8 (Last modified (submission)): '24/10/2026 21:30' is not a "
            "time as Moodle writes it ('Tuesday, 6 October 2026, 11:59 PM'",
        ),
        (
            ("55101|Judy Smith|Friday, 17 October 2026, 12:05 AM",),
            "line 2, column 8 (Last modified (submission)): 'Friday, 17 October 2026, 12:05 AM': "
            "17 October 2026 is a Saturday, not a Friday",
        ),
        (
            ("55101|Judy Smith|Sunday, 29 March 2026, 2:30 AM",),
            "line 2, column 8 (Last modified (submission)): 'Sunday, 29 March 2026, 2:30 AM' never happened in "
            "Europe/Berlin (its clocks skip that hour)",
        ),
        (
            ("55101|Judy Smith|-", "55102|Alex Miller|-", "55101|Judy Smith|Saturday, 17 October 2026, 12:05 AM"),
            "line 4, column 1: Participant 55101 (Judy Smith) has a row already (line 2); one row per student",
        ),
        (
            ("55104|Zed Zed|Saturday, 17 October 2026, 12:05 AM",),
            "w.csv (late.manifest), line 2, column 8: Participant 55104 (Zed Zed) matches no submission under s "
            "(a Moodle download name",
        ),
    ],
    ids=["unparseable", "wrong-weekday", "skipped-hour", "two-rows", "no-submission"],
)
def test_a_bad_worksheet_row_is_refused_with_its_line_and_column(
    tmp_path: Path, rows: tuple[str, ...], says: str
) -> None:
    write(tmp_path / "w.csv", worksheet(*rows))
    with pytest.raises(SubmissionTimesError) as refused:
        course(tmp_path, 'manifest = "w.csv"').for_submissions(MOODLE, "s")
    assert says in str(refused.value) and "Moodle grading worksheet" in str(refused.value), refused.value


def test_a_worksheet_identifier_that_is_no_participant_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "w.csv", HEADER + '"Judy Smith","Judy Smith",j@x,,,10,Yes,-,,-,\n')
    with pytest.raises(SubmissionTimesError, match=r"line 2, column 1 \(Identifier\): 'Judy Smith' is not a part"):
        course(tmp_path, 'manifest = "w.csv"')


def canvas(*submissions: dict[str, Any], prefix: str = "while(1);") -> str:
    """Canvas's answer, one member a line (as a browser's raw view saves a pretty-printed answer)."""
    return prefix + json.dumps(list(submissions), indent=1)


def submission(user: object, when: object) -> dict[str, Any]:
    return {"user_id": user, "submitted_at": when, "late": True, "attempt": 1, "workflow_state": "submitted"}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (canvas(submission(48213, "2026-10-17")) + "]", "line 9, column 2: more after the list of submissions"),
        ('while(1);[{"user_id": 48213,\n "submitted_at": }]', "line 2, column 18: not JSON (Expecting value)"),
        (
            canvas(submission(48213, "2026-10-16T22:05:00Z"), submission(48214, "Oct 24, 2026 9:30pm")),
            "line 11, column 19: submitted_at 'Oct 24, 2026 9:30pm' is not an ISO 8601 time with its offset",
        ),
        (
            canvas(submission(48213, "2026-10-16T22:05:00")),
            "line 4, column 19: submitted_at '2026-10-16T22:05:00' is not an ISO 8601 time with its offset",
        ),
        (canvas(submission("smithjudy", None)), "line 3, column 14: user_id 'smithjudy' is not a Canvas user id"),
        (
            canvas(submission(48213, None), submission(48213, "2026-10-16T22:05:00Z")),
            "line 10, column 14: user 48213 has a row already (line 3); one row per student",
        ),
        (
            canvas(submission(48299, "2026-10-16T22:05:00Z")),
            "line 4, column 19: user 48299 matches no submission under s (a Canvas download name",
        ),
        (canvas(prefix="") + "\n", None),
        ('{"errors": [{"message": "user authorization required"}]}', "line 1, column 1: not a list of submissions"),
    ],
    ids=["trailing", "not-json", "unparseable", "no-offset", "user-id", "two-rows", "no-submission", "empty", "login"],
)
def test_a_bad_canvas_submission_is_refused_with_its_line_and_column(
    tmp_path: Path, text: str, says: str | None
) -> None:
    write(tmp_path / "c.json", text)
    if says is None:  # an empty list, without the browser's prefix: nobody has a time, nobody is refused
        assert course(tmp_path, 'manifest = "c.json"').for_submissions(CANVAS, "s").submitted_at == {}
        return
    with pytest.raises(SubmissionTimesError) as refused:
        course(tmp_path, 'manifest = "c.json"').for_submissions(CANVAS, "s")
    assert f"Canvas submissions JSON {tmp_path / 'c.json'} (late.manifest), {says}" in str(refused.value), refused.value


def test_a_file_of_no_known_form_is_refused_naming_its_header_and_the_forms(tmp_path: Path) -> None:
    write(tmp_path / "t.csv", "Student,ID,Submitted\nJudy,48213,2026-10-17\n")
    with pytest.raises(SubmissionTimesError) as refused:
        course(tmp_path, 'manifest = "t.csv"')
    assert "t.csv (late.manifest), line 1: not a file of submission times: it begins with Student, ID, Submitted" in (
        str(refused.value)
    )
    assert "Moodle's grading worksheet (Identifier, Full name, …, Last modified (submission)" in str(refused.value)


def test_a_moodle_row_never_times_a_canvas_download_of_the_same_number(tmp_path: Path) -> None:
    write(tmp_path / "w.csv", worksheet("48213|Judy Smith|Saturday, 17 October 2026, 12:05 AM"))
    with pytest.raises(SubmissionTimesError, match="matches no submission under s"):
        course(tmp_path, 'manifest = "w.csv"').for_submissions(CANVAS, "s")


def test_pages_from_some_shards_records_leave_an_unmatched_row_out(tmp_path: Path) -> None:
    resolved = course(tmp_path, f'manifest = "{EXAMPLES / "moodle-worksheet.csv"}"')
    assert list(resolved.for_submissions(MOODLE[1:], ".", strict=False).submitted_at) == [MOODLE[1]]


# --- one file per lab -------------------------------------------------------------------------------


CANVAS_11_2 = canvas(submission(48213, "2026-10-09T21:00:00Z"), submission(48214, "2026-10-11T10:00:00Z"))
FOLDERS = (
    "lab_11_2/smithjudy_48213_1_notebook.ipynb",  # the name names no lab: its folder says which assignment
    "lab_11_2/milleralex_LATE_48214_2_lab_11_2.ipynb",
    "lab_11_3/smithjudy_LATE_48213_9981299_lab_11_3.ipynb",
    "lab_11_3/milleralex_LATE_48214_9981300_lab_11_3.ipynb",
)


def test_each_labs_own_file_times_that_labs_files_only(tmp_path: Path) -> None:
    """Canvas's user id is the same in every assignment: a lab's own file times the files handed in to it."""
    write(tmp_path / "c112.json", CANVAS_11_2)
    settings = COURSE.format(times="", lab=f'manifest = "{EXAMPLES / "canvas-submissions.json"}"')
    settings = settings.replace('[labs."11.2"]\n', '[labs."11.2"]\nmanifest = "c112.json"\n')
    resolved = load_course(write(tmp_path / "course.toml", settings)).for_submissions(FOLDERS, "s")
    assert [iso(resolved.submitted_at[file])[:16] for file in FOLDERS] == [
        "2026-10-09T21:00",
        "2026-10-11T10:00",
        "2026-10-16T22:05",
        "2026-10-24T19:30",
    ]
    assert [score(result(f, lab_in_name(f) or "11.2"), resolved).late for f in FOLDERS] == ["", "2 days", "", "8 days"]


def test_one_file_for_every_lab_is_refused_when_a_user_has_files_of_two_labs(tmp_path: Path) -> None:
    write(tmp_path / "c112.json", CANVAS_11_2)
    with pytest.raises(SubmissionTimesError) as refused:
        course(tmp_path, 'manifest = "c112.json"', zone="").for_submissions(FOLDERS, "s")
    assert "line 4, column 19: user 48213 has files of Lab 11.2 and Lab 11.3, but one LMS assignment's times" in str(
        refused.value
    )


def test_a_file_two_times_files_time_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "c113.json", canvas(submission(48213, "2026-10-16T22:05:00Z")))
    times = f'manifest = "{EXAMPLES / "canvas-submissions.json"}"'
    with pytest.raises(SubmissionTimesError) as refused:
        course(tmp_path, times, zone="", lab='manifest = "c113.json"').for_submissions(CANVAS, "s")
    assert f"{tmp_path / 'c113.json'} (labs.11.3.manifest), line 4, column 19: " in str(refused.value)
    assert "'smithjudy_LATE_48213_9981299_lab_11_3.ipynb' has a time already, from Canvas submissions JSON" in str(
        refused.value
    )


def test_a_labs_file_is_refused_where_no_time_is_read_from_a_file(tmp_path: Path) -> None:
    text = COURSE.format(times="", lab='manifest = "c113.json"').replace('"manifest"', '"file-name"')
    with pytest.raises(CourseFileError, match=r"key labs\.11\.3\.manifest: a times file is read only with \[late\] s"):
        load_course(write(tmp_path / "course.toml", text))


# --- through the command ----------------------------------------------------------------------------


def stand_in(path: Path, options: GradeOptions, *, root: str | None = None) -> GradeResult:
    """A notebook graded without a kernel: 3 of 4 tests pass in every file (importable by a spawned worker)."""
    student, source, _ = attribute(path, root, options.identity.names)
    graded = result(submission_name(path, root))
    return graded.model_copy(update={"student": student, "student_source": source})


@pytest.mark.slow  # grades a batch through the command twice, and writes its pages: make test, not make check
def test_the_command_writes_which_file_gave_each_time_and_stops_on_a_bad_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in MOODLE:
        write(tmp_path / "s" / name, "{}")
    course(tmp_path, f'manifest = "{EXAMPLES / "moodle-worksheet.csv"}"')
    monkeypatch.setattr(grade_batch, "grade_folder", lambda *a, **k: grade_folder(*a, **k, grade=stand_in))
    monkeypatch.chdir(tmp_path)
    argv = ["s", "--course", "course.toml", "--no-sandbox", "--no-progress", "--out", "grades.csv"]
    assert cli.main(argv) == 0
    frame = read_frame(tmp_path / "grades.csv").set_index("file")
    assert list(frame.loc[list(MOODLE), "submitted_from"]) == ["moodle-worksheet", "moodle-worksheet", "modified"]
    assert list(frame.loc[list(MOODLE), "penalty"]) == [0, 3.75, 0]
    assert cli.main(["feedback", "grades.jsonl", "-o", "pages"]) == 0  # scored again from the records: the same times
    pages = [page.read_text(encoding="utf-8") for page in (tmp_path / "pages").glob("*.html")]
    assert sum("8 days late" in page for page in pages) == 1
    write(tmp_path / "w.csv", worksheet("55109|Zed Zed|Saturday, 17 October 2026, 12:05 AM"))
    course(tmp_path, 'manifest = "w.csv"')
    (tmp_path / "grades.csv").unlink()
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert (
        stopped.value.code == 2
        and "line 2, column 8: Participant 55109 (Zed Zed) matches no submission under s" in (capsys.readouterr().err)
    )
    assert not (tmp_path / "grades.csv").exists()


# --- the LMS's own order of attempts, pages, another assignment's file (issue 44, issue 43) -------------------


def attempts(user: int, *tries: tuple[int, str], assignment: int = 3313) -> dict[str, Any]:
    """A submission saved with ``include[]=submission_history``: each attempt's time and attachment."""
    history = [
        {"attempt": n, "submitted_at": when, "attachments": [{"id": attachment, "display_name": "lab_11_3.ipynb"}]}
        for n, (attachment, when) in enumerate(tries, start=1)
    ]
    latest = history[-1]
    return {**submission(user, latest["submitted_at"]), "assignment_id": assignment, "attempt": latest["attempt"],
            "attachments": latest["attachments"], "submission_history": history}  # fmt: skip


RESUBMITTED = ("omarnasser_48217_9981027_lab_11_3.ipynb", "omarnasser_LATE_48217_9981028_lab_11_3-1.ipynb")
LAB_TIMES = '[labs."11.3"]\npoints = 10\ndeadline = 2026-10-16T23:59:00+02:00\nmanifest = "{file}"'


def per_lab(folder: Path, file: str, lab: str = "11.3") -> Course:
    """The course file of issue 29's labs with ``file`` as ``lab``'s own times file."""
    text = COURSE.format(times='timezone = "Europe/Berlin"', lab=f'manifest = "{file}"' if lab == "11.3" else "")
    if lab != "11.3":
        text = text.replace(f'[labs."{lab}"]\n', f'[labs."{lab}"]\nmanifest = "{file}"\n')
    return load_course(write(folder / "course.toml", text))


def test_each_canvas_attempt_has_its_own_time_from_the_submission_history(tmp_path: Path) -> None:
    """Issue 44: the JSON's top-level time is the latest attempt's; a first attempt handed in on time is on time."""
    first, second = (9981027, "2026-10-16T17:00:00Z"), (9981028, "2026-10-17T01:00:00Z")
    write(tmp_path / "c113.json", canvas(attempts(48217, first, second)))
    resolved = per_lab(tmp_path, "c113.json").for_submissions(RESUBMITTED, "s")
    assert [iso(resolved.submitted_at[file])[:16] for file in RESUBMITTED] == ["2026-10-16T17:00", "2026-10-17T01:00"]
    assert [scored(resolved, file)[0] for file in RESUBMITTED] == ["", "1 day"]
    assert resolved.caveats == {} and resolved.handed_in == dict.fromkeys(RESUBMITTED, "11.3")


def test_without_the_history_one_time_for_a_users_files_is_said_on_each(tmp_path: Path) -> None:
    write(tmp_path / "c113.json", canvas(submission(48217, "2026-10-17T01:00:00Z")))
    resolved = per_lab(tmp_path, "c113.json").for_submissions(RESUBMITTED, "s")
    assert set(resolved.caveats) == set(RESUBMITTED)
    assert resolved.caveats[RESUBMITTED[0]].startswith(
        "its own time is unknown: the Canvas submissions JSON (c113.json) gives user 48217 one time for their "
        "files, the latest attempt's; save it with ?include[]=submission_history"
    )


def test_a_lab_11_2_notebook_among_the_11_3_assignments_attachments_was_handed_in_there(tmp_path: Path) -> None:
    """Sofia's 11.2 notebook uploaded to the 11.3 assignment: 11.3's JSON lists it, so it is 11.3's handing in, and
    late by the stricter of the two deadlines (``[late] wrong_assignment``), a week late for 11.2."""
    files = ("lopezsofia_48216_1_lab_11_2.ipynb", "lopezsofia_48216_2_lab_11_2.ipynb")
    write(tmp_path / "c112.json", canvas(attempts(48216, (1, "2026-10-09T10:00:00Z"), assignment=3312)))
    write(tmp_path / "c113.json", canvas(attempts(48216, (2, "2026-10-16T18:00:00Z"))))
    text = COURSE.format(times="", lab='manifest = "c113.json"')
    text = text.replace('[labs."11.2"]\n', '[labs."11.2"]\nmanifest = "c112.json"\n')
    resolved = load_course(write(tmp_path / "course.toml", text)).for_submissions(files, "s")
    assert resolved.handed_in == {files[0]: "11.2", files[1]: "11.3"}
    wrong = result(files[1], lab="11.2")
    record = score(wrong, resolved)
    assert (record.late, record.penalty) == ("7 days", 3.75)  # 3/4 passed: 7.5 points, 50 % at most
    assert record.explanation.startswith(
        "3/4 tests passed: 7.5/10 points; handed in through the Lab 11.3 assignment (its Canvas submissions JSON, "
        "c113.json), so by the stricter of its deadline and Lab 11.2's own, Lab 11.2's: 7 days late"
    )
    for rule, late in (("assignment", ""), ("lab", "7 days")):
        ruled = load_course(
            write(tmp_path / "course.toml", text.replace("[late]\n", f'[late]\nwrong_assignment = "{rule}"\n'))
        )
        assert score(wrong, ruled.for_submissions(files, "s")).late == late, rule


def test_another_assignments_submissions_json_is_refused(tmp_path: Path) -> None:
    """Issue 43: 11.2's JSON named as 11.3's set 11.3's penalties (10 → 5, "65 days late"); its attachments are none
    of the 11.3 downloads', so it is refused, naming its assignment_id."""
    write(tmp_path / "c112.json", canvas(attempts(48217, (9981001, "2026-08-12T10:00:00Z"), assignment=3312)))
    with pytest.raises(SubmissionTimesError) as refused:
        per_lab(tmp_path, "c112.json").for_submissions(RESUBMITTED, "s")
    assert "user 48217 matches no submission under s: none of their files here is an attachment this file lists " in (
        str(refused.value)
    )
    assert (
        "(9981001; a Canvas download name carries it after the user id). Is it another assignment's submissions "
        "JSON (assignment_id 3312)?" in str(refused.value)
    )


def test_another_labs_file_is_refused_by_its_assignment_id_its_name_or_its_file_name(tmp_path: Path) -> None:
    """One assignment's JSON named for two labs, an assignment's name (``include[]=assignment``) naming another lab,
    a file named for another lab: each refused when the course file is read, naming the key."""
    one = canvas(attempts(48217, (9981027, "2026-10-16T17:00:00Z")))
    write(tmp_path / "c112.json", one)
    write(tmp_path / "c113.json", one)
    text = COURSE.format(times="", lab='manifest = "c113.json"')
    both = text.replace('[labs."11.2"]\n', '[labs."11.2"]\nmanifest = "c112.json"\n')
    with pytest.raises(CourseFileError) as refused:
        load_course(write(tmp_path / "course.toml", both))
    assert (
        "key labs.11.3.manifest: c113.json holds the submissions of assignment 3313, as labs.11.2.manifest's "
        "c112.json does: one of them is the other lab's file"
    ) in str(refused.value)
    titled = json.loads(one.removeprefix("while(1);"))
    titled[0]["assignment"] = {"id": 3313, "name": "Lab 11.2: group interactions"}
    write(tmp_path / "c113.json", "while(1);" + json.dumps(titled))
    with pytest.raises(CourseFileError, match=r"c113\.json holds the submissions of the assignment 'Lab 11\.2: group"):
        load_course(write(tmp_path / "course.toml", text))
    write(tmp_path / "lab_11_2-submissions.json", one)
    with pytest.raises(CourseFileError, match=r"lab_11_2-submissions\.json is named for Lab 11\.2, not Lab 11\.3"):
        per_lab(tmp_path, "lab_11_2-submissions.json")


def test_a_times_file_in_pages_is_read_as_one_a_list_or_a_folder(tmp_path: Path) -> None:
    """The Canvas API answers in pages (``?page=2``): several files, or a folder of them, are one times file; a user
    in two pages, or pages of two assignments, are refused."""
    pages = [
        canvas(attempts(48213, (9981299, "2026-10-16T20:05:00Z"))),
        canvas(attempts(48214, (9981300, "2026-10-24T19:30:00Z"))),
    ]
    for number, page in enumerate(pages, start=1):
        write(tmp_path / "pages" / f"p{number}.json", page)
    files = ("smithjudy_48213_9981299_lab_11_3.ipynb", "milleralex_LATE_48214_9981300_lab_11_3.ipynb")
    as_list = load_course(
        write(tmp_path / "course.toml", COURSE.format(times="", lab='manifest = ["pages/p1.json", "pages/p2.json"]'))
    )
    as_folder = per_lab(tmp_path, "pages")
    for resolved in (as_list, as_folder):
        assert [scored(resolved.for_submissions(files, "s"), file)[0] for file in files] == ["", "8 days"]
    write(tmp_path / "pages" / "p2.json", pages[0])
    with pytest.raises(
        SubmissionTimesError,
        match=r"p2.json \(labs.11.3.manifest\), line 4, column 19: user 48213 has a row already \(.*p1.json, line 4\)",
    ):
        per_lab(tmp_path, "pages")
    write(tmp_path / "pages" / "p2.json", canvas(attempts(48214, (9981300, "2026-10-24T19:30:00Z"), assignment=3312)))
    with pytest.raises(SubmissionTimesError, match="its pages are of different assignments"):
        per_lab(tmp_path, "pages")


def test_a_moodle_participants_files_are_the_assignments_and_a_reupload_comes_after(tmp_path: Path) -> None:
    """Moodle's participant id is the assignment's own: a 11.2 notebook in the 11.3 worksheet's submission was handed
    in to 11.3; ``… (1).ipynb`` is the later upload of a name, so the first one's time is not its own (a note)."""
    files = (
        "Anna Kowalski_55318_assignsubmission_file_/lab_11_3.ipynb",
        "Anna Kowalski_55318_assignsubmission_file_/lab_11_3 (1).ipynb",
        "Anna Kowalski_55318_assignsubmission_file_/lab_11_2_group_interactions.ipynb",
    )
    write(tmp_path / "w.csv", worksheet("55318|Anna Kowalski|Friday, 16 October 2026, 9:00 PM"))
    resolved = per_lab(tmp_path, "w.csv").for_submissions(files, "s")
    assert resolved.handed_in == dict.fromkeys(files, "11.3") and list(resolved.caveats) == [files[0]]
    assert resolved.caveats[files[0]].endswith(
        "gives Participant 55318 (Anna Kowalski) one time, the submission's last change; "
        "'Anna Kowalski_55318_assignsubmission_file_/lab_11_3 (1).ipynb' is a later upload of this file's name, "
        "so this one came earlier"
    )
    assert [(known.user, known.name, known.identity) for known in resolved.known] == [  # who the participant is
        ("55318", "Anna Kowalski", ("anna@example.edu",))
    ]


def test_a_manifest_in_nfc_names_the_nfd_files_a_mac_unzips(tmp_path: Path) -> None:
    """Issue 44: a manifest row as LMS exports and typed names write it (NFC) names the folder a Mac's unzip of a
    Moodle download leaves (NFD), as roster names already did; case aside too."""
    decomposed = unicodedata.normalize("NFD", "José García_310004_assignsubmission_file_/lab_11_3.ipynb")
    write(
        tmp_path / "m.csv",
        "file,submitted_at\njosé garcía_310004_assignsubmission_file_/lab_11_3.ipynb,2026-10-16T20:00:00Z\n",
    )
    resolved = per_lab(tmp_path, "m.csv").for_submissions([decomposed], "s")
    assert iso(resolved.submitted_at[decomposed]) == "2026-10-16T20:00:00.000000+00:00"
