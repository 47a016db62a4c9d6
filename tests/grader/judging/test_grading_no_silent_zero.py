"""No silent zero (issue 27): every way a submission scores 0 without the learner's code being wrong says why.

A solution pasted below the exercise's stub in an untagged cell, a labs folder
that is not found, a 0-byte file or a web page saved as ``.ipynb``, a file
named exactly like the lab's notebook, and a message the terminal cannot print.
All run in this process or in a plain subprocess: no sandbox, no kernel.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_corpus import function_cell, learner, solution, tagged
from term_secrets import TERM
from test_grading_notes import TAGS, grade_here

from course_grader import GradeOptions, Identity, JudgingSettings, SandboxSettings
from course_grader.cli import app as cli
from course_grader.cli import grade_batch, grade_single
from course_grader.intake import lab_templates, notebook
from course_grader.intake.roster import Names, attribute, load_roster
from course_grader.judging import diagnose
from course_grader.judging.grade import grade_notebook
from course_grader.results.grades_frame import write_csv
from course_lib.teaching import lab_registry

ROOT = Path(__file__).resolve().parents[3]


# --- the solution below the stub, in an untagged cell ------------------------------------


def solution_below_the_stub(lab: str) -> nbformat.NotebookNode:
    """The learner's notebook as handed out, the stubs left in place, the solution's cells pasted after them untagged."""
    notebook_ = learner(lab)
    at = notebook_.cells.index(tagged(notebook_, "exercise")[-1]) + 1
    for cell in reversed(tagged(solution(lab), "exercise")):
        notebook_.cells.insert(at, nbformat.v4.new_code_cell(cell.source))
    return notebook_


def test_the_solution_below_the_stub_is_named_with_the_cell_and_the_fix() -> None:
    """Lab 11.3: its own checklist passed in the learner's run; the grader ran the stub. The score stays 0, not silently."""
    notebook_ = solution_below_the_stub("11.3")
    position = next(
        i for i, c in enumerate(notebook_.cells, 1) if not c.metadata.get("tags") and "def build_context(" in c.source
    )
    stub = notebook_.cells.index(function_cell(notebook_, "build_context")) + 1
    result = grade_here("11.3", notebook_)
    assert (result.status, result.score) == ("ok", 0)
    assert result.notes == (
        f"`build_context` and `token_count` are defined in an untagged cell {position} "
        f"(`def token_count(what: str, value: Any) -> int | float:`), but the grader ran only the stubs in exercise "
        f"cell 1 (cell {stub}); the grader runs only cells tagged `exercise` — tag that cell `exercise` ({TAGS}) or "
        f"move the code into an exercise cell",
    )


@pytest.mark.parametrize("lab", list(lab_registry.LABS))
def test_every_labs_functions_pasted_below_their_stubs_are_noted(lab: str) -> None:
    result = grade_here(lab, solution_below_the_stub(lab))
    assert result.score == 0
    for name in lab_registry.lab(lab).functions:
        assert any(
            f"`{name}`" in note and "untagged cell" in note and "the grader ran only the stub" in note
            for note in result.notes
        ), (name, result.notes)


def test_a_solution_above_the_stub_is_told_to_replace_the_stub() -> None:
    """Tagging a cell above the stub would not help: the stub's cell runs after it and replaces the function."""
    notebook_ = learner("11.4")
    stub = function_cell(notebook_, "create_compaction_entry")
    notebook_.cells.insert(
        notebook_.cells.index(stub),
        nbformat.v4.new_code_cell(function_cell(solution("11.4"), "create_compaction_entry").source),
    )
    result = grade_here("11.4", notebook_)
    assert result.score == 0 and len(result.notes) == 1
    assert "move the code into exercise cell 1 in place of the stub" in result.notes[0]


def test_an_untouched_learner_notebook_and_the_solution_get_no_stub_note() -> None:
    """The stub alone scores 0 with "not implemented yet" in every test, and nothing to point at."""
    assert grade_here("11.2", learner("11.2")).notes == ()
    assert grade_here("11.2", solution("11.2")).notes == ()


def test_a_stub_is_a_body_that_only_raises_not_implemented_error_or_passes() -> None:
    source = (
        'def a():\n    """Doc."""\n    # Your code here\n    raise NotImplementedError("Lab 11.3 not implemented yet: a")\n'
        "def b():\n    pass\n"
        "def c():\n    raise NotImplementedError\n"
        "def d():\n    return 1\n"
        "def e():\n    raise ValueError('no')\n"
    )
    assert diagnose.functions_of(source) == {"a": True, "b": True, "c": True, "d": False, "e": False}
    assert diagnose.functions_of("def broken(:\n") == {}


def test_a_runtime_not_implemented_error_with_a_real_definition_below_is_noted() -> None:
    """An exercise cell that is not textually a stub, but whose function raised NotImplementedError when graded."""
    notebook_ = copy.deepcopy(learner("11.4"))
    stub = function_cell(notebook_, "create_compaction_entry")
    stub.source = stub.source.replace("raise NotImplementedError(", "value = 1\n    raise NotImplementedError(")
    notebook_.cells.insert(
        notebook_.cells.index(stub) + 1,
        nbformat.v4.new_code_cell(function_cell(solution("11.4"), "create_compaction_entry").source),
    )
    result = grade_here("11.4", notebook_)
    assert any("`create_compaction_entry` is defined in an untagged cell" in note for note in result.notes), (
        result.notes
    )


# --- files that are not notebooks -----------------------------------------------------------

HTML = b"<!DOCTYPE html>\n<html><head><title>lab_11_3_build_context - Jupyter Notebook</title></head><body></body></html>\n"


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"", "an empty file (0 bytes)"),
        (HTML, "an HTML page"),
        (b"PK\x03\x04rest", "a ZIP archive"),
        (b"%PDF-1.7", "a PDF document"),
    ],
)
def test_a_file_that_is_not_a_notebook_gets_its_lab_from_its_name_and_says_what_it_is(
    tmp_path: Path, content: bytes, what: str
) -> None:
    path = tmp_path / "alice_lab_11_3_build_context.ipynb"
    path.write_bytes(content)
    result = grade_notebook(path, GradeOptions())
    assert (result.status, result.lab, result.score, result.student) == ("error", "11.3", 0, "alice")
    assert len(result.tests) == 7  # every test of the lab, at 0, with the reason
    assert result.notes[0].startswith(f"alice_lab_11_3_build_context.ipynb is {what}")
    assert ", not a Jupyter notebook; nothing in it was graded" in result.notes[0]
    assert "File → Download" in result.notes[0]
    assert notebook.what_it_is(b"{}") is None  # JSON of the wrong shape: nbformat's own message says what is wrong


def _roster(folder: Path) -> Path:
    path = folder / "roster.csv"
    path.write_text("id,name,email,aliases\nalice,Alice A,alice@example.edu,\nbob,Bob B,bob@example.edu,\n")
    return path


def test_export_warns_about_rows_nothing_was_graded_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "alice_lab_11_3.ipynb").write_bytes(b"")
    (submissions / "bob_lab_11_3.ipynb").write_bytes(HTML)
    results = [grade_notebook(path, GradeOptions(), root=submissions) for path in sorted(submissions.iterdir())]
    write_csv(results, tmp_path / "grades.csv")
    out = tmp_path / "gradebook.csv"
    assert cli.main(["export", str(tmp_path / "grades.csv"), "--roster", str(_roster(tmp_path)), "-o", str(out)]) == 0
    warned = capsys.readouterr().err
    assert "warning: 2 counting rows were not graded (status error)" in warned
    assert "alice_lab_11_3.ipynb (alice_lab_11_3.ipynb is an empty file (0 bytes)" in warned
    assert "bob_lab_11_3.ipynb (bob_lab_11_3.ipynb is an HTML page" in warned
    assert out.read_text().splitlines()[2].endswith(",0")  # the lab's column exists: the 0 is visible, and warned about


# --- a file named exactly like the lab's notebook -----------------------------------------


@pytest.mark.parametrize("name", ["lab_11_3_build_context.ipynb", "Lab-11.3.ipynb", "02_lifecycle_capstone.ipynb"])
def test_a_lab_notebooks_own_name_is_not_a_canvas_download_name(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "carol"
    folder.mkdir()
    path = folder / name
    path.write_text("{}")
    who, source, notes = attribute(path, None, Names.of("auto"))
    assert (who, source, notes) == ("carol", "containing folder", ())
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,aliases\nlab,Lab Person,lab@example.edu,11\n")
    who, source, _ = attribute(path, None, Names.of("canvas", roster=load_roster(roster)))
    assert source.startswith("unknown") and who == "carol"  # never login `lab`, user `11`
    canvas = folder / "smithjudy_48213_9981299_lab_11_3_build_context.ipynb"
    assert attribute(canvas, None, Names.of("auto"))[:2] == ("smithjudy", "Canvas name")


# --- set-up errors stop the command before anything is graded ------------------------------


def test_no_labs_folder_exits_non_zero_before_grading_and_says_how_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plain pip install: no ./labs, no checkout's labs/, no --labs. Nothing is graded, no CSV is written."""
    monkeypatch.setattr(lab_templates, "CHECKOUT", tmp_path / "site-packages")
    monkeypatch.delenv(lab_templates.LABS_ENVIRONMENT, raising=False)
    monkeypatch.chdir(tmp_path)
    graded: list[object] = []

    def grade(*args: object, **kwargs: object) -> list[object]:
        graded.append(args[0])
        return []

    monkeypatch.setattr(grade_batch, "grade_folder", grade)
    monkeypatch.setattr(grade_single, "grade_notebook", grade)
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    nbformat.write(solution("11.3"), submissions / "alice_lab_11_3.ipynb")
    for argv in (
        [str(submissions), "--out", str(tmp_path / "grades.csv"), "--no-sandbox"],
        [str(submissions / "alice_lab_11_3.ipynb"), "--results", str(tmp_path / "r.json"), "--no-sandbox"],
        ["bundle", "--lab", "11.3", "-o", str(tmp_path / "a.zip")],
    ):
        with pytest.raises(SystemExit) as stopped:
            cli.main(argv)
        assert stopped.value.code == 2
        said = capsys.readouterr().err
        assert "the course's notebook for Lab 11.3 is not found anywhere: no labs folder exists" in said, said
        assert "--labs DIR" in said and "COURSE_GRADE_LABS" in said
    assert graded == [] and not (tmp_path / "grades.csv").exists() and not (tmp_path / "a.zip").exists()


def test_a_labs_folder_without_the_lab_names_what_it_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(lab_templates, "CHECKOUT", tmp_path / "site-packages")
    monkeypatch.chdir(tmp_path)
    labs = tmp_path / "mylabs"
    labs.mkdir()
    nbformat.write(learner("11.2"), labs / "lab_11_2_group_interactions.ipynb")
    assert lab_templates.missing_templates([lab_registry.LABS["11.2"]], labs) is None
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    nbformat.write(solution("11.3"), submissions / "renamed.ipynb")  # its lab only in its metadata
    with pytest.raises(SystemExit):
        cli.main([str(submissions), "--out", str(tmp_path / "g.csv"), "--labs", str(labs), "--no-sandbox"])
    assert f"the course's notebook for Lab 11.3 is not found in {labs.resolve()}" in capsys.readouterr().err


# --- a message the terminal cannot print -----------------------------------------------------

LONE_SURROGATE = """
import sys
sys.path.insert(0, {tests!r})
from pathlib import Path
from course_grader.cli import app as cli, grade_single
from course_grader.judging.verdicts import GradeResult, TestResult

def graded(path, options, student=None):
    message = "ValueError: bad byte \\udcff in the learner's message"
    tests = (TestResult(name="x", number="1", lab="11.3", score=0, output=message),)
    return GradeResult(submission=Path(path).name, student="alice", lab="11.3", status="ok", tests=tests, notes=(message,))

grade_single.grade_notebook = graded
raise SystemExit(cli.main(sys.argv[1:]))
"""


@pytest.mark.slow  # a subprocess of the command, twice
def test_the_single_notebook_command_writes_its_results_whatever_the_terminals_encoding(tmp_path: Path) -> None:
    """PYTHONIOENCODING=utf-8:strict and a lone surrogate in an error message: results.json, the page, exit 0."""
    path = tmp_path / "alice_lab_11_3.ipynb"
    nbformat.write(solution("11.3"), path)
    results, pages = tmp_path / "results.json", tmp_path / "feedback"
    for encoding in ("utf-8:strict", "ascii:strict"):
        finished = subprocess.run(
            [sys.executable, "-c", LONE_SURROGATE.format(tests=str(ROOT / "tests")), str(path), "--lab", "11.3",
             "--seed", TERM, "--results", str(results), "--feedback", str(pages), "--no-sandbox"],
            env={**os.environ, "PYTHONIOENCODING": encoding},
            capture_output=True,
            cwd=tmp_path,
            timeout=300,
        )  # fmt: skip
        assert finished.returncode == 0, finished.stderr.decode(errors="replace")
        assert b"\\udcff" in finished.stdout and b"Traceback" not in finished.stderr
        assert "bad byte" in json.loads(results.read_text())["output"]
        assert (pages / "alice_lab_11_3.html").is_file()
        results.unlink()


@pytest.mark.sandboxed
@pytest.mark.slow
def test_a_sandboxed_regrade_with_a_lone_surrogate_in_an_error_writes_its_results(tmp_path: Path) -> None:
    """The documented ``--seed`` regrade, for real, with a lone surrogate in what the notes quote.

    A kernel's messages reach the grader as JSON (U+FFFD by then), but the notes
    quote the notebook's own sources: here an untagged cell's first line, whose
    JSON escape ``\\udcff`` nbformat reads as a lone surrogate.
    """
    from test_grading_notes import helper_in_untagged_cell

    notebook_ = helper_in_untagged_cell()
    helper = next(cell for cell in notebook_.cells if cell.source.startswith("def token_count("))
    helper.source = helper.source.replace(":\n", ":  #\udcff\n", 1)  # within the 60 characters a note quotes
    path = tmp_path / "alice_lab_11_3_build_context.ipynb"
    path.write_text(json.dumps(notebook_, ensure_ascii=True), encoding="ascii")
    results = tmp_path / "results.json"
    finished = subprocess.run(
        [sys.executable, "-m", "course_grader", str(path), "--seed", TERM, "--results", str(results),
         "--feedback", str(tmp_path / "feedback")],
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
        capture_output=True,
        cwd=tmp_path,
        timeout=600,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr.decode(errors="replace")
    data = json.loads(results.read_text())
    assert data["score"] == 0 and "is defined in an untagged cell" in data["output"], data["output"]
    assert "float:  #\udcff" in data["output"]  # as json.loads reads the escape results.json holds
    assert b"\\udcff" in finished.stdout and (tmp_path / "feedback" / "alice_lab_11_3.html").is_file()


@pytest.mark.sandboxed
@pytest.mark.slow
def test_a_batch_explains_each_zero_and_the_honest_neighbour_keeps_full_marks(tmp_path: Path) -> None:
    """The rows of the issue in one sandboxed batch, LMS names read (``auto``), next to an honest submission."""
    from course_grader import Limits, grade_folder

    folder = tmp_path / "submissions"
    folder.mkdir()
    nbformat.write(solution("11.3"), folder / "alice_lab_11_3_build_context.ipynb")
    nbformat.write(solution_below_the_stub("11.3"), folder / "bob_lab_11_3_build_context.ipynb")
    (folder / "carol_lab_11_2.ipynb").write_bytes(b"")
    (folder / "dave_lab_11_4.ipynb").write_bytes(HTML)
    nbformat.write(solution("11.3"), folder / "lab_11_3_build_context.ipynb")  # the lab's own name, handed in as is
    options = GradeOptions(
        sandbox=SandboxSettings(limits=Limits(cell_timeout=20)),
        identity=Identity(names=Names.of("auto")),
        judging=JudgingSettings(seed=3),
    )
    rows = {result.submission: result for result in grade_folder(folder, options, jobs=2, progress=False)}
    honest = rows["alice_lab_11_3_build_context.ipynb"]
    assert (honest.status, honest.score, honest.max_score) == ("ok", 7, 7), honest.notes
    below = rows["bob_lab_11_3_build_context.ipynb"]
    assert below.score == 0 and any("the grader ran only the stubs in exercise cell 1" in n for n in below.notes)
    for name, lab, what in (
        ("carol_lab_11_2.ipynb", "11.2", "an empty file"),
        ("dave_lab_11_4.ipynb", "11.4", "an HTML page"),
    ):
        row = rows[name]
        assert (row.status, row.lab, row.score) == ("error", lab, 0) and f"{name} is {what}" in row.notes[0]
    plain = rows["lab_11_3_build_context.ipynb"]
    assert plain.student_source == "containing folder" and plain.student == "submissions" and plain.score == 7
