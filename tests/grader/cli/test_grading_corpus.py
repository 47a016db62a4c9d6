"""The grader end to end, in real kernels: the corpus of synthetic submissions, the CLI, the Gradescope bundle.

Marked ``slow`` (each notebook starts a kernel, about a second); they still run
in ``make test-sandboxed``. The whole corpus is graded in one batch run with two
workers, which also covers the CSV path; every row is then checked against the
outcome ``tests/grading_corpus.py`` declares for it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from gradescope_dry_run import dependencies_python, public_folder, set_up, shared_interpreter
from grading_corpus import CORPUS, Submission, solution
from term_secrets import TERM

from course_grader import GradeOptions, GradeResult, Limits, Sandbox, SandboxSettings, grade_folder, write_csv
from course_grader.judging.kernel_run import lab_view
from course_lib.teaching import lab_registry

pytestmark = [pytest.mark.slow, pytest.mark.sandboxed]

TIME_LIMIT = 3.0
LIMITS = Limits(cell_timeout=TIME_LIMIT)
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, GradeResult], pd.DataFrame]:
    folder = tmp_path_factory.mktemp("submissions")
    for submission in CORPUS:
        submission.write(folder)
    results = grade_folder(folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), jobs=2, progress=False)
    csv = folder.parent / "grades.csv"
    write_csv(results, csv)
    return {result.student: result for result in results}, pd.read_csv(csv)


def _feedback(result: GradeResult) -> str:
    return "\n".join([*result.notes, *(test.output for test in result.tests)])


@pytest.mark.parametrize("submission", CORPUS, ids=[s.name for s in CORPUS])
def test_corpus_outcome(submission: Submission, graded: tuple[dict[str, GradeResult], pd.DataFrame]) -> None:
    result = graded[0][submission.name]
    assert result.status == submission.status, _feedback(result)
    if submission.score == "full":
        assert result.score == result.max_score > 0, _feedback(result)
    elif submission.score == "partial":
        assert 0 < result.score < result.max_score, _feedback(result)
    else:
        assert result.score == submission.score, _feedback(result)
    assert submission.says in _feedback(result)
    if submission.checklist_passes is not None:
        assert sum(t.passed for t in result.tests if not t.hidden) == submission.checklist_passes


def test_edited_checklist_and_stored_outputs_change_nothing(
    graded: tuple[dict[str, GradeResult], pd.DataFrame],
) -> None:
    """The checklist cell printing "3/3 passed" (and outputs claiming it) scores like the untouched stub."""
    fake, stub = graded[0]["fake_checklist_output"], graded[0]["untouched_stub"]
    assert fake.score == stub.score == 0
    assert all("not implemented yet" in t.output for t in fake.tests)


def test_csv_one_row_per_submission(graded: tuple[dict[str, GradeResult], pd.DataFrame]) -> None:
    frame = graded[1]
    assert sorted(frame["student"]) == sorted(s.name for s in CORPUS)
    assert {"total", "max_score", "percent", "status"} <= set(frame.columns)
    assert (
        "11.3 7 fixed_costs_come_first" in frame.columns and "11.3 H1 generated_kept_groups_and_reason" in frame.columns
    )
    row = frame.set_index("student").loc["reference"]
    assert (row["total"], row["percent"], row["status"]) == (7, 100.0, "ok")
    assert set(frame["status"]) == {"ok", "timeout", "error", "missing-function"}


def test_cli_grades_one_notebook_to_results_json(tmp_path: Path) -> None:
    """``course-grade SUBMISSION --results``: a table on stdout, Gradescope's JSON on disk."""
    path = next(s for s in CORPUS if s.name == "reference").write(tmp_path)
    results = tmp_path / "out" / "results.json"
    results.parent.mkdir()
    finished = subprocess.run(
        [str(BIN / "course-grade"), str(path), "--results", str(results), "--timeout", str(TIME_LIMIT)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert "total 7/7 (100 %)" in finished.stdout
    data = json.loads(results.read_text())
    assert data["score"] == 7 and len(data["tests"]) == 7
    assert {t["visibility"] for t in data["tests"] if t["number"].startswith("H")} == {"after_published"}


def test_cli_grades_a_folder_to_csv(tmp_path: Path) -> None:
    """``course-grade DIR --out``: one row per notebook, a bad file among them."""
    folder = tmp_path / "in"
    (folder / "erin").mkdir(parents=True)
    (folder / "erin" / "lab.ipynb").write_text(json.dumps({"not": "a notebook"}))
    next(s for s in CORPUS if s.name == "untouched_stub").write(folder)
    out = tmp_path / "grades.csv"
    from course_grader.cli import app as cli

    assert cli.main([str(folder), "--out", str(out), "-j", "1", "--no-progress", "--timeout", str(TIME_LIMIT)]) == 0
    frame = pd.read_csv(out).set_index("student")
    assert dict(frame["status"]) == {"erin": "error", "untouched_stub": "ok"}


def test_sandbox_survives_what_a_cell_can_do(tmp_path: Path) -> None:
    """Errors and time-outs come back as statuses; an uninterruptible cell gives the kernel up."""
    limits = Limits(cell_timeout=1, interrupt_grace=1)
    with Sandbox(tmp_path / "home", limits, lab_view(lab_registry.LABS["11.2"])) as box:
        assert box.run("x = 1").status == "ok"
        error = box.run("def f(:\n  pass")
        assert (error.status, error.ename) == ("error", "SyntaxError") and "line 1" in error.evalue
        assert box.run("import time\nwhile True: time.sleep(0.01)").status == "timeout"
        assert box.run("assert x == 1").status == "ok"  # interrupted, and still the same kernel
        assert box.run("sum(range(10**13))").status == "timeout"  # C code: SIGINT cannot stop it
        assert box.run("x").status == "skipped" and not box.alive


def test_bundle_runs_in_a_simulated_autograder(tmp_path: Path) -> None:
    """``course-grade bundle``, unpacked into a fake /autograder and set up by its setup.sh, grades with its course_lib."""
    if os.geteuid() != 0 or shared_interpreter() is None:
        pytest.skip("the dry run needs root and a Python another user can run (tests/gradescope_dry_run.py)")
    folder = public_folder("course-grade-corpus-bundle-")
    try:
        grader = set_up("11.3", folder, dependencies_python(folder), secret=TERM, timeout=TIME_LIMIT)
        root = grader.root
        with zipfile.ZipFile(folder / "autograder-11.3.zip") as archive:
            names = archive.namelist()
            modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        assert {"setup.sh", "run_autograder"} <= set(names)
        assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
        assert any(name.startswith("wheels/course_lib-") and name.endswith(".whl") for name in names)
        setup_notebook = next(name for name in names if name.startswith("labs/"))
        shipped = (root / "source" / setup_notebook).read_text()
        solution_line = "kept.insert(0, group)"  # a line of the lab's solution
        solved = next(
            cell.source
            for cell in solution("11.3").cells
            if "def build_context(" in cell.source and "exercise" in cell.metadata.get("tags", [])
        )
        assert solution_line in solved and solution_line not in shipped
        subprocess.run(["bash", "-n", str(root / "source" / "setup.sh")], check=True)
        installed = root / "course" / "course_lib" / "__init__.py"
        assert installed.is_file()  # the grader's course_lib is the bundle's, installed by setup.sh
        partly = next(s for s in CORPUS if s.name == "partly_correct")
        data, _ = grader.submit({f"{partly.name}_lab_11_3.ipynb": partly.make()}, cwd=tmp_path)
        assert 0 < data["score"] < 7 and len(data["tests"]) == 7
        assert {t["visibility"] for t in data["tests"]} == {"visible", "after_published"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
