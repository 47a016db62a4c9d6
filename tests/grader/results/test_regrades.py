"""A partial regrade (``--only``) merged into the term (issue 29): the rows replaced, the records carried, the refusals.

No kernel runs: the command line grades through a stand-in for
``grade_folder`` that honours ``--shard`` and ``--only`` as the batch does
(``Selection.takes``) and scores a file by its content ("{}" passes 3 of 4
tests, anything else 4 of 4), so a regrade after a file changed has another
score. ``test_a_real_batch_regrade_merges_into_the_whole_run`` runs the
batch's own selection (``grade_folder(only=…)``), with a stand-in grade.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from term_secrets import OTHER, TERM

from course_grader import GradeOptions, GradeResult, Identity, JudgingSettings, TestResult
from course_grader.batch.batch import flag_duplicates, grade_folder
from course_grader.cli import app as cli
from course_grader.cli import grade_batch
from course_grader.course.course import NO_COURSE, Course
from course_grader.course.course_file import load_course
from course_grader.intake.lab_names import lab_in_name
from course_grader.intake.roster import Names, attribute, load_roster
from course_grader.intake.selection import Selection, selection
from course_grader.intake.shard import shard_of
from course_grader.results.grades_csv import GradesCsvError, read_frame, render, write_frame
from course_grader.results.grades_frame import results_frame
from course_grader.results.records import read_records
from course_grader.results.term_merge import join, joined_records

# whole batches through the CLI, each with a spawned similarity pass: make test, not make check
pytestmark = pytest.mark.slow

COURSE = f"""seed = "{TERM}"
duplicates = "{{policy}}"
[labs."11.3"]
points = {{points}}
[labs."11.2"]
points = 10
"""
FILES = (
    "alice/lab_11_3.ipynb",
    "alice/lab_11_3_again.ipynb",
    "bob/lab_11_3.ipynb",
    "bob/lab_11_2.ipynb",
    "carol/lab_11_3.ipynb",
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def graded(
    folder: Path,
    options: GradeOptions,
    *,
    shard: tuple[int, int] | None = None,
    only: Selection | None = None,
    course: Course = NO_COURSE,
    **_: Any,
) -> list[GradeResult]:
    """What ``grade_folder`` returns, without kernels: a file's score by its content, duplicates flagged unsharded."""
    results = []
    for name in grade_batch.listing(folder):
        path = folder / name
        if shard is not None and shard_of(name, shard[1]) != shard[0]:
            continue
        if only is not None and not only.takes(path, folder, options.identity.names):
            continue
        student, source, notes = attribute(path, str(folder), options.identity.names)
        lab = lab_in_name(name) or "11.3"
        better = path.read_text(encoding="utf-8") != "{}"
        tests = tuple(
            TestResult(name=f"t{n}", number=n, lab=lab, score=float(better or n != "H1"))
            for n in ("1", "2", "H1", "H2")
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
    return results if shard is not None else flag_duplicates(results, course.settings.duplicates, course)


@pytest.fixture
def term(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``submissions/`` (alice has two Lab 11.3 files: the second counts), ``course.toml`` (the secret ``TERM``, 10 points)."""
    for name in FILES:
        write(tmp_path / "submissions" / name, "{}")
    write(tmp_path / "course.toml", COURSE.format(policy="latest", points=10))
    monkeypatch.setattr(grade_batch, "grade_folder", graded)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def grade(*flags: str, course: str = "course.toml") -> int:
    return cli.main(["submissions", "--course", course, "--no-sandbox", "--no-progress", *flags])


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        cli.main(list(argv))
    assert stopped.value.code == 2
    return capsys.readouterr().err


def test_one_students_regrade_merged_into_the_term_is_the_whole_run(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert grade("--out", "term.csv") == 0
    write(term / "submissions" / "bob" / "lab_11_3.ipynb", '{"fixed": true}')  # bob's file, fixed by arrangement
    assert grade("--out", "whole.csv") == 0
    assert grade("--only", "student:bob", "--out", "bob.csv") == 0
    assert list(read_frame(term / "bob.csv")["file"]) == ["bob/lab_11_2.ipynb", "bob/lab_11_3.ipynb"]
    capsys.readouterr()
    assert cli.main(["merge", "term.csv", "bob.csv", "-o", "grades.csv"]) == 0
    out, err = capsys.readouterr()
    assert (term / "grades.csv").read_bytes() == (term / "whole.csv").read_bytes()
    assert "replaced 'bob/lab_11_3.ipynb': bob.csv's row replaces term.csv's" in err
    assert "replaced 'bob/lab_11_2.ipynb'" in err and "alice" not in err
    assert "merged 2 grades CSVs: 5 rows, 2 replaced and 0 added by a later CSV · wrote grades.csv" in out
    merged, whole = read_records(term / "grades.jsonl"), read_records(term / "whole.jsonl")
    assert merged == whole  # the records carried through: the pages and the report read them
    assert cli.main(["feedback", "grades.jsonl", "--grades", "grades.csv", "-o", "pages"]) == 0
    assert cli.main(["report", "grades.csv", "-o", "report.html"]) == 0
    assert "4/4" in (term / "pages" / "bob_lab_11_3.html").read_text(encoding="utf-8")


def test_one_labs_and_one_files_regrade_and_a_new_file(term: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert grade("--out", "term.csv") == 0
    write(term / "submissions" / "dora" / "lab_11_3.ipynb", "{}")  # handed in after the term's run
    write(
        term / "submissions" / "alice" / "lab_11_3.ipynb", "[]"
    )  # alice's two files, no times: a tie, now 4/4 and 3/4
    assert grade("--out", "whole.csv") == 0
    assert grade("--only", "lab:11.2", "--out", "lab.csv") == 0
    assert list(read_frame(term / "lab.csv")["file"]) == ["bob/lab_11_2.ipynb"]
    assert grade("--only", "submissions/dora/lab_11_3.ipynb", "--only", "alice/lab_11_3.ipynb", "--out", "f.csv") == 0
    assert list(read_frame(term / "f.csv")["counts"]) == [True, True]  # alone in the regrade, alice's file counts
    capsys.readouterr()
    assert cli.main(["merge", "term.csv", "lab.csv", "f.csv", "-o", "grades.csv"]) == 0
    err = capsys.readouterr().err
    assert "added 'dora/lab_11_3.ipynb' from f.csv (in no earlier CSV)" in err
    assert (term / "grades.csv").read_bytes() == (term / "whole.csv").read_bytes()
    merged = read_frame(term / "grades.csv").set_index("file")
    assert merged.at["alice/lab_11_3.ipynb", "counts"]  # decided again across the joined rows: the better of a tie
    note = merged.at["alice/lab_11_3.ipynb", "notes"]
    assert note.startswith("duplicate: alice has 2 Lab 11.3 submissions") and "; tie: 2 files have one time" in note
    assert read_records(term / "grades.jsonl") == read_records(term / "whole.jsonl")


@pytest.mark.parametrize("policy", ["latest", "earliest", "best"])
def test_duplicates_are_decided_again_under_the_terms_policy(term: Path, policy: str) -> None:
    write(term / "course.toml", COURSE.format(policy=policy, points=10))
    write(term / "submissions" / "alice" / "lab_11_3.ipynb", "[]")  # 4/4: the best one
    assert grade("--out", "term.csv") == 0
    write(term / "submissions" / "alice" / "lab_11_3_again.ipynb", "[1]")  # now both 4/4
    assert grade("--out", "whole.csv") == 0
    assert grade("--only", "alice/lab_11_3_again.ipynb", "--out", "again.csv") == 0
    assert cli.main(["merge", "term.csv", "again.csv", "-o", "grades.csv"]) == 0
    assert (term / "grades.csv").read_bytes() == (term / "whole.csv").read_bytes(), policy


def test_kinds_of_selection_narrow_each_other_and_one_kind_adds_up(term: Path) -> None:
    folder = term / "submissions"
    chosen = selection(["student:bob", "lab:11.3", "student:alice"], folder)
    assert chosen == Selection(students=("bob", "alice"), labs=("11.3",))
    taken = [name for name in FILES if chosen.takes(folder / name, folder, None)]
    assert taken == ["alice/lab_11_3.ipynb", "alice/lab_11_3_again.ipynb", "bob/lab_11_3.ipynb"]
    assert selection(["alice/", str(folder / "bob")], folder).files == ("alice", "bob")


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--only", "student:zed"], "--only student:zed: no submission under submissions belongs to zed"),
        (["--only", "lab:11.5"], "--only lab:11.5: no submission under submissions is Lab 11.5"),
        (["--only", "lab:11.9"], "--only lab:11.9: "),
        (["--only", "zed/lab_11_3.ipynb"], "--only zed/lab_11_3.ipynb: no submission under submissions is that file"),
        (["--only", "student:carol", "--only", "lab:11.2"], "no submission under submissions is all of that"),
    ],
)
def test_a_selection_that_names_nothing_is_refused_before_grading(
    term: Path, capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    err = refused(capsys, "submissions", "--course", "course.toml", "--no-sandbox", *flags, "--out", "r.csv")
    assert says in err, err
    assert not (term / "r.csv").exists()
    err = refused(capsys, "submissions/bob/lab_11_3.ipynb", "--no-sandbox", "--only", "student:bob")
    assert "--only selects part of a folder" in err


def test_a_regrade_of_another_seed_or_course_file_is_refused(term: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert grade("--out", "term.csv") == 0
    assert grade("--only", "student:bob", "--seed", OTHER, "--out", "seed.csv") == 0
    err = refused(capsys, "merge", "term.csv", "seed.csv", "-o", "grades.csv")
    assert f"seed.csv was graded with seed {OTHER} (its row 'bob/lab_11_2.ipynb'), term.csv with {TERM}" in err, err
    write(term / "other.toml", COURSE.format(policy="latest", points=100))
    assert grade("--only", "student:bob", "--out", "other.csv", course="other.toml") == 0
    err = refused(capsys, "merge", "term.csv", "other.csv", "-o", "grades.csv")
    assert "other.csv was scored by the course file of fingerprint" in err and "a regrade needs the term's" in err
    assert not (term / "grades.csv").exists()


def test_shards_and_other_csvs_are_not_merged_together(term: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert grade("--out", "term.csv") == 0
    assert grade("--shard", "1/2", "--out", "shard-1.csv") == 0
    err = refused(capsys, "merge", "term.csv", "shard-1.csv", "-o", "grades.csv")
    assert "shard-1.csv is a shard's CSV but term.csv is not: merge the shards of the run first" in err, err


def test_without_records_beside_every_csv_no_records_are_written(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert grade("--out", "term.csv") == 0
    assert grade("--only", "student:bob", "--out", "bob.csv") == 0
    (term / "bob.jsonl").unlink()
    capsys.readouterr()
    assert cli.main(["merge", "term.csv", "bob.csv", "-o", "grades.csv"]) == 0
    err = capsys.readouterr().err
    assert "warning: no bob.jsonl beside bob.csv: grades.jsonl not written" in err, err
    assert not (term / "grades.jsonl").exists()


def test_a_merge_into_the_terms_own_file_reads_everything_first(term: Path) -> None:
    assert grade("--out", "grades.csv") == 0
    write(term / "submissions" / "carol" / "lab_11_3.ipynb", "[]")
    assert grade("--out", "whole.csv") == 0
    assert grade("--only", "student:carol", "--out", "carol.csv") == 0
    assert cli.main(["merge", "grades.csv", "carol.csv", "-o", "grades.csv"]) == 0
    assert (term / "grades.csv").read_bytes() == (term / "whole.csv").read_bytes()
    assert read_records(term / "grades.jsonl") == read_records(term / "whole.jsonl")


def test_one_csv_twice_or_a_file_twice_in_one(term: Path) -> None:
    assert grade("--out", "term.csv") == 0
    frame = read_frame(term / "term.csv")
    write_frame(frame.iloc[[0, 0]].reset_index(drop=True), term / "twice.csv")
    with pytest.raises(GradesCsvError, match=r"twice\.csv: its file .alice/lab_11_3\.ipynb. has two rows"):
        join([term / "twice.csv"])
    joined = join([term / "term.csv", term / "term.csv"])  # the same CSV again replaces every row by itself
    assert render(joined.frame) == render(frame) and len(joined.replaced) == len(frame)
    assert joined_records(joined)[0] == read_records(term / "term.jsonl")


@pytest.mark.slow  # spawns the batch's workers: several seconds
def test_a_real_batch_regrade_merges_into_the_whole_run(tmp_path: Path) -> None:
    """``grade_folder(only=…)`` itself, with duplicates of bchen in and out of the regrade and a formula-like name."""
    from test_term import EXAMPLES, make_folder, stand_in

    root = tmp_path / "submissions"
    make_folder(root)
    os.chmod(root / "locked", 0o755)  # an unreadable folder is no one's regrade
    shutil.rmtree(root / "locked")
    for name in ("course.toml", "roster.csv", "submitted.csv"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    course = load_course(tmp_path / "course.toml")
    options = GradeOptions(
        identity=Identity(names=Names.of("auto", None, load_roster(tmp_path / "roster.csv"))),
        judging=JudgingSettings(seed=TERM),
    )
    whole = grade_folder(root, options, progress=False, grade=stand_in, course=course)
    part = grade_folder(
        root, options, progress=False, grade=stand_in, course=course, only=Selection(students=("bchen",))
    )
    assert {r.student for r in part} == {"bchen"} and 1 < len(part) < len(whole)
    term = [r for r in whole if r.student != "bchen" or r.lab != "11.1"]  # as if bchen's Lab 11.1 came late
    for name, results in (("term", term), ("part", part), ("whole", whole)):
        write_frame(results_frame(results, course), tmp_path / f"{name}.csv")
    joined = join([tmp_path / "term.csv", tmp_path / "part.csv"])
    assert render(joined.frame) == render(read_frame(tmp_path / "whole.csv"))
    assert "duplicate: bchen has 3 Lab 11.1 submissions" in render(joined.frame)


def test_merged_shards_records_carry_the_duplicates_as_the_whole_runs_do(term: Path) -> None:
    """alice's two files fall in two shards: merge decides which counts, in the CSV and in the records (the pages)."""
    assert grade("--out", "whole.csv") == 0
    assert shard_of(FILES[0], 2) != shard_of(FILES[1], 2)
    for index in (1, 2):
        assert grade("--shard", f"{index}/2", "--out", f"shard-{index}.csv") == 0
    assert cli.main(["merge", "shard-2.csv", "shard-1.csv", "-o", "grades.csv"]) == 0
    assert (term / "grades.csv").read_bytes() == (term / "whole.csv").read_bytes()
    assert read_records(term / "grades.jsonl") == read_records(term / "whole.jsonl")


# --- a roster change, another folder, other limits, the wrong order (issues 43 and 44) -------------------------

ROSTERS = (
    "id,name,email,aliases\nalice,Alice,,\nbob,Bob,,\ncarol,Carol,,\n",
    "id,name,email,aliases\nalice,Alice,,\nbob,Bob,,\ncarol,Carol,,\nd01,Dora,,dora\n",
)


def test_a_regrade_under_a_changed_roster_merges_in_one_step_and_says_so(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44: dora is unknown to the term's roster; an alias added, her regrade merges (the course files score
    alike), the kept rows are read again under the new roster, and the result is the whole folder's run under it."""
    write(term / "submissions" / "dora" / "lab_11_3.ipynb", "{}")
    write(term / "submissions" / "erin" / "lab_11_3.ipynb", "{}")  # on neither roster: her note names the one used
    write(term / "roster.csv", ROSTERS[0])
    write(term / "course.toml", 'roster = "roster.csv"\n' + COURSE.format(policy="latest", points=10))
    assert grade("--out", "term.csv") == 0
    assert (
        read_frame(term / "term.csv").set_index("file").at["dora/lab_11_3.ipynb", "student_from"].startswith("unknown")
    )
    write(term / "roster-2.csv", ROSTERS[1])
    write(term / "enrolled.toml", 'roster = "roster-2.csv"\n' + COURSE.format(policy="latest", points=10))
    assert grade("--out", "whole.csv", course="enrolled.toml") == 0
    assert grade("--only", "student:d01", "--out", "dora.csv", course="enrolled.toml") == 0
    capsys.readouterr()
    assert cli.main(["merge", "term.csv", "dora.csv", "-o", "grades.csv"]) == 0
    err = capsys.readouterr().err
    assert (
        "term.csv was graded under another roster than dora.csv (the course files score alike; they differ in "
        "who the files are): its rows are read again under roster-2.csv" in err
    )
    assert (term / "grades.csv").read_bytes() == (term / "whole.csv").read_bytes()
    assert read_records(term / "grades.jsonl") == read_records(term / "whole.jsonl")
    erin = read_frame(term / "grades.csv").set_index("file").at["erin/lab_11_3.ipynb", "notes"]
    assert "(roster-2.csv); graded, but no roster student gets this grade" in erin and "(roster.csv)" not in erin


def test_a_kept_row_another_student_under_the_new_roster_is_refused_until_it_is_regraded(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(term / "roster.csv", ROSTERS[0].replace("carol,Carol,,\n", ""))
    write(term / "course.toml", 'roster = "roster.csv"\n' + COURSE.format(policy="latest", points=10))
    assert grade("--out", "term.csv") == 0
    write(term / "roster-2.csv", ROSTERS[1])
    write(term / "enrolled.toml", 'roster = "roster-2.csv"\n' + COURSE.format(policy="latest", points=10))
    assert grade("--only", "student:bob", "--out", "bob.csv", course="enrolled.toml") == 0
    err = refused(capsys, "merge", "term.csv", "bob.csv", "-o", "grades.csv")
    assert (
        "term.csv's row 'carol/lab_11_3.ipynb' is carol (folder (carol) on the roster) under the last CSV's roster"
        in err
        and "regrade it under the new roster too" in err
    ), err


def test_a_course_file_that_scores_otherwise_still_needs_rescore(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert grade("--out", "term.csv") == 0
    write(term / "other.toml", COURSE.format(policy="latest", points=100))
    assert grade("--only", "student:bob", "--out", "other.csv", course="other.toml") == 0
    err = refused(capsys, "merge", "term.csv", "other.csv", "-o", "grades.csv")
    assert (
        "other.csv was scored by the course file of fingerprint " in err
        and ", term.csv by the course file of fingerprint " in err
        and "with of" not in err
    ), err
    assert "rescore the term's CSV under it first" in err


def test_a_regrade_from_another_folder_with_other_limits_or_out_of_order(
    term: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: ``--only`` on an older folder holding the same file name, another ``--timeout``, and CSVs given in
    the wrong order were merged in the words of a legitimate regrade."""
    assert grade("--out", "term.csv") == 0
    shutil.copytree(term / "submissions", term / "older")
    (term / "older" / "carol" / "lab_11_3.ipynb").unlink()
    assert cli.main(["older", "--course", "course.toml", "--no-sandbox", "--no-progress", "--only", "student:bob",
                     "--out", "older.csv"]) == 0  # fmt: skip
    err = refused(capsys, "merge", "term.csv", "older.csv", "-o", "grades.csv")
    assert f"older.csv graded another folder than term.csv: {term / 'older'} (4 entries" in err, err
    assert grade("--only", "student:bob", "--timeout", "20", "--out", "slow.csv") == 0
    capsys.readouterr()
    assert cli.main(["merge", "term.csv", "slow.csv", "-o", "grades.csv"]) == 0
    said = (
        "regraded under other limits than term.csv's: every lab: timeout 20 s, memory 2048 MB, budget 240 s "
        "(term.csv: timeout 10 s, memory 2048 MB, budget 240 s)"
    )
    err = capsys.readouterr().err  # each lab the course file gives limits of its own too
    assert f"replaced 'bob/lab_11_3.ipynb': slow.csv's row replaces term.csv's ({said}; 11.3: timeout 20 s" in err
    merged = read_frame(term / "grades.csv").set_index("file")
    assert said in merged.at["bob/lab_11_3.ipynb", "notes"] and said not in merged.at["alice/lab_11_3.ipynb", "notes"]
    err = refused(capsys, "merge", "slow.csv", "term.csv", "-o", "wrong.csv")
    assert "term.csv was graded at " in err and ", before slow.csv (" in err and "give the term's CSV first" in err, err


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        (
            '[[extensions]]\nstudent = "bbo"\nlab = "11.3"\ndeadline = 2026-10-20T23:59:00+02:00\nreason = "ill"\n',
            "line 7 ([[extensions]] 1): student 'bbo' is not on the students of submissions, so this extension",
        ),
        (
            '[[decisions]]\nstudent = "alice"\nlab = "11.3"\ncounts = "alice/lab_11_3_agian.ipynb"\nreason = "r"\n',
            "line 7 ([[decisions]] 1): counts = 'alice/lab_11_3_agian.ipynb' is no file graded here",
        ),
        (
            '[[decisions]]\nstudent = "alice"\nlab = "11.3"\ncounts = "BOB/lab_11_3.ipynb"\nreason = "r"\n',
            "line 7 ([[decisions]] 1): 'bob/lab_11_3.ipynb' is bob's 11.3, not alice's 11.3",
        ),
    ],
)
def test_an_entry_for_no_student_or_no_file_is_refused_before_grading(
    term: Path, capsys: pytest.CaptureFixture[str], entry: str, says: str
) -> None:
    """Issue 43: never dropped without a word, at grading as at rescore."""
    write(term / "course.toml", COURSE.format(policy="latest", points=10) + entry)
    err = refused(capsys, "submissions", "--course", "course.toml", "--no-sandbox", "--no-progress", "--out", "g.csv")
    assert says in err, err
    assert not (term / "g.csv").exists()
