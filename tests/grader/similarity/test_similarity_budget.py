"""No single notebook ends a batch (issue 43): the similarity pass has a budget, a bounded process, and comes last.

A notebook of many large exercise cells under the 20 MB limit held the
unsandboxed grader at about 40 MB per 200 kB cell in the similarity pass; at 76
cells it was OOM-killed after grading, and no CSV or records were written for
anyone. Now a submission over its budget is noted, not compared, the pass runs
in a child held to its own memory, and the grades are on disk before it starts.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution, tagged

from course_grader.judging.verdicts import GradeResult
from course_grader.results.records import read_records
from course_grader.sandbox import cgroup
from course_grader.similarity import budget, similarity
from course_grader.similarity.bounded import noted_within
from course_grader.similarity.similarity_notes import PREFIX, is_similarity_note
from course_lib.teaching.lab_registry import LABS

LAB = LABS["11.3"]


def text(name: str, size: int, cell: int = 1) -> similarity.Text:
    return similarity.Text(name, name.split("/")[0], cell, "x" * size)


def test_a_submission_over_its_budget_is_noted_not_compared() -> None:
    per_lab = {LAB: [text("a/x.ipynb", 100), text("b/x.ipynb", budget.SUBMISSION_BYTES + 1), text("c/x.ipynb", 100)]}
    per_lab[LAB] += [text("d/x.ipynb", 10, cell) for cell in range(1, budget.SUBMISSION_CELLS + 2)]
    notes: dict[str, list[str]] = {}
    kept = budget.within_budget(per_lab, notes)
    assert [t.name for t in kept[LAB]] == ["a/x.ipynb", "c/x.ipynb"]
    assert notes["b/x.ipynb"] == [
        f"{PREFIX}not compared: its exercise cells hold 128 kB in 1 cells, over the budget of 128 kB and 32 cells a "
        "submission"
    ]
    assert "in 33 cells, over the budget" in notes["d/x.ipynb"][0] and set(notes) == {"b/x.ipynb", "d/x.ipynb"}
    assert is_similarity_note(notes["b/x.ipynb"][0])  # for the instructor: the pages leave it out


def test_the_batchs_budget_is_spent_in_path_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "TOTAL_BYTES", 250)
    per_lab = {LAB: [text("c/x.ipynb", 100), text("a/x.ipynb", 100), text("b/x.ipynb", 100)]}
    notes: dict[str, list[str]] = {}
    assert [t.name for t in budget.within_budget(per_lab, notes)[LAB]] == ["a/x.ipynb", "b/x.ipynb"]
    assert list(notes) == ["c/x.ipynb"]  # the last in path order, whatever order the cells came in
    assert "the batch's budget of 0 kB and 8192 cells was used up before it" in notes["c/x.ipynb"][0]


def rows(folder: Path, names: dict[str, nbformat.NotebookNode]) -> list[GradeResult]:
    graded = []
    for student, notebook in names.items():
        (folder / student).mkdir(parents=True)
        nbformat.write(notebook, folder / student / "lab_11_3_build_context.ipynb")
        graded.append(GradeResult(submission=f"{student}/lab_11_3_build_context.ipynb", student=student, lab="11.3",
                                  status="ok"))  # fmt: skip
    return graded


@pytest.mark.slow  # a child process spawned, twice
def test_the_pass_runs_in_a_child_of_bounded_memory_and_failing_there_costs_no_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graded = rows(tmp_path, {"alice": solution("11.3"), "bob": solution("11.3")})
    noted = noted_within(graded, tmp_path)
    assert all(any(is_similarity_note(n) for n in row.notes) for row in noted)  # two copies: each notes the other
    starved = noted_within(graded, tmp_path, memory_mb=16)  # not even the imports fit
    assert starved == graded and "similarity not compared" in capsys.readouterr().err


def large(cells: int, kilobytes: int) -> nbformat.NotebookNode:
    """The Lab 11.3 solution with ``cells`` more exercise cells of ``kilobytes`` kB of code each."""
    notebook = solution("11.3")
    template = tagged(notebook, "exercise")[0]
    for number in range(cells):
        cell = copy.deepcopy(template)
        cell.id = f"large-{number}"
        lines = (f"value_{number}_{line} = {line} * {number} + len('x{line}')" for line in range(20_000))
        cell.source = "\n".join(lines)[: kilobytes * 1024]
        notebook.cells.append(cell)
    return notebook


@pytest.mark.slow
@pytest.mark.sandboxed  # root: the grader itself runs in a cgroup of 1.5 GB
def test_a_notebook_of_many_large_cells_ends_no_batch(tmp_path: Path) -> None:
    """20 cells of 200 kB (about 4 MB) beside two honest notebooks, the grader held to 1.5 GB as a whole."""
    if (reason := cgroup.unavailable()) is not None:
        pytest.fail(f"this test needs a cgroup to hold the grader in (CI runs as root): {reason}")
    folder = tmp_path / "submissions"
    rows(folder, {"a_large": large(20, 200), "b_honest": solution("11.3"), "c_honest": solution("11.3")})
    held = cgroup.create(1536, 1024)
    out = tmp_path / "grades.csv"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "course_grader", str(folder), "--out", str(out), "--no-progress", "--no-sandbox",
             "--timeout", "60", "--budget", "600"],
            preexec_fn=held.join,
            capture_output=True,
            text=True,
            timeout=1200,
        )  # fmt: skip
        killed = held.oom_killed()
    finally:
        held.remove()
    assert done.returncode == 0 and not killed, done.stderr[-2000:]
    graded = {row.student: row for row in read_records(out.with_suffix(".jsonl"))}
    for name in ("b_honest", "c_honest"):
        assert graded[name].score == graded[name].max_score > 0, graded[name].notes
        assert any(is_similarity_note(note) for note in graded[name].notes)  # the others were compared
    assert any("not compared: its exercise cells hold" in note for note in graded["a_large"].notes)
    assert not out.with_suffix(".partial.jsonl").exists()
