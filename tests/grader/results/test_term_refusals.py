"""Instructor input is refused when wrong, never silently used (issue 27): shards, manifests, course files, rosters.

No kernel runs: the command line grades through a stand-in for ``grade_folder``
whose result depends on the file alone (``graded_by_name``), so what is checked
is what the term's commands do with the results: the CSVs, ``merge``,
``feedback`` and ``export``.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from term_secrets import OTHER, TERM

from course_grader import GradeOptions, GradeResult, TestResult
from course_grader.cli import app as cli
from course_grader.cli import grade_batch
from course_grader.course.course_file import load_course
from course_grader.course.course_settings import CourseFileError
from course_grader.intake.lab_names import lab_in_name
from course_grader.intake.roster import KnownId, Names, attribute, load_roster
from course_grader.intake.shard import shard_of
from course_grader.publish import gradebook
from course_grader.publish.feedback import write_feedback
from course_grader.results.grades_csv import GradesCsvError, read_frame, write_frame
from course_grader.results.merge import merge
from course_grader.results.scoring import score

# shards and regrades through the CLI, each with a spawned similarity pass: make test, not make check
pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
COURSE = f"""seed = "{TERM}"
[late]
submitted = "manifest"
manifest = "submitted.csv"
percent_per_day = 50
[labs."11.3"]
points = {{points}}
deadline = 2026-10-16T23:59:00Z
"""
FILES = ("alice/lab_11_3.ipynb", "bob/lab_11_3.ipynb", "carol/lab_11_3.ipynb", "frank/lab_11_3.ipynb")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def graded_by_name(folder: Path, options: GradeOptions, *, shard: tuple[int, int] | None = None, **_: Any) -> list:
    """What ``grade_folder`` returns, without kernels: 3 of 4 tests pass, each file of its shard, in path order."""
    results = []
    for name in grade_batch.listing(folder):
        if shard is not None and shard_of(name, shard[1]) != shard[0]:
            continue
        student, source, notes = attribute(folder / name, str(folder), options.identity.names)
        lab = lab_in_name(name) or "11.3"
        tests = tuple(
            TestResult(name=f"t{n}", number=n, lab=lab, score=float(n != "H1")) for n in ("1", "2", "H1", "H2")
        )
        results.append(
            GradeResult(
                submission=name,
                student=student,
                student_source=source,
                lab=lab,
                status="ok",
                tests=tests,
                seed=options.judging.seed,
                notes=notes,
            )
        )
    return results


@pytest.fixture
def term(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A term folder: ``submissions/`` (two files in each of two shards), ``course.toml`` (10 points) and its manifest."""
    for name in FILES:
        write(tmp_path / "submissions" / name, "{}")
    assert sorted(shard_of(name, 2) for name in FILES) == [1, 1, 2, 2]
    write(tmp_path / "course.toml", COURSE.format(points=10))
    write(tmp_path / "submitted.csv", "file,submitted_at\nalice/lab_11_3.ipynb,2026-10-17T10:00:00Z\n")
    monkeypatch.setattr(grade_batch, "grade_folder", graded_by_name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def grade(term: Path, *flags: str, folder: str = "submissions", course: str = "course.toml") -> int:
    return cli.main([folder, "--course", course, "--no-sandbox", "--no-progress", *flags])


def shards(term: Path, *flags: str) -> list[Path]:
    paths = []
    for index in (1, 2):
        paths.append(term / f"shard-{index}.csv")
        assert grade(term, "--shard", f"{index}/2", "--out", str(paths[-1]), *flags) == 0
    return paths


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        cli.main(list(argv))
    assert stopped.value.code == 2
    return capsys.readouterr().err


# --- merge ----------------------------------------------------------------------------------------


def test_shards_of_one_run_merge_into_the_unsharded_csv(term: Path) -> None:
    assert grade(term, "--out", "whole.csv") == 0
    first, second = shards(term)
    assert f"; seed {TERM}; course " in str(read_frame(first).columns[-1]) and "(4 entries)" in str(
        read_frame(first).columns[-1]
    )
    assert cli.main(["merge", str(second), str(first), "-o", "merged.csv"]) == 0
    assert (term / "merged.csv").read_bytes() == (term / "whole.csv").read_bytes()
    course = load_course(term / "course.toml")  # the stamp: what scores, who the files are (the run's names), the path
    assert read_frame(term / "whole.csv")["course"].iloc[0].startswith(f"{course.fingerprint}.")
    assert read_frame(term / "whole.csv")["course"].iloc[0].endswith(f" {course.path}")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("seed", f"was graded with seed {OTHER}, {{first}} with seed {TERM}"),
        ("course", "was scored by another course file"),
        ("folder", "graded another folder than {first}"),
    ],
)
def test_merge_refuses_shards_of_another_run(
    term: Path, capsys: pytest.CaptureFixture[str], change: str, says: str
) -> None:
    """Another secret for shard 2, a course file where the lab is worth 100 points, or shard 2 of another folder."""
    first, _ = shards(term)
    write(term / "other.toml", COURSE.format(points=100))
    shutil.copytree(term / "submissions", term / "other")
    write(term / "other" / "erin" / "lab_11_3.ipynb", "{}")
    flags = {
        "seed": ["--seed", OTHER],
        "course": ["--course", "other.toml"],
        "folder": [],
    }[change]
    argv = ["other" if change == "folder" else "submissions", "--course", "course.toml", *flags]
    assert cli.main([*argv, "--no-sandbox", "--no-progress", "--shard", "2/2", "--out", "odd.csv"]) == 0
    err = refused(capsys, "merge", str(first), "odd.csv", "-o", "merged.csv")
    assert "odd.csv" in err and says.format(first=first) in err, err
    assert not (term / "merged.csv").exists()


def test_merge_refuses_a_shard_relabelled_as_another(term: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Shard 1 given again as shard 2: its files would count twice and shard 2's students vanish."""
    first, _ = shards(term)
    relabelled = write(term / "relabelled.csv", first.read_text(encoding="utf-8").replace("shard 1/2", "shard 2/2"))
    err = refused(capsys, "merge", str(first), str(relabelled), "-o", "merged.csv")
    assert "is in" in err and str(relabelled) in err
    alone = write(term / "alone.csv", first.read_text(encoding="utf-8").replace("shard 1/2", "shard 2/2"))
    write(term / "empty-1.csv", first.read_text(encoding="utf-8").splitlines()[0] + "\n")
    err = refused(capsys, "merge", "empty-1.csv", str(alone), "-o", "merged.csv")
    assert "says it is shard 2/2, but its row 'bob/lab_11_3.ipynb' is shard 1/2's" in err, err


def test_merge_refuses_a_missing_shard_and_one_given_twice(term: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = shards(term)
    assert "shard 2/2 missing" in refused(capsys, "merge", str(first), "-o", "merged.csv")
    assert "given twice" in refused(capsys, "merge", str(first), str(first), str(second), "-o", "merged.csv")


@pytest.mark.parametrize(
    ("column", "value", "says"),
    [
        ("score", "99.0", "score 99, but points 7.5 − penalty"),
        ("points", "99.0", "points 99 out of 10"),
        ("total", "99.0", "total 99 of 4, but its 4 tests add up to 3"),
        ("11.3 H2 tH2", "99.0", "test '11.3 H2 tH2' scores 99, but a test scores 0 to 1"),
    ],
)
def test_merge_refuses_an_impossible_score(
    term: Path, capsys: pytest.CaptureFixture[str], column: str, value: str, says: str
) -> None:
    first, second = shards(term)
    rows = list(csv.reader(io.StringIO(second.read_text(encoding="utf-8"))))
    rows[1][rows[0].index(column)] = value
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    second.write_text(buffer.getvalue(), encoding="utf-8")
    err = refused(capsys, "merge", str(first), str(second), "-o", "merged.csv")
    assert f"{second}: its row {rows[1][2]!r} has an impossible score: {says}" in err, err


def test_shards_without_a_run_record_still_merge_but_not_two_course_files(term: Path) -> None:
    """Shard CSVs of an older grader (no run record, no ``course`` column): their rows are still checked."""
    first, second = shards(term)
    old = [_as_older_grader(path) for path in (first, second)]
    assert len(merge(old)) == 4
    write(term / "other.toml", COURSE.format(points=100))
    assert grade(term, "--shard", "2/2", "--out", "odd.csv", course="other.toml") == 0
    with pytest.raises(GradesCsvError, match=r"Lab 11\.3 is worth 100 points there but 10 in"):
        merge([old[0], _as_older_grader(term / "odd.csv")])


def _as_older_grader(path: Path) -> Path:
    frame = read_frame(path).drop(columns=["course"])
    last = str(frame.columns[-1])
    write_frame(frame.rename(columns={last: last[: last.index("; seed")]}), path)
    return path


# --- the late-time manifest -----------------------------------------------------------------------


def test_manifest_paths_are_matched_as_the_folder_names_them(term: Path) -> None:
    write(
        term / "submitted.csv",
        "file,submitted_at\n"
        "./alice/lab_11_3.ipynb,2026-10-17T10:00:00Z\n"
        "BOB/Lab_11_3.ipynb,2026-10-17T10:00:00Z\n"
        "submissions/carol/lab_11_3.ipynb,2026-10-17T10:00:00Z\n"
        f"{term}/submissions/frank/lab_11_3.ipynb,2026-10-16T10:00:00Z\n",
    )
    assert grade(term, "--out", "grades.csv") == 0
    frame = read_frame(term / "grades.csv").set_index("file")
    assert list(frame["late"]) == ["1 day", "1 day", "1 day", ""]  # alice, bob, carol: a day late; frank on time
    assert list(frame["penalty"]) == [3.75, 3.75, 3.75, 0.0] and list(frame["score"]) == [3.75, 3.75, 3.75, 7.5]


def test_a_manifest_entry_that_names_no_file_stops_the_command(term: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        term / "submitted.csv",
        "file,submitted_at\nalice/lab_11_3.ipynb,2026-10-17T10:00:00Z\nzed/lab_11_3.ipynb,2026-10-17T10:00:00Z\n",
    )
    err = refused(capsys, "submissions", "--course", "course.toml", "--no-sandbox", "--out", "grades.csv")
    assert "submitted.csv, line 3: 'zed/lab_11_3.ipynb' matches no submission under submissions" in err, err
    assert not (term / "grades.csv").exists()


def test_two_manifest_entries_for_one_file_are_refused(term: Path) -> None:
    write(
        term / "submitted.csv",
        "file,submitted_at\nalice/lab_11_3.ipynb,2026-10-17T10:00:00Z\n./alice/lab_11_3.ipynb,2026-10-18T10:00:00Z\n",
    )
    with pytest.raises(CourseFileError, match=r"line 3: '\./alice/lab_11_3\.ipynb' names 'alice/lab_11_3\.ipynb'"):
        load_course(term / "course.toml").for_submissions(FILES, "submissions")
    write(term / "submitted.csv", "file,submitted_at\na.ipynb,2026-10-17T10:00:00Z\na.ipynb,2026-10-18T10:00:00Z\n")
    with pytest.raises(CourseFileError, match=r"line 3: 'a\.ipynb' is there twice"):
        load_course(term / "course.toml")


# --- feedback from records ------------------------------------------------------------------------


def test_feedback_from_records_scores_by_the_course_file_the_grades_used(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert grade(term, "--out", "grades.csv") == 0
    assert cli.main(["feedback", "grades.jsonl", "-o", "pages"]) == 0
    page = (term / "pages" / "alice_lab_11_3.html").read_text(encoding="utf-8")
    assert "1 day late" in page and "no late policy" not in page
    write(term / "course.toml", COURSE.format(points=20))  # changed since grading
    err = refused(capsys, "feedback", "grades.jsonl", "-o", "pages")
    assert "has changed since the grades were scored by" in err, err
    write(term / "other.toml", COURSE.format(points=10).replace("50", "10"))
    err = refused(capsys, "feedback", "grades.jsonl", "--course", "other.toml", "-o", "pages")
    assert "is not what the grades were scored by" in err, err


# --- the course file's weights --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weights", "says"),
    [
        ("{ H9 = 2 }", "key labs.11.3.weights.H9: Lab 11.3 has no test 'H9'"),
        ("{ fixed_costs_first = 2 }", "key labs.11.3.weights.fixed_costs_first: Lab 11.3 has no test"),
        (
            "{ 7 = 0, 8 = 0, 9 = 0, H1 = 0, H2 = 0, H3 = 0, H4 = 0 }",
            "key labs.11.3.weights: every test of Lab 11.3 weighs 0",
        ),
        (
            "{ 7 = 2, fixed_costs_come_first = 3 }",
            "key labs.11.3.weights.7: test 7 is weighted twice, as '7' (2) and by its name 'fixed_costs_come_first' (3)",
        ),
    ],
)
def test_weights_that_cannot_be_meant_are_refused(tmp_path: Path, weights: str, says: str) -> None:
    path = write(tmp_path / "course.toml", f'[labs."11.3"]\npoints = 10\nweights = {weights}\n')
    with pytest.raises(CourseFileError) as error:
        load_course(path)
    assert str(path) in str(error.value) and says in str(error.value), error.value
    write(path, '[labs."11.3"]\npoints = 10\nweights = { H1 = 2, 8 = 0, trims_only_at_group_boundaries = 1 }\n')
    assert load_course(path).lab("11.3").weights["H1"] == 2


# --- the roster and the gradebook -----------------------------------------------------------------


@pytest.fixture
def roster(tmp_path: Path) -> Path:
    return write(
        tmp_path / "roster.csv",
        "id,name,email,aliases\njsmith,Judith Smith,,smithjudy;48213\namiller,Alex Miller,,milleralex;48214;lee\n"
        "bchen,Bo Chen,,chenbo;48215\nbo2,Bo Chen,,48216\nlee,Lee Park,,\n",
    )


def test_a_user_id_and_a_login_naming_two_students_is_a_conflict(roster: Path) -> None:
    names = Names.of("canvas", None, load_roster(roster))
    who, source, notes = attribute("/s/milleralex_48213_1_lab_11_3.ipynb", "/s", names)
    assert (
        source == "unknown (Canvas name)" and who == "milleralex_48213"
    )  # the LMS's id kept: never one with a namesake
    assert notes[0].startswith("conflict: '48213' names jsmith but 'milleralex' names amiller on the roster")
    assert attribute("/s/smithjudy_48213_1_lab_11_3.ipynb", "/s", names)[0] == "jsmith"  # both agree
    assert attribute("/s/nobody_48213_1_lab_11_3.ipynb", "/s", names)[0] == "jsmith"  # one names no one


NAMESAKES = (
    "Wei Zhang_55103_assignsubmission_file_/lab_11_4.ipynb",
    "Wei Zhang_55104_assignsubmission_file_/lab_11_4.ipynb",
)
WORKSHEET = tuple(
    KnownId(user=user, name="Wei Zhang", identity=(mail,), source="the grading worksheet w.csv")
    for user, mail in (("55103", "wei.zhang@example.edu"), ("55104", "wei.zhang.2@example.edu"))
)


def test_two_students_with_one_name_are_told_apart_by_what_the_worksheet_says_of_their_ids(tmp_path: Path) -> None:
    """Issue 44: two Moodle students named Wei Zhang were both unknown, then one person; the worksheet's email of
    each participant id names one roster student, and a note says so (no roster written by hand)."""
    roster = load_roster(
        write(tmp_path / "r.csv", "id,name,email,aliases\nwzhang,Wei Zhang,wei.zhang@example.edu,\n"
              "wzhang2,Wei Zhang,wei.zhang.2@example.edu,\n")
    )  # fmt: skip
    names = Names.of("moodle", None, roster, WORKSHEET)
    said = [attribute(f"/s/{file}", "/s", names) for file in NAMESAKES]
    assert [(who, source) for who, source, _ in said] == [
        ("wzhang", "Moodle name (wei.zhang@example.edu, from the grading worksheet w.csv) on the roster"),
        ("wzhang2", "Moodle name (wei.zhang.2@example.edu, from the grading worksheet w.csv) on the roster"),
    ]
    assert said[1][2] == (
        "'Wei Zhang' names 2 students on the roster (wzhang, wzhang2): the grading worksheet w.csv gives id 55104 "
        "as 'wei.zhang.2@example.edu', which names wzhang2",
    )
    unknown = [attribute(f"/s/{file}", "/s", Names.of("moodle", None, roster))[0] for file in NAMESAKES]
    assert unknown == ["Wei Zhang_55103", "Wei Zhang_55104"]  # unknown, but never one person (issue 43)


def test_without_a_roster_two_participants_with_one_name_are_kept_apart(tmp_path: Path) -> None:
    """Issue 43: they merged into one student, and one got no page; now by the worksheet's identity, else by the
    participant ids two of one assignment's files carry."""
    bare = Names.of("moodle").with_listing(NAMESAKES)
    apart = [attribute(f"/s/{file}", "/s", bare) for file in NAMESAKES]
    assert [who for who, _, _ in apart] == ["Wei Zhang_55103", "Wei Zhang_55104"]
    assert apart[0][2] == (
        "'Wei Zhang' is the name of two students of one assignment here: kept apart by their Moodle ids (Wei Zhang_55103)",
    )
    known = Names.of("moodle", known=WORKSHEET)
    assert [attribute(f"/s/{file}", "/s", known)[0] for file in NAMESAKES] == [
        "wei.zhang@example.edu",
        "wei.zhang.2@example.edu",
    ]
    assert (
        attribute("/s/Bo Chen_55105_assignsubmission_file_/lab_11_4.ipynb", "/s", known)[0] == "Bo Chen"
    )  # no namesake
    results = [
        GradeResult(submission=file, student=who, lab="11.4", status="ok")
        for file, (who, _, _) in zip(NAMESAKES, apart)
    ]
    pages = write_feedback(results, tmp_path / "pages", rules_base="rules.md")
    assert len(pages) == 3  # a page each, and the index


def test_an_unknown_or_ambiguous_file_reaches_no_real_students_row(
    tmp_path: Path, roster: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Bo Chen`` names two students; ``lee`` is one student's id and another's alias: neither decides."""
    folder = tmp_path / "submissions"
    for name in ("Bo Chen/lab_11_3.ipynb", "lee/lab_11_3.ipynb", "jsmith/lab_11_3.ipynb", "amiller/lab_11_3.ipynb"):
        write(folder / name, "{}")
    names = Names.of("plain", None, load_roster(roster))
    ambiguous = attribute(folder / "Bo Chen/lab_11_3.ipynb", str(folder), names)
    assert ambiguous[1] == "unknown (folder)" and "'Bo Chen' names 2 students" in ambiguous[2][0]
    assert attribute(folder / "lee/lab_11_3.ipynb", str(folder), names)[:2] == ("unknown:lee", "unknown (folder)")
    monkeypatch.setattr(grade_batch, "grade_folder", graded_by_name)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["submissions", "--roster", str(roster), "--no-sandbox", "--no-progress", "--out", "g.csv"]) == 0
    capsys.readouterr()
    assert cli.main(["export", "g.csv", "--roster", str(roster), "-o", "book.csv"]) == 0
    book = {row["SIS User ID"]: row for row in csv.DictReader((tmp_path / "book.csv").open(encoding="utf-8"))}
    assert book["bchen"]["Lab 11.3"] == book["bo2"]["Lab 11.3"] == book["lee"]["Lab 11.3"] == ""
    assert book["jsmith"]["Lab 11.3"] == book["amiller"]["Lab 11.3"] == "3"
    assert "2 counting rows name no roster student" in capsys.readouterr().err
    # a CSV whose unknown row names a real student (an older grader's): its student_from still keeps it out
    frame = read_frame(tmp_path / "g.csv")
    frame.loc[frame["file"] == "Bo Chen/lab_11_3.ipynb", "student"] = "bchen"
    built = gradebook.build(frame, load_roster(roster))
    assert built.unknown == 2 and "Bo Chen,48215,bchen,,,\n" in built.text


# --- lateness follows the assignment --------------------------------------------------------------


def test_a_notebook_handed_in_through_another_assignment_is_late_by_that_ones_deadline(tmp_path: Path) -> None:
    """A Lab 11.2 notebook in the 11.3 assignment's download, LATE there: 5/10, not 10/10 by 11.2's (no) deadline."""
    path = write(
        tmp_path / "course.toml",
        '[late]\nsubmitted = "file-name"\nflag_percent = 50\n'
        '[labs."11.2"]\npoints = 10\n[labs."11.3"]\npoints = 10\ndeadline = 2026-10-16T23:59:00Z\n',
    )
    course = load_course(path)
    where = "lab_11_3/smithjudy_LATE_48213_9981377_lab_11_2_group_interactions.ipynb"
    tests = tuple(TestResult(name=f"t{n}", number=str(n), lab="11.2", score=1.0) for n in range(4))
    handed_in = GradeResult(submission=where, student="jsmith", lab="11.2", status="ok", tests=tests)
    record = score(handed_in, course)
    assert (record.points, record.penalty, record.score, record.late) == (10, 5, 5, "LATE flag")
    assert "handed in through the Lab 11.3 assignment (its folder lab_11_3/), so by its deadline" in record.explanation
    on_time = handed_in.model_copy(update={"submission": "lab_11_3/smithjudy_48213_9981377_lab_11_2.ipynb"})
    assert score(on_time, course).score == 10
    names = Names.of("auto", None, load_roster(EXAMPLES / "roster.csv"))
    assert attribute(f"/s/{where}", "/s", names) == ("jsmith", "Canvas name (48213) on the roster", ())


def test_feedback_refuses_without_the_course_file_the_grades_used(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert grade(term, "--out", "grades.csv") == 0
    shutil.move(term / "course.toml", term / "moved.toml")
    err = refused(capsys, "feedback", "grades.jsonl", "-o", "pages")
    assert f"scored by the course file {term / 'course.toml'}, which cannot be used here" in err, err
    assert "give it with --course FILE" in err
    assert cli.main(["feedback", "grades.jsonl", "--course", "moved.toml", "-o", "pages"]) == 0  # the same file
    assert "1 day late" in (term / "pages" / "alice_lab_11_3.html").read_text(encoding="utf-8")


def test_feedback_from_an_older_csv_needs_the_course_file_and_matches_its_scores(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A grades CSV without the ``course`` column (an older grader) whose scores show a course file was used."""
    assert grade(term, "--out", "grades.csv") == 0
    frame = read_frame(term / "grades.csv").drop(columns=["course"])
    write_frame(frame, term / "grades.csv")
    assert "does not name (an older course-grade wrote it)" in refused(capsys, "feedback", "grades.jsonl", "-o", "p")
    assert cli.main(["feedback", "grades.jsonl", "--course", "course.toml", "-o", "pages"]) == 0
    frame.loc[frame["file"] == "alice/lab_11_3.ipynb", "score"] = 7.5  # as if nobody had been late
    write_frame(frame, term / "grades.csv")
    err = refused(capsys, "feedback", "grades.jsonl", "--course", "course.toml", "-o", "pages")
    assert "grades.csv: 'alice/lab_11_3.ipynb' scores 7.5 there, but 3.75 under" in err, err


def test_a_late_flag_costs_its_percent_even_where_the_graded_lab_has_no_deadline(tmp_path: Path) -> None:
    """A Lab 11.2 notebook in a flat download of the 11.3 assignment: the LMS's LATE flag is the only witness."""
    path = write(
        tmp_path / "course.toml",
        '[late]\nsubmitted = "file-name"\nflag_percent = 50\n'
        '[labs."11.2"]\npoints = 10\n[labs."11.3"]\npoints = 10\ndeadline = 2026-10-16T23:59:00Z\n',
    )
    tests = tuple(TestResult(name=f"t{n}", number=str(n), lab="11.2", score=1.0) for n in range(4))
    flagged = GradeResult(
        submission="smithjudy_LATE_48213_9981377_lab_11_2.ipynb", student="jsmith", lab="11.2", status="ok", tests=tests
    )
    record = score(flagged, load_course(path))
    assert (record.score, record.late) == (5, "LATE flag")
    assert "no deadline for Lab 11.2 here, but late (the LMS name says LATE" in record.explanation
    unflagged = flagged.model_copy(update={"submission": "smithjudy_48213_9981377_lab_11_2.ipynb"})
    assert score(unflagged, load_course(path)).score == 10
