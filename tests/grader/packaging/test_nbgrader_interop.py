"""Real nbgrader accepts the solution notebooks, and the learner version it releases is ours (issue 17's interop).

An instructor who runs nbgrader puts ``labs/solutions/*.ipynb`` (and the
capstone's) in ``source/<assignment>/`` and runs ``nbgrader generate_assignment``;
the generator's nbgrader cell metadata (``scripts/make_learner_labs.py``) is what
lets it through. How the released notebook is compared with ours
(``labs/lab_11_N_*.ipynb``, ``notebooks/02_lifecycle_capstone.ipynb``):

- the same cells in the same order, with the same ids, types and tags;
- the same sources, exactly. nbgrader writes one ``ClearSolutions.code_stub`` for
  every region, while our stub names the function (or class) it sits in, so the
  released text can equal ours only where a lab has one stub: Lab 11.4, run with
  ``code_stub`` set to it. For every lab, nbgrader is also run with a one-line
  marker as its stub, and each marker is replaced by our stub for that place
  (``stub_lines``, from the lines before it): then the texts must be equal;
- the same nbgrader metadata, less what nbgrader adds when it releases: a
  ``checksum`` and ``cell_type`` in it (what autograding checks a read-only or
  answer cell against), and ``deletable``/``editable`` beside it (JupyterLab's
  locks for those cells); nothing else may differ.

nbgrader runs offline in a temporary course folder, with its own Jupyter config
folder, without a database (``--no-db``) for the release tests.

Then both ways: nbgrader releases Lab 11.3 with its gradebook and autogrades five
submissions (the solution, the untouched learner version, two mutants of
``tests/mutants`` that pass 2 of the 3 checks, and the solution without one test
cell), and each scores, check by check, what ``course-grade`` gives the same
notebook's checklist tests: judged in this process, and through the
``course-grade`` command in its sandboxes (``sandboxed``).

Every test that runs nbgrader is ``integration`` (``make test-integration``, which CI
runs; ``make test`` does not), but the one that also grades in sandboxes, which
``make test-sandboxed`` runs.

The venv's console script ``nbgrader`` runs with a ``PATH`` that lacks the venv's
scripts folder: nbgrader runs ``alembic`` by name when it makes a gradebook, so it
fails there, and works with the course folder's ``nbgrader_config.py`` from
``docs/examples/`` (docs/grading.md, *nbgrader*).
"""

from __future__ import annotations

import copy
import csv
import importlib.util
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from grading_corpus import grade_in_process, namespace, solution
from mutants import MUTANTS  # before the generator puts scripts/ (and its own mutants.py) first on sys.path
from nbgrader_course import (
    ASSIGNMENT,
    EXAMPLE_CONFIG,
    SCRIPTS,
    answered,
    autograde,
    console_nbgrader,
    path_without_the_venv,
    release,
)
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("make_learner_labs", ROOT / "scripts" / "make_learner_labs.py")
assert _spec and _spec.loader
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)

MARKER = "#@ nbgrader's stub @#"
RELEASE_METADATA = {"deletable", "editable"}
RELEASE_NBGRADER = {"checksum", "cell_type"}


def generate_assignment(course: Path, solutions: list[Path], code_stub: str) -> dict[str, Any]:
    """Run ``nbgrader generate_assignment`` on ``solutions``: the released notebooks, by file stem."""
    source = course / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    for path in solutions:
        shutil.copy(path, source / path.name)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.ClearSolutions.code_stub = {{'python': {code_stub!r}}}\n"
    )
    environment = os.environ | {
        "JUPYTER_CONFIG_DIR": str(course / ".jupyter"),
        "JUPYTER_DATA_DIR": str(course / ".data"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--no-db", "--force"],
        cwd=course,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    released = course / "release" / ASSIGNMENT
    return {path.stem: nbformat.read(released / path.name, as_version=4) for path in solutions}


def with_our_stubs(source: str, lab: str) -> str:
    """``source`` with each of nbgrader's marker lines replaced by the stub we write there."""
    lines = source.split("\n")
    out: list[str] = []
    for line in lines:
        if line.strip() == MARKER:
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + stub for stub in generator.stub_lines(out, indent, lab))
        else:
            out.append(line)
    return "\n".join(out)


def assert_same_learner_version(released: Any, ours: Any, lab: str, *, stubs: bool) -> None:
    assert released.metadata["course"] == ours.metadata["course"]
    assert [(c.get("id"), c.cell_type) for c in released.cells] == [(c.get("id"), c.cell_type) for c in ours.cells]
    for theirs, mine in zip(released.cells, ours.cells):
        source = with_our_stubs(theirs.source, lab) if stubs else theirs.source
        assert source == mine.source, f"cell {mine.id}: nbgrader's learner version differs from ours"
        metadata = {key: value for key, value in theirs.metadata.items() if key not in RELEASE_METADATA}
        if "nbgrader" in metadata:
            metadata["nbgrader"] = {
                key: value for key, value in metadata["nbgrader"].items() if key not in RELEASE_NBGRADER
            }
        assert metadata == dict(mine.metadata), f"cell {mine.id}: metadata differs beyond what nbgrader adds on release"
        if theirs.cell_type == "code":
            assert theirs.outputs == []


SOLUTIONS = generator.solution_paths()


@pytest.mark.slow  # each nbgrader run takes seconds
@pytest.mark.integration  # real nbgrader: make test-integration
def test_nbgrader_releases_our_learner_version_of_every_lab(tmp_path: Path) -> None:
    """Every lab and the capstone: accepted, and the same learner version as ours once stubs are set aside."""
    released = generate_assignment(tmp_path, SOLUTIONS, MARKER)
    for path in SOLUTIONS:
        ours = nbformat.read(generator.learner_path(path), as_version=4)
        theirs = released[path.stem]
        assert any(MARKER in cell.source for cell in theirs.cells), f"{path.name}: nbgrader cleared no solution"
        assert_same_learner_version(theirs, ours, ours.metadata["course"]["lab"], stubs=True)


def documented_code_stub() -> str:
    """The ``ClearSolutions.code_stub`` that docs/notebooks.md tells an instructor to set for Lab 11.4."""
    text = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]
    block = next(b for b in blocks if "ClearSolutions.code_stub" in b)
    config = Config()
    exec(block, {"c": config})  # noqa: S102 - the course's own docs, read to test that they say what the test runs
    return str(config.ClearSolutions.code_stub["python"])


def test_the_documented_code_stub_is_lab_11_4s_stub() -> None:
    assert documented_code_stub() == "\n".join(generator.stub_lines(["def create_compaction_entry():"], "    ", "11.4"))


@pytest.mark.slow
@pytest.mark.integration
def test_nbgrader_with_our_stub_releases_lab_11_4_exactly(tmp_path: Path) -> None:
    """Lab 11.4 has one stub; with it as ``ClearSolutions.code_stub`` (as documented), nbgrader's text is ours exactly."""
    path = next(p for p in SOLUTIONS if p.stem == "lab_11_4_create_compaction_entry")
    ours = nbformat.read(generator.learner_path(path), as_version=4)
    stubs = {line.strip() for cell in ours.cells for line in cell.source.split("\n") if "not implemented yet" in line}
    assert len(stubs) == 1, "Lab 11.4 no longer has a single stub: pick another lab for this test"
    released = generate_assignment(tmp_path, [path], documented_code_stub())
    assert_same_learner_version(released[path.stem], ours, "11.4", stubs=False)


@pytest.mark.slow
@pytest.mark.integration
def test_nbgrader_refuses_a_solution_region_without_our_metadata(tmp_path: Path) -> None:
    """Without the generator's metadata nbgrader refuses the solutions, as it did before (so the metadata is what matters)."""
    path = next(p for p in SOLUTIONS if p.stem == "lab_11_3_build_context")
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        cell.metadata.pop("nbgrader", None)
    bare = tmp_path / "bare" / path.name
    bare.parent.mkdir()
    nbformat.write(notebook, bare)
    with pytest.raises(AssertionError, match="Solution region detected in a non-solution cell"):
        generate_assignment(tmp_path / "course", [bare], MARKER)


def alembic_versions(gradebook: Path) -> list[tuple[str, ...]]:
    with sqlite3.connect(gradebook) as db:
        if not db.execute("SELECT name FROM sqlite_master WHERE name = 'alembic_version'").fetchall():
            return []
        return db.execute("SELECT version_num FROM alembic_version").fetchall()


@pytest.mark.slow  # three nbgrader start-ups
@pytest.mark.integration
def test_the_console_script_works_without_the_venv_on_path_with_the_example_config(tmp_path: Path) -> None:
    """Without the config a gradebook cannot be made (nbgrader's cause); with it, the version is recorded."""
    if shutil.which("alembic", path=path_without_the_venv()):
        pytest.skip("another alembic is on PATH outside the venv: nbgrader would find that one")
    bare, configured = tmp_path / "bare", tmp_path / "configured"
    bare.mkdir()
    configured.mkdir()
    shutil.copy(EXAMPLE_CONFIG, configured / "nbgrader_config.py")

    version = console_nbgrader(bare, "--version")
    assert version.returncode == 0 and "nbgrader version" in version.stdout, version.stderr
    failed = console_nbgrader(bare, "db", "student", "list")
    assert failed.returncode != 0 and "No such file or directory: 'alembic'" in failed.stderr, failed.stderr
    assert alembic_versions(bare / "gradebook.db") == [], "the failed run leaves a gradebook without its version"

    listed = console_nbgrader(configured, "db", "student", "list")
    assert listed.returncode == 0, listed.stderr
    assert "There are 0 students in the database" in listed.stdout
    assert len(alembic_versions(configured / "gradebook.db")) == 1


# --- nbgrader autograde against course-grade: the same checklist score ----------------------------------

GRADED_LAB = "11.3"
PARTLY_RIGHT = ("11_3_overflow_not_charged", "11_3_empty_path_crashes")
"""Two of tests/mutants with 2 of Lab 11.3's 3 checks: one fails check 8, one crashes in check 7."""
DELETED_TEST = "check-8"


def submissions(released: Any) -> dict[str, Any]:
    """What each student hands in: the released notebook, its exercise cells as the solution or a mutant has them.

    ``stub`` hands it in untouched; ``deleted`` is the solution with a test cell removed (nbgrader puts it back).
    """

    handed_in = {"solution": answered(released, solution(GRADED_LAB)), "stub": copy.deepcopy(released)}
    for mutant in MUTANTS:
        if mutant.name in PARTLY_RIGHT:
            handed_in[mutant.name.replace("_", "-")] = answered(released, mutant.notebook())
    deleted = copy.deepcopy(handed_in["solution"])
    deleted.cells = [cell for cell in deleted.cells if cell.id != DELETED_TEST]
    handed_in["deleted"] = deleted
    assert len(handed_in) == 5
    return handed_in


@pytest.fixture(scope="module")
def autograded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, float]]]:
    """nbgrader's scores of each submission, per test cell, and the folder of the notebooks it graded.

    The whole round runs as an instructor's would, with the console script and a PATH without the venv:
    generate_assignment (with its gradebook), the submissions in ``submitted/``, autograde.
    """
    course = tmp_path_factory.mktemp("nbgrader-course")
    path = next(p for p in SOLUTIONS if p.stem == "lab_11_3_build_context")
    released = release(course, path)
    graded = course / "course-grade"
    graded.mkdir()
    handed_in = submissions(released)
    for student, notebook in handed_in.items():
        nbformat.write(notebook, graded / f"{student}_lab_11_3.ipynb")
    scores: dict[str, dict[str, float]] = {}
    for student, got in autograde(course, path.name, handed_in).items():
        assert got.max_score == 3, f"{student}: nbgrader scores Lab 11.3 out of {got.max_score}"
        scores[student] = {name: score for name, score in got.cells.items() if name.startswith("check-")}
    return graded, scores


def expected_scores() -> dict[str, dict[str, float]]:
    """What each submission must score, per check (the mutants' own modules say which check they fail)."""
    full = {"check-7": 1.0, "check-8": 1.0, "check-9": 1.0}
    return {
        "solution": full,
        "deleted": full,
        "stub": dict.fromkeys(full, 0.0),
        "11-3-overflow-not-charged": full | {"check-8": 0.0},
        "11-3-empty-path-crashes": full | {"check-7": 0.0},
    }


def checklist_part(tests: list[tuple[str, float]]) -> dict[str, float]:
    """course-grade's checklist tests of a row, as nbgrader's test cells are named: ``{"check-7": 1.0, …}``."""
    return {f"check-{number}": score for number, score in tests if not number.startswith("H")}


@pytest.mark.slow  # nbgrader starts a kernel per submission
@pytest.mark.integration
def test_nbgrader_autograde_scores_the_checklist_as_course_grade_judges_it(
    autograded: tuple[Path, dict[str, dict[str, float]]],
) -> None:
    """Per check and in total, nbgrader's score is course-grade's checklist part (its judging, here in process)."""
    graded, nbgrader_scores = autograded
    assert nbgrader_scores == expected_scores()
    for student, scores in nbgrader_scores.items():
        notebook = nbformat.read(graded / f"{student}_lab_11_3.ipynb", as_version=4)
        result = grade_in_process(GRADED_LAB, namespace(GRADED_LAB, notebook), counterexamples=False)
        assert checklist_part([(test.number, test.score) for test in result.tests]) == scores, student
        assert len([test for test in result.tests if test.hidden]) == 4, "the hidden tests are course-grade's alone"


@pytest.mark.slow
@pytest.mark.sandboxed  # course-grade grades in bubblewrap sandboxes
def test_nbgrader_autograde_scores_the_checklist_as_the_course_grade_command_does(
    autograded: tuple[Path, dict[str, dict[str, float]]],
) -> None:
    """The same notebooks through ``course-grade``: its CSV's checklist columns are nbgrader's scores."""
    graded, nbgrader_scores = autograded
    grades = graded.parent / "grades.csv"
    done = subprocess.run(
        [str(SCRIPTS / "course-grade"), str(graded), "--labs", str(ROOT / "labs"), "--out", str(grades), "-j", "2"],
        cwd=graded.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with grades.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == len(nbgrader_scores)
    for row in rows:
        assert row["status"] in {"ok", "error"}, row["notes"]
        tests = [(column.split()[1], float(row[column])) for column in row if column.startswith(f"{GRADED_LAB} ")]
        assert checklist_part(tests) == nbgrader_scores[row["student"]], row["student"]
