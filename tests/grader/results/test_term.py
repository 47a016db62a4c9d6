"""The term around the grader: the course file, the roster and LMS names, scores, shards and merge, the gradebook.

No kernel runs here: batches grade through ``grade_folder``'s seam with a
stand-in (``stand_in``) whose result depends on the file alone, so a sharded
run and an unsharded one can be compared byte for byte. The same commands in
real sandboxes are ``tests/grader/cli/test_term_class.py``.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from term_secrets import OTHER, TERM, beside

from course_grader import (
    GradeOptions,
    GradeResult,
    Identity,
    JudgingSettings,
    Limits,
    SandboxSettings,
    TestResult,
    grade_folder,
)
from course_grader.batch.batch import flag_duplicates
from course_grader.cli import app as cli
from course_grader.cli import bundle as bundle_command
from course_grader.cli import course_file
from course_grader.cli.grade import build_parser
from course_grader.course.course import Course
from course_grader.course.course_file import load_course
from course_grader.course.course_settings import CourseFileError
from course_grader.course.submission_times import days_late
from course_grader.intake.identity import submission_name
from course_grader.intake.roster import CANVAS, MOODLE, Names, RosterError, attribute, lms_name, load_roster
from course_grader.intake.shard import ShardError, parse_shard, shard_of
from course_grader.judging.secret import derived
from course_grader.results.grades_csv import GradesCsvError, read_frame, render, row_key
from course_grader.results.grades_frame import results_frame, write_csv
from course_grader.results.merge import merge
from course_grader.results.records import companion, counted_files, read_records, with_counts, write_records
from course_grader.results.scoring import score

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


# --- the course file ------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_documented_example_course_file_loads_with_its_roster_and_manifest() -> None:
    course = load_course(EXAMPLES / "course.toml")
    assert course.settings.seed == "term.secret" and course.settings.duplicates == "latest"
    assert course.lab("11.3").weights == {"H1": 2, "H2": 2} and course.lab("capstone").points == 20
    assert course.limits("capstone", Limits()).budget == 300 and course.limits("11.1", Limits()).budget == 240
    assert course.column("capstone") == "Capstone: compaction lifecycle" and course.column("11.2") == "Lab 11.2"
    roster = load_roster(course.roster_path)  # type: ignore[arg-type]
    assert [s.id for s in roster.students] == ["jsmith", "amiller", "bchen"]
    assert course.submitted_at["smithjudy_48213_9981299_lab_11_3.ipynb"].isoformat() == "2026-10-16T21:40:00+02:00"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("sede = 1\n", "key sede: Extra inputs are not permitted"),
        ('[labs."11.9"]\npoints = 3\n', "key labs: Value error, no lab '11.9'"),
        ('[labs."11.2"]\npoints = -1\n', "key labs.11.2.points: Input should be greater than 0"),
        (
            '[labs."11.2"]\ndeadline = 2026-10-09T23:59:00\n',
            "key labs.11.2.deadline: Value error, a deadline needs a time zone",
        ),
        ('[late]\nsubmitted = "manifest"\n', 'key late: submitted = "manifest" needs manifest = "FILE"'),
        ('[limits]\ntimeout = "ten"\n', "key limits.timeout: Input should be a valid number"),
        ('duplicates = "newest"\n', "key duplicates: Input should be 'latest', 'earliest' or 'best'"),
        ('pattern = "(?P<who>x)"\n', "key pattern: Value error, the pattern needs a named group"),
        ("seed = [\n", "not valid TOML"),
        ('language = "fr"\n', "key language: Value error, unknown language 'fr'; the course speaks en, zh"),
        ("language = 3\n", "key language: Input should be a valid string"),
    ],
)
def test_a_bad_course_file_is_refused_naming_the_file_and_the_key(tmp_path: Path, text: str, says: str) -> None:
    path = write(tmp_path / "course.toml", text)
    with pytest.raises(CourseFileError) as refused:
        load_course(path)
    assert str(path) in str(refused.value) and says in str(refused.value)


def test_the_language_is_read_as_the_course_names_it_and_in_no_fingerprint(tmp_path: Path) -> None:
    """A course file has the fingerprint of one without ``language`` (what the pages say scores nothing, issue 45;
    who the files are, the roster and how names are read, is the stamp's other part: not hashed here); a Chinese
    one also knows the fingerprint issue 32's grader gave it, with its language in it."""
    import hashlib

    bare, english = (
        write(tmp_path / "bare.toml", f'seed = "{TERM}"\n'),
        write(tmp_path / "en.toml", f'seed = "{TERM}"\nlanguage = "en"\n'),
    )
    chinese = [
        write(tmp_path / f"{name}.toml", f'seed = "{TERM}"\nlanguage = "{name}"\n')
        for name in ("zh", "zh_CN", "zh-Hans")
    ]
    assert [load_course(path).language for path in (bare, english, *chinese)] == ["en", "en", "zh", "zh", "zh"]
    left_out = {"language", "sections", "roster", "names", "pattern"}
    before = hashlib.sha256(load_course(bare).settings.model_dump_json(exclude=left_out).encode()).hexdigest()[:16]
    assert {load_course(path).fingerprint for path in (bare, english, *chinese)} == {before}
    spoken = load_course(chinese[0]).settings.model_dump_json(exclude=left_out - {"language"})
    assert load_course(chinese[0]).fingerprints_before == (hashlib.sha256(spoken.encode()).hexdigest()[:16],)
    assert load_course(english).fingerprints_before == (before,)


def test_the_command_refuses_a_bad_course_file_before_grading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "s").mkdir()
    path = write(tmp_path / "course.toml", "[limits]\ntimout = 3\n")
    with pytest.raises(SystemExit) as stopped:
        cli.main([str(tmp_path / "s"), "--course", str(path), "--no-sandbox"])
    assert stopped.value.code == 2 and "key limits.timout" in capsys.readouterr().err


def test_flags_override_the_course_file_which_overrides_the_defaults(tmp_path: Path) -> None:
    path = write(
        tmp_path / "course.toml", f'seed = "{TERM}"\n[limits]\ntimeout = 4\n[labs."11.3"]\ntimeout = 2\nbudget = 99\n'
    )
    parser = build_parser()
    course = load_course(path)
    given = parser.parse_args(["x", "--course", str(path)])
    assert (
        course_file.seed(parser, given, course) == TERM and course_file.limits(parser, given, course).cell_timeout == 4
    )
    assert dict(course_file.lab_limits(given, course))["11.3"].cell_timeout == 2
    flags = parser.parse_args(["x", "--course", str(path), "--timeout", "8", "--seed", OTHER])
    assert (
        course_file.seed(parser, flags, course) == OTHER and course_file.limits(parser, flags, course).cell_timeout == 8
    )
    assert (
        dict(course_file.lab_limits(flags, course))["11.3"].cell_timeout,
        dict(course_file.lab_limits(flags, course))["11.3"].budget,
    ) == (8, 99)
    bare = parser.parse_args(["x"])
    assert course_file.limits(parser, bare, Course()) == Limits() and course_file.lab_limits(bare, Course()) == ()


def test_days_late_count_started_days_after_the_grace() -> None:
    deadline = datetime(2026, 10, 9, 21, 59, tzinfo=UTC)
    at = lambda text: datetime.fromisoformat(text)  # noqa: E731 - a table of times
    assert days_late(at("2026-10-09T23:59:00+02:00"), deadline) == 0
    assert days_late(at("2026-10-10T00:10:00+02:00"), deadline, grace_minutes=15) == 0
    assert days_late(at("2026-10-10T00:20:00+02:00"), deadline, grace_minutes=15) == 1
    assert days_late(at("2026-10-11T23:59:00+02:00"), deadline) == 2
    assert days_late(at("2026-10-11T23:59:01+02:00"), deadline) == 3


# --- the roster and LMS names ------------------------------------------------------------------------


@pytest.fixture
def names() -> Names:
    return Names.of("auto", None, load_roster(EXAMPLES / "roster.csv"))


@pytest.mark.parametrize(
    ("path", "student", "source"),
    [
        ("smithjudy_48213_9981299_lab_11_3.ipynb", "jsmith", "Canvas name (48213) on the roster"),
        ("smithjudy_LATE_48213_9981377_lab_11_3-1.ipynb", "jsmith", "Canvas name (48213) on the roster"),  # a re-upload
        (
            "milleralex_99999_1_lab_11_2.ipynb",
            "amiller",
            "Canvas name (milleralex) on the roster",
        ),  # user id unknown: login
        ("Judy Smith_55101_assignsubmission_file_lab_11_4.ipynb", "jsmith", "Moodle name (Judy Smith) on the roster"),
        (
            "Alex Miller_55102_assignsubmission_file_/lab_11_4.ipynb",
            "amiller",
            "Moodle name (Alex Miller) on the roster",
        ),
        ("bchen/lab_11_1.ipynb", "bchen", "folder (bchen) on the roster"),
        ("bo.chen_lab_11_1.ipynb", "bchen", "file name (bo.chen) on the roster"),  # the email's local part
    ],
)
def test_lms_download_names_map_to_one_roster_id(names: Names, path: str, student: str, source: str) -> None:
    assert attribute(f"/s/{path}", "/s", names) == (student, source, ())


def test_a_name_the_roster_does_not_hold_is_unknown_and_says_so(names: Names) -> None:
    who, source, notes = attribute("/s/doejane_77777_1_lab_11_1.ipynb", "/s", names)
    assert (who, source) == ("doejane_77777", "unknown (Canvas name)")
    assert notes == (
        "unknown student: '77777' or 'doejane' is not on the roster (roster.csv); graded, but no roster "
        "student gets this grade",
    )


def test_a_learner_cannot_take_another_name_by_naming_the_upload_like_a_download(names: Names) -> None:
    """The pattern is anchored: the LMS's own prefix comes first, whatever the learner called the file."""
    who, source, _ = attribute("/s/chenbo_48215_9_smithjudy_48213_9981299_lab_11_3.ipynb", "/s", names)
    assert (who, source) == ("bchen", "Canvas name (48215) on the roster")
    assert attribute("/s/bchen/smithjudy_48213_1_lab_11_3.ipynb", "/s", names)[0] == "bchen"  # the folder decides
    assert attribute("/s/bchen/Judy Smith_1_assignsubmission_file_lab.ipynb", "/s", names)[0] == "bchen"


def test_a_name_two_students_share_decides_nothing(tmp_path: Path) -> None:
    roster = load_roster(
        write(tmp_path / "r.csv", "id,name,email,aliases\na,Judy Smith,,smithjudy\nb,Judy Smith,,smithjudy\n")
    )
    _, source, notes = attribute("/s/smithjudy_1_2_lab_11_1.ipynb", "/s", Names.of("canvas", None, roster))
    assert source == "unknown (Canvas name)" and "'smithjudy' names 2 students on the roster (a, b)" in notes[0]


def test_a_custom_pattern_from_the_course_file(tmp_path: Path) -> None:
    pattern = r"(?P<user>\d+)-(?P<login>[a-z]+)-"
    roster = load_roster(write(tmp_path / "r.csv", "id,name,email,aliases\nk1,Kim,,kim\n"))
    assert attribute("/s/12-kim-lab_11_1.ipynb", "/s", Names.of("auto", pattern, roster))[:2] == (
        "k1",
        "LMS name (kim) on the roster",
    )
    assert lms_name("/s/12-kim-lab_11_1.ipynb", "/s", (pattern,)) is not None
    assert lms_name("/s/x/12-kim-lab_11_1.ipynb", "/s", (pattern,)) is None


def test_canvas_and_moodle_patterns_read_their_parts() -> None:
    canvas = lms_name("smithjudy_LATE_48213_9981299_lab_11_3.ipynb", None, (CANVAS,))
    assert canvas is not None and (canvas.login, canvas.late, canvas.user, canvas.submission) == (
        "smithjudy",
        True,
        "48213",
        "9981299",
    )
    moodle = lms_name("/s/Judy Smith_48213_assignsubmission_file_/lab_11_3.ipynb", "/s", (MOODLE,))
    assert moodle is not None and (moodle.name, moodle.user, moodle.late) == ("Judy Smith", "48213", False)
    assert lms_name("alice_lab_11_3.ipynb", None, (CANVAS, MOODLE)) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name,email\nx,y\n", "needs a header with at least the column id"),
        ("id,name\na,A\na,B\n", "line 3: the id 'a' is there twice"),
        ("id,name\n,A\n", "line 2: no id"),
    ],
)
def test_a_bad_roster_is_refused(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(RosterError, match=says):
        load_roster(write(tmp_path / "r.csv", text))


# --- scores ---------------------------------------------------------------------------------------


def result(
    submission: str,
    lab: str = "11.3",
    passed: tuple[bool, ...] = (True, True, False, True),
    student: str = "s",
    submitted: str = "",
) -> GradeResult:
    numbers = ("1", "2", "H1", "H2")
    tests = tuple(TestResult(name=f"t{n}", number=n, lab=lab, score=float(ok)) for n, ok in zip(numbers, passed))
    return GradeResult(
        submission=submission,
        student=student,
        lab=lab,
        status="ok",
        tests=tests,
        submitted=submitted,
        submitted_from="manifest" if submitted else "",
    )


def test_without_a_course_file_every_test_is_a_point_and_nothing_is_late() -> None:
    record = score(result("a.ipynb"))
    assert (record.points, record.max_points, record.penalty, record.score, record.late) == (3, 4, 0, 3, "")
    assert record.explanation == "3/4 tests passed: 3/4 points"


def test_weights_points_and_the_late_penalty_of_the_course_file() -> None:
    course = load_course(EXAMPLES / "course.toml")  # 11.3: 10 points, H1 and H2 weigh 2; 10 %/day, at most 50 %
    on_time = score(result("smithjudy_48213_9981299_lab_11_3.ipynb"), course)
    assert (on_time.points, on_time.max_points, on_time.penalty, on_time.late) == (6.67, 10, 0, "")
    late = score(result("smithjudy_LATE_48213_9981377_lab_11_3-1.ipynb"), course)  # 2026-10-18 09:12: 2 started days
    assert (late.points, late.late, late.penalty, late.score) == (6.67, "2 days", 1.33, 5.34)
    assert late.explanation == (
        "3/4 tests passed: 6.67/10 points; 2 days late: −20 % (10 %/day, at most 50 %) = −1.33 → 5.34/10"
    )
    assert late.submitted == "2026-10-18T07:12:00.000000+00:00"
    unknown = score(result("elsewhere.ipynb"), course)
    assert unknown.penalty == 0 and "not in the submission-time manifest" in unknown.explanation
    assert score(GradeResult(submission="x", student="s", lab=None, status="error"), course).max_points == 0


def test_a_late_flag_in_the_lms_name_costs_the_flag_percent(tmp_path: Path) -> None:
    path = write(
        tmp_path / "course.toml",
        '[late]\nsubmitted = "file-name"\npercent_per_day = 10\nflag_percent = 25\n'
        '[labs."11.3"]\ndeadline = 2026-10-16T23:59:00Z\n',
    )
    course = load_course(path)
    flagged = score(result("smithjudy_LATE_48213_9981377_lab_11_3.ipynb", passed=(True,) * 4), course)
    assert (flagged.late, flagged.penalty, flagged.score) == ("LATE flag", 1, 3)
    assert score(result("smithjudy_48213_9981377_lab_11_3.ipynb", passed=(True,) * 4), course).penalty == 0


# --- shards and merge -----------------------------------------------------------------------------


def stand_in(path: Path, options: GradeOptions, *, root: str | None = None) -> GradeResult:
    """A grade that depends on the file alone (its name's length), importable by a spawned worker."""
    from course_grader.intake.lab_names import lab_in_name
    from course_grader.intake.roster import attribute as who_is

    student, source, notes = who_is(path, root, options.identity.names)
    lab = lab_in_name(path) or "11.1"
    passed = tuple(bool((len(path.name) + n) % 3) for n in range(4))
    tests = tuple(
        TestResult(name=f"t{n}", number=n, lab=lab, score=float(ok)) for n, ok in zip(("1", "2", "H1", "H2"), passed)
    )
    return GradeResult(
        submission=submission_name(path, root),
        student=student,
        student_source=source,
        lab=lab,
        status="ok",
        tests=tests,
        seed=options.judging.seed,
        budget=options.sandbox.limits.budget,
        notes=notes,
    )


def make_folder(root: Path) -> None:
    for name in (
        "smithjudy_48213_9981299_lab_11_3.ipynb",
        "smithjudy_LATE_48213_9981377_lab_11_3-1.ipynb",
        "Alex Miller_55102_assignsubmission_file_/lab_11_4.ipynb",
        "milleralex_48214_5_lab_11_2.ipynb",
        "chenbo_48215_6_lab_11_1.ipynb",
        "chenbo_48215_7_lab_11_1-1.ipynb",
        "chenbo_48215_8_lab_11_1-2.ipynb",
        "=HYPERLINK_1_2_lab_11_5.ipynb",
        "nobody_lab_capstone.ipynb",
        "bchen/lab_11_4.ipynb",
    ):
        write(root / name, "{}")
    for number, path in enumerate(sorted(root.rglob("*.ipynb"))):
        os.utime(path, ns=(1_700_000_000_000_000_000 + number * 1000, 1_700_000_000_000_000_000 + (number % 4) * 1000))
    (root / "locked").mkdir()
    os.chmod(root / "locked", 0)


def test_a_shard_is_a_fixed_share_of_the_folder_by_path() -> None:
    assert parse_shard("2/3") == (2, 3)
    for bad in ("0/3", "4/3", "3", "a/b"):
        with pytest.raises(ShardError):
            parse_shard(bad)
    names = [f"student{i}/lab_11_{i % 5 + 1}.ipynb" for i in range(300)]
    shares = [shard_of(name, 3) for name in names]
    assert shares == [shard_of(name, 3) for name in reversed(names)][::-1]  # not the listing order
    assert {1, 2, 3} == set(shares) and all(60 < shares.count(i) < 140 for i in (1, 2, 3))
    # the same on every machine and Python (SHA-256, not hash()): `printf alice/lab_11_3.ipynb | sha256sum` starts 8c056b521afa1235
    assert shard_of("alice/lab_11_3.ipynb", 3) == 0x8C056B521AFA1235 % 3 + 1 == 1


@pytest.mark.slow  # several seconds: make test, not make check
def test_three_shards_merged_are_byte_for_byte_the_unsharded_csv(tmp_path: Path) -> None:
    """Under each duplicates policy, with duplicates falling in different shards, a formula-like name, an unknown
    student, an unreadable folder: merge writes exactly what the unsharded run writes."""
    root = tmp_path / "submissions"
    make_folder(root)
    for name in ("course.toml", "roster.csv", "submitted.csv"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    course = load_course(tmp_path / "course.toml")
    options = GradeOptions(
        identity=Identity(names=Names.of("auto", None, load_roster(tmp_path / "roster.csv"))),
        judging=JudgingSettings(seed=5),
    )
    try:
        whole = grade_folder(root, options, progress=False, grade=stand_in, course=course)
        parts = [
            grade_folder(root, options, progress=False, grade=stand_in, course=course, shard=(i, 3)) for i in (1, 2, 3)
        ]
    finally:
        os.chmod(root / "locked", 0o755)
    assert sorted(r.submission for part in parts for r in part) == sorted(r.submission for r in whole)
    assert all(parts), "each of the three shards holds something here"
    dupes = [r.submission for part in parts for r in part if r.student == "bchen" and r.lab == "11.1"]
    assert len({shard_of(name, 3) for name in dupes}) > 1, "the duplicates must fall in different shards"
    assert not any("duplicate" in " ".join(r.notes) for part in parts for r in part), (
        "a shard leaves duplicates to merge"
    )
    unflagged = sorted((r for part in parts for r in part), key=lambda r: row_key(r.submission))
    for policy in ("latest", "earliest", "best"):
        policed = course.model_copy(update={"settings": course.settings.model_copy(update={"duplicates": policy})})
        expected = render(
            results_frame(whole if policy == "latest" else flag_duplicates(unflagged, policy, policed), policed)
        )
        paths = []
        for index, part in enumerate(parts, start=1):
            paths.append(tmp_path / f"shard-{index}-{policy}.csv")
            write_csv(part, paths[-1], policed, shard=f"shard {index}/3, duplicates: {policy}")
        assert render(merge(paths[::-1])) == expected, policy
        assert "'=HYPERLINK" in expected and "duplicate: bchen has 3 Lab 11.1 submissions" in expected
    counted = {r.submission for r in whole if r.counts and r.student in ("bchen", "jsmith")}
    assert counted == {
        "chenbo_48215_6_lab_11_1.ipynb",
        "smithjudy_LATE_48213_9981377_lab_11_3-1.ipynb",
        "bchen/lab_11_4.ipynb",
    }
    assert frame_column(paths[0]) == "shard 1/3, duplicates: best"


def frame_column(path: Path) -> str:
    return str(read_frame(path).columns[-1])


def test_merge_refuses_an_incomplete_or_mixed_set_of_shards(tmp_path: Path) -> None:
    results = [result("a/lab_11_3.ipynb", student="a")]
    for index, total in ((1, 3), (2, 3), (2, 2)):
        write_csv(
            results if index == 1 else [],
            tmp_path / f"{index}-{total}.csv",
            shard=f"shard {index}/{total}, duplicates: latest",
        )
    write_csv(results, tmp_path / "whole.csv")
    with pytest.raises(GradesCsvError, match="shard 3/3 missing"):
        merge([tmp_path / "1-3.csv", tmp_path / "2-3.csv"])
    with pytest.raises(GradesCsvError, match="split differently"):
        merge([tmp_path / "1-3.csv", tmp_path / "2-2.csv"])
    with pytest.raises(GradesCsvError, match="given twice"):
        merge([tmp_path / "2-3.csv", tmp_path / "2-3.csv"])
    with pytest.raises(GradesCsvError, match="not a shard's CSV"):
        merge([tmp_path / "whole.csv"])


def test_the_merge_command_writes_what_the_whole_run_would(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [result(f"{s}/lab_11_3.ipynb", student=s) for s in ("b", "a", "c")]
    for index in (1, 2):
        part = [r for r in rows if shard_of(r.submission, 2) == index]
        write_csv(part, tmp_path / f"{index}.csv", shard=f"shard {index}/2, duplicates: latest")
        write_records(part, companion(tmp_path / f"{index}.csv"))  # what each shard's batch writes beside its CSV
    write_csv(sorted(rows, key=lambda r: r.submission), tmp_path / "whole.csv")
    assert (
        cli.main(["merge", str(tmp_path / "1.csv"), str(tmp_path / "2.csv"), "-o", str(tmp_path / "merged.csv")]) == 0
    )
    assert (tmp_path / "merged.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert "merged 2 shards: 3 rows" in capsys.readouterr().out
    merged = read_records(companion(tmp_path / "merged.csv"))  # the report and the pages read the joined records
    assert [r.submission for r in merged] == ["a/lab_11_3.ipynb", "b/lab_11_3.ipynb", "c/lab_11_3.ipynb"]
    assert merged == with_counts(sorted(rows, key=lambda r: r.submission), counted_files(tmp_path / "whole.csv"))


def test_a_grades_csv_reads_back_to_what_wrote_it() -> None:
    results = [
        result("=x/lab_11_3.ipynb", student="=x"),
        result("'=y/lab_11_3.ipynb", student="'=y", submitted="2026-01-01"),
        GradeResult(submission="z", student="z", lab=None, status="error", notes=("a | b", "-1")),
    ]
    text = render(results_frame(results))
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"roundtrip-{os.getpid()}.csv"
    try:
        path.write_text(text, encoding="utf-8")
        assert render(read_frame(path)) == text
    finally:
        path.unlink()


# --- the gradebook --------------------------------------------------------------------------------


def test_export_writes_one_row_per_roster_student_and_a_column_per_lab_in_course_order(tmp_path: Path) -> None:
    course = load_course(EXAMPLES / "course.toml")
    rows = [
        result("smithjudy_48213_9981299_lab_11_3.ipynb", student="jsmith"),
        result(
            "Alex Miller_55102_assignsubmission_file_/lab_11_4.ipynb", lab="11.4", student="amiller", passed=(True,) * 4
        ),
        result("nobody_lab_11_1.ipynb", lab="11.1", student="nobody").model_copy(
            update={"student_source": "unknown (file name)"}
        ),
        result("bchen/lab_11_1.ipynb", lab="11.1", student="bchen").model_copy(update={"counts": False}),
    ]
    write_csv(rows, tmp_path / "grades.csv", course)
    out = tmp_path / "gradebook.csv"
    assert (
        cli.main(["export", str(tmp_path / "grades.csv"), "--course", str(EXAMPLES / "course.toml"), "-o", str(out)])
        == 0
    )
    table = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert table[0] == [
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
    assert table[1] == [
        "    Points Possible",
        "",
        "",
        "",
        "",
        "10",
        "10",
        "10",
        "10",
        "10",
        "20",
    ]  # max_points, else points
    assert table[2] == ["Judith Smith", "48213", "jsmith", "judith.smith@example.edu", "A", "", "", "6.67", "", "", ""]
    assert table[3][:5] == ["Alex Miller", "48214", "amiller", "alex.miller@example.edu", "A"] and table[3][8] == "10"
    assert table[4][5] == "" and len(table) == 5  # bchen's row did not count; nobody is not on the roster
    moodle = tmp_path / "moodle.csv"
    assert (
        cli.main(
            [
                "export",
                str(tmp_path / "grades.csv"),
                "--roster",
                str(EXAMPLES / "roster.csv"),
                "--format",
                "moodle",
                "--missing",
                "zero",
                "-o",
                str(moodle),
            ]
        )
        == 0
    )
    table = list(csv.reader(io.StringIO(moodle.read_text(encoding="utf-8"))))
    assert table[0] == ["ID number", "Email address", "Full name", "Lab 11.1", "Lab 11.3", "Lab 11.4"]
    assert table[1] == ["jsmith", "judith.smith@example.edu", "Judith Smith", "0", "6.67", "0"]  # the CSV's score


def test_export_needs_a_roster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_csv([result("a.ipynb")], tmp_path / "grades.csv")
    with pytest.raises(SystemExit):
        cli.main(["export", str(tmp_path / "grades.csv"), "-o", str(tmp_path / "g.csv")])
    assert "export needs the class" in capsys.readouterr().err


# --- per-lab limits and noise ---------------------------------------------------------------------


def test_a_labs_own_limits_apply_once_its_lab_is_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbformat
    from grading_corpus import solution

    from course_grader.judging import grade
    from course_grader.judging.kernel_run import KernelRun
    from course_grader.sandbox.cell_run import CellRun
    from course_grader.sandbox.limits import Limits

    seen: list[Limits] = []

    def no_kernel(lab: str, setup: tuple[str, ...], exercises: tuple[str, ...], options: GradeOptions) -> KernelRun:
        seen.append(options.sandbox.limits)
        return KernelRun(
            setup=[CellRun("ok")],
            exercises=[CellRun("ok")],
            functions=CellRun("ok", reply={"group_interactions": True}),
        )

    monkeypatch.setattr(grade, "run_notebook", no_kernel)
    nbformat.write(solution("11.2"), tmp_path / "alice_lab_11_2.ipynb")
    nbformat.write(solution("11.1"), tmp_path / "bob_lab_11_1.ipynb")
    options = GradeOptions(sandbox=SandboxSettings(lab_limits=(("11.2", Limits(cell_timeout=2, budget=50)),)))
    assert grade.grade_notebook(tmp_path / "alice_lab_11_2.ipynb", options).budget == 50
    assert grade.grade_notebook(tmp_path / "bob_lab_11_1.ipynb", options).budget == Limits().budget
    assert [limits.cell_timeout for limits in seen] == [2, Limits().cell_timeout]


def test_a_notebook_without_cell_ids_is_read_without_a_warning(tmp_path: Path) -> None:
    """Older notebooks (nbformat 4.4) have no cell ids; nbformat warns per file, which filled a batch's progress output."""
    import json
    import warnings

    import nbformat

    from course_grader.intake.notebook import read_notebook

    book = json.loads(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])))
    for cell in book["cells"]:
        del cell["id"]
    path = write(tmp_path / "old_lab_11_1.ipynb", json.dumps(book))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert read_notebook(path).cells[0].source == "x = 1"
    assert [w for w in caught if "id" in str(w.message)] == []


def test_bundle_derives_its_secret_from_the_terms_and_takes_the_labs_limits_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The autograder's secret is derived from the term's, never the term's own: Gradescope holds no term secret."""
    built: list[dict[str, object]] = []

    def build_bundle(lab: str, output: Path, **options: object) -> Path:
        built.append(options)
        return output

    monkeypatch.setattr(bundle_command, "build_bundle", build_bundle)
    course = Path(shutil.copytree(EXAMPLES, tmp_path / "examples")) / "course.toml"
    beside(course)
    assert cli.main(["bundle", "--lab", "capstone", "--course", str(course), "-o", str(tmp_path / "x.zip")]) == 0
    assert built[0]["seed"] == derived(TERM, "gradescope capstone") != TERM and built[0]["limits"] == Limits(budget=300)
    said = capsys.readouterr().out
    assert f"(derived from the term's secret of {course}, which it does not give away)" in said and TERM not in said
    command = ["bundle", "--lab", "capstone", "--course", str(course), "--seed", OTHER, "-o", str(tmp_path / "x.zip")]
    assert cli.main(command) == 0
    assert built[1]["seed"] == OTHER and f"secret {OTHER} (--seed)" in capsys.readouterr().out


@pytest.mark.slow  # 55 notebooks written, graded without kernels, compared for similarity: a minute or two
def test_the_generated_class_goes_through_every_command_and_its_shards_merge_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tests/term_class.py``'s class without kernels (``test_term_class.py`` grades it for real): read from the LMS's
    files alone, issue 44's cases through grade → report → rescore → a roster change and regrade → merge → feedback →
    both gradebooks (``term_class.walk``); then three shards of the folder merge into the unsharded CSV byte for
    byte, similarity notes and the cases' duplicates and conflicts included."""
    import term_class

    term = term_class.build(tmp_path / "term")
    assert term.files >= 50
    term_class.grading_without_kernels(monkeypatch)
    monkeypatch.chdir(term.folder)

    def run(*arguments: str | Path) -> str:
        capsys.readouterr()
        flags = ["--no-sandbox"] if arguments and isinstance(arguments[0], Path) else []
        assert cli.main([*map(str, arguments), *flags]) == 0
        said = capsys.readouterr()
        return said.out + said.err

    notes = term_class.walk(term, run, jobs="1")
    for index in (1, 2, 3):
        run(
            term.submissions,
            "--course",
            term.course,
            "--shard",
            f"{index}/3",
            "--out",
            f"shard-{index}.csv",
            "--no-progress",
        )
    run("merge", "shard-3.csv", "shard-1.csv", "shard-2.csv", "-o", "merged.csv")
    assert (term.folder / "merged.csv").read_bytes() == (term.folder / "grades.csv").read_bytes()
    merged = read_frame(term.folder / "merged.csv")
    assert (
        merged["notes"].str.contains("similarity (reported", regex=False).any()
        and merged["notes"].str.contains("; tie: ").any()
    )
    with capsys.disabled():  # -s shows each case's note as the CSV holds it
        print("".join(f"\n{case}:\n    {note}" for case, note in notes.items()))
