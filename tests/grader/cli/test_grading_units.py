"""The grader's plain parts without a kernel: reading notebooks, naming students, results formats, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from grading_corpus import LABS, solution
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from course_grader import (
    LAB_FUNCTIONS,
    STATUSES,
    GradeResult,
    NotALabNotebook,
    TemplateNotFound,
    TestResult,
    find_template,
    format_table,
    lab_of,
    read_submission,
    results_frame,
    student_id,
    to_gradescope,
)
from course_grader.cli import app as cli
from course_grader.intake import cells, lab_templates
from course_grader.judging.hidden_cases import hidden_tests
from course_lib.teaching import lab_registry


def synthetic(lab: str | None = "11.3", cells: list | None = None) -> nbformat.NotebookNode:
    """A tiny lab notebook: setup, markdown, an exercise, a demo, a checklist."""
    book = new_notebook(
        cells=cells
        if cells is not None
        else [
            new_code_cell("import math", metadata={}),
            new_markdown_cell("## Exercise"),
            new_code_cell("def build_context(path, **options):\n    return None", metadata={"tags": ["exercise"]}),
            new_code_cell("print(build_context([]))"),
            new_code_cell("extra = 1", metadata={"tags": ["exercise"]}),
            new_code_cell("checklist.run(lab='11.3')", metadata={"tags": ["checklist"]}),
        ]
    )
    if lab:
        book.metadata["course"] = {"lab": lab, "functions": ["build_context"]}
    return book


def test_lab_from_metadata_then_file_name() -> None:
    assert lab_of(synthetic("11.4")) == "11.4"
    assert lab_of(synthetic(None), "alice_lab_11_2_groups.ipynb") == "11.2"
    assert lab_of(synthetic(None), "Lab-11.5.ipynb") == "11.5"
    with pytest.raises(NotALabNotebook, match=r"course\.lab"):
        lab_of(synthetic(None), "homework.ipynb")
    with pytest.raises(NotALabNotebook):
        lab_of(synthetic("12.1"), "homework.ipynb")


def test_only_exercise_cells_are_the_learners_and_setup_stops_at_the_first() -> None:
    book = synthetic()
    assert cells.exercise_sources(book) == ("def build_context(path, **options):\n    return None", "extra = 1")
    assert cells.setup_sources(book) == ("import math",)


def test_read_submission_and_the_autograders_lab(tmp_path: Path) -> None:
    path = tmp_path / "alice.ipynb"
    nbformat.write(synthetic(None), path)
    with pytest.raises(NotALabNotebook):
        read_submission(path)
    assert read_submission(path, expected_lab=lab_registry.LABS["11.3"]).lab.id == "11.3"
    nbformat.write(synthetic("11.2"), path)
    with pytest.raises(NotALabNotebook, match=r"grades Lab 11\.3"):
        read_submission(path, expected_lab=lab_registry.LABS["11.3"])
    path.write_text("{not json")
    with pytest.raises(NotALabNotebook, match="not a readable"):
        read_submission(path)


@pytest.mark.parametrize("lab", LAB_FUNCTIONS)
def test_lab_functions_match_the_notebooks_metadata(lab: str) -> None:
    """The grader's lab → function table agrees with every lab notebook (docs/notebooks.md metadata)."""
    assert tuple(find_template(lab_registry.LABS[lab]).metadata["course"]["functions"]) == LAB_FUNCTIONS[lab]
    assert tuple(solution(lab).metadata["course"]["functions"]) == LAB_FUNCTIONS[lab]


def test_templates_prefer_the_given_folder_and_fail_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat.write(synthetic("11.3"), tmp_path / "mine.ipynb")
    assert cells.setup_sources(find_template(lab_registry.LABS["11.3"], tmp_path)) == ("import math",)
    assert find_template(lab_registry.LABS["11.3"]).metadata["course"]["lab"] == "11.3"  # the checkout's labs/
    assert (LABS / "lab_11_3_build_context.ipynb").exists()
    monkeypatch.setattr(lab_templates, "template_dirs", lambda labs_dir=None: [tmp_path])
    with pytest.raises(TemplateNotFound, match=r"Lab 11\.4"):
        find_template(lab_registry.LABS["11.4"])


@pytest.mark.parametrize(
    ("name", "student"),
    [
        ("alice_lab_11_3_build_context.ipynb", "alice"),
        ("smith_1234_5678_Lab 11.2.ipynb", "smith_1234_5678"),
        ("bob.ipynb", "bob"),
    ],
)
def test_student_id_from_the_file_name(name: str, student: str) -> None:
    assert student_id(name) == student


def test_student_id_from_the_folder_never_the_metadata_and_it_says_which(tmp_path: Path) -> None:
    """A notebook keeping the lab's own file name is not labelled with that name (it names no student);
    the metadata's ``course.student`` is the learner's to edit: it only earns a note."""
    from course_grader.intake.identity import claimed_student, identify

    (tmp_path / "erin").mkdir()
    path = tmp_path / "erin" / "lab_11_3_build_context.ipynb"
    assert identify(path) == ("erin", "containing folder")
    notebook = nbformat.v4.new_notebook(metadata={"course": {"lab": "11.3", "student": "frank"}})
    assert identify(path, tmp_path) == ("erin", "folder")
    assert "names 'frank'" in (claimed_student(notebook, "erin") or "")
    assert claimed_student(notebook, "frank") is None
    assert identify(tmp_path / "gina_lab_11_3.ipynb") == ("gina", "file name")
    assert identify(tmp_path / "carol_02_lifecycle_capstone.ipynb") == ("carol", "file name")


def test_student_id_from_a_folder_per_student(tmp_path: Path) -> None:
    (tmp_path / "carol").mkdir()
    assert student_id(tmp_path / "carol" / "lab_11_3.ipynb", tmp_path) == "carol"
    assert student_id(tmp_path / "dave_lab_11_1.ipynb", tmp_path) == "dave"


def _result(lab: str = "11.2", passed: int = 2, status: str = "ok") -> GradeResult:
    tests = [
        TestResult(name="two_groups", number="4", lab=lab, score=1 if passed > 0 else 0, output=""),
        TestResult(
            name="broken", number="6", lab=lab, score=1 if passed > 1 else 0, output="R12: a call without a result"
        ),
        TestResult(name="generated_groups", number="H1", lab=lab, score=0, output="R11: hint", hidden=True),
    ]
    return GradeResult(
        submission="alice.ipynb",
        student="alice",
        lab=lab,
        status=status,
        tests=tuple(tests),
        execution_time=2.6,
        notes=("exercise cell 1: SystemExit: done",),
    )


def test_gradescope_results_format() -> None:
    """Top-level score and execution_time; tests with name, number, score, max_score, status, output, visibility."""
    data = to_gradescope(_result())
    assert data["score"] == 2 and data["execution_time"] == 3
    assert [set(t) for t in data["tests"]] == [
        {"name", "number", "score", "max_score", "status", "output", "visibility"}
    ] * 3
    assert [t["visibility"] for t in data["tests"]] == ["visible", "visible", "after_published"]
    assert [t["status"] for t in data["tests"]] == ["passed", "passed", "failed"]
    assert data["tests"][2]["name"] == "Lab 11.2 · hidden · generated_groups"
    assert "SystemExit" in data["output"]


def test_table_shows_failures_and_total() -> None:
    table = format_table(_result(passed=1))
    assert "R12: a call without a result" in table
    assert "total 1/3 (33.3 %)" in table


def test_csv_frame_has_a_column_per_test_and_a_status() -> None:
    frame = results_frame([_result(), _result("11.3", 0, "missing-function")])
    assert list(frame.columns[:4]) == ["student", "student_from", "file", "lab"]
    assert {"11.2 4 two_groups", "11.2 H1 generated_groups", "11.3 4 two_groups"} <= set(frame.columns)
    assert list(frame["status"]) == ["ok", "missing-function"] and set(frame["status"]) <= set(STATUSES)
    assert list(frame["percent"]) == [66.7, 0.0]
    assert pd.isna(frame.loc[0, "11.3 4 two_groups"])


def test_every_lab_has_hidden_tests_named_after_rules() -> None:
    for lab in LAB_FUNCTIONS:
        tests = hidden_tests(lab_registry.LABS[lab])
        assert tests and all(test.rules[0] in "RLM" and test.hint for test in tests)


def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as bundle:
        cli.main(["bundle"])
    assert bundle.value.code == 2 and "--lab" in capsys.readouterr().err
    with pytest.raises(SystemExit) as lab:
        cli.main(["bundle", "--lab", "12.9"])
    assert lab.value.code == 2
    with pytest.raises(SystemExit) as missing:
        cli.main(["no-such-notebook.ipynb"])
    assert missing.value.code == 2


@pytest.mark.slow  # several seconds: make test, not make check
def test_python_dash_m_runs_the_same_cli() -> None:
    import subprocess
    import sys

    finished = subprocess.run(
        [sys.executable, "-m", "course_grader", "--help"], capture_output=True, text=True, check=True
    )
    assert "course-grade" in finished.stdout and "--results" in finished.stdout


def test_wheel_is_written_offline_with_metadata_and_record(tmp_path: Path) -> None:
    """The bundle's wheel: core metadata from pyproject.toml, the console script, a RECORD pip can verify."""
    import base64
    import hashlib
    import zipfile

    from course_grader.packaging.bundle import project_root
    from course_grader.packaging.wheel import write_wheel

    wheel = write_wheel(project_root(), tmp_path)
    assert wheel.name == "course_lib-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read("course_lib-0.1.0.dist-info/METADATA").decode()
        record = archive.read("course_lib-0.1.0.dist-info/RECORD").decode().splitlines()
        assert "course_lib/checklist/harness.py" in names and not any("__pycache__" in n for n in names)
        assert "Requires-Dist: nbclient>=0.10,<0.12" in metadata and "Requires-Python: >=3.11" in metadata
        assert (
            "course-grade = course_grader.cli:main"
            in archive.read("course_lib-0.1.0.dist-info/entry_points.txt").decode()
        )
        for line in record[:-1]:
            name, digest, size = line.split(",")
            data = archive.read(name)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)
    assert write_wheel(project_root(), tmp_path / "again").read_bytes() == wheel.read_bytes()


def test_autograder_without_a_notebook_writes_a_zero_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gradescope still gets a results.json (every test 0, the reason in the output) under $AUTOGRADER_ROOT."""
    from course_grader import run_autograder

    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "notes.txt").write_text("I forgot the notebook")
    monkeypatch.setenv("AUTOGRADER_ROOT", str(tmp_path))
    result = run_autograder(lab_registry.LABS["11.3"])
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    assert result.status == "error" and data["score"] == 0 and len(data["tests"]) == 7
    assert "no Lab 11.3 notebook" in data["output"] and "notes.txt" not in data["output"]


def test_autograder_refuses_another_labs_notebook(tmp_path: Path) -> None:
    from course_grader import run_autograder

    (tmp_path / "submission").mkdir()
    nbformat.write(synthetic("11.2"), tmp_path / "submission" / "mine.ipynb")
    result = run_autograder(lab_registry.LABS["11.3"], root=tmp_path)
    assert result.status == "error" and result.score == 0
    assert "grades Lab 11.3" in json.loads((tmp_path / "results" / "results.json").read_text())["output"]
