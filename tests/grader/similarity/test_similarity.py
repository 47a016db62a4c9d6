"""Similarity, reported and never judged (issue 27): pastes of course_lib and copies between students are noted.

The fast tests compare cells in process (no kernel, no sandbox): the
``course_lib`` paste and two students' copy are reported, the course's
honest solutions written apart (``similarity_variants``) are not, scores and
statuses stay as graded, the note reads back into the report's table, and the
learner's feedback page leaves it out. One slow test runs a real batch.
"""

from __future__ import annotations

import ast
import copy
import json
from itertools import combinations
from pathlib import Path

import nbformat
import pytest
from grading_corpus import grade_in_process, learner, namespace, solution, tagged
from similarity_variants import VARIANTS, pasteable, renamed, variant_notebook, variants
from synthetic_class import result

from course_grader.intake.cells import exercise_sources
from course_grader.judging.verdicts import GradeResult
from course_grader.publish.feedback import write_feedback
from course_grader.publish.report import build_report
from course_grader.publish.report_grades import read_grades
from course_grader.results.records import write_records
from course_grader.similarity import similarity, similarity_notes
from course_lib.teaching import lab_registry

ROOT = Path(__file__).resolve().parents[3]
CONTEXT = pasteable((ROOT / "course_lib" / "context.py").read_text(encoding="utf-8"))
"""``course_lib/context.py`` as the red team pasted it into Lab 11.3's exercise cell (7/7 before this report)."""


def pasted(lab: str, source: str) -> nbformat.NotebookNode:
    """The learner's notebook with ``source`` put in the first exercise cell, after the stub (as a paste lands)."""
    notebook = copy.deepcopy(learner(lab))
    cell = tagged(notebook, "exercise")[0]
    cell.source = cell.source + "\n\n" + source
    return notebook


def batch(folder: Path, notebooks: dict[str, nbformat.NotebookNode], lab: str = "11.3") -> list[GradeResult]:
    """Each notebook written to ``folder/<student>/`` with a graded-looking row (full marks, no kernel)."""
    rows = []
    for student, notebook in notebooks.items():
        path = folder / student / f"{lab_registry.lab(lab).notebook}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(notebook), encoding="utf-8")
        rows.append(result(student, lab, {}, notes=("graded again alone after a hiccup",)))
    return rows


def test_a_paste_of_course_lib_is_reported_with_the_cell_and_the_module(tmp_path: Path) -> None:
    rows = batch(tmp_path, {"mallory": pasted("11.3", CONTEXT), "honest": solution("11.3")})
    noted = {r.student: r for r in similarity.noted(rows, tmp_path)}
    assert noted["mallory"].notes[-1] == (
        f"{similarity_notes.PREFIX}exercise cell 1 is 93 % alike course_lib/context.py, "
        "the course's own implementation of Lab 11.3"
    )
    assert noted["honest"].notes == rows[1].notes  # the course's own solution is not course_lib's code


def test_a_renamed_paste_is_still_reported(tmp_path: Path) -> None:
    rows = batch(tmp_path, {"mallory": pasted("11.3", renamed(CONTEXT))})
    (noted,) = similarity.noted(rows, tmp_path)
    match = similarity_notes.parsed(noted.notes[-1], "11.3", noted.submission, noted.student)
    assert match is not None and match.reference and match.other == "course_lib/context.py"
    assert match.share >= similarity.THRESHOLD


def test_two_students_with_the_same_code_are_both_noted_and_nothing_else_changes(tmp_path: Path) -> None:
    copied = variant_notebook("11.3", VARIANTS["11.3"][0])
    rows = batch(tmp_path, {"alice": copied, "bob": copy.deepcopy(copied), "carol": solution("11.3")})
    noted = similarity.noted(rows, tmp_path)
    by = {r.student: r for r in noted}
    assert by["alice"].notes[-1] == (
        f"{similarity_notes.PREFIX}exercise cell 1 is 100 % alike exercise cell 1 of bob/lab_11_3_build_context.ipynb "
        "(100 % of that cell; student bob)"
    )
    assert by["bob"].notes[-1].endswith("of alice/lab_11_3_build_context.ipynb (100 % of that cell; student alice)")
    assert by["carol"].notes == rows[2].notes
    for before, after in zip(rows, noted):  # reported, not judged: everything but the notes as graded
        assert after.model_copy(update={"notes": before.notes}) == before
        assert after.notes[: len(before.notes)] == before.notes


@pytest.mark.slow  # compares a class three ways: make test, not make check
def test_a_shard_compares_with_the_whole_folder_so_merge_joins_the_notes_of_one_run(tmp_path: Path) -> None:
    """Each shard grades its part, but its rows' notes are the ones one run of the whole folder writes."""
    copied = variant_notebook("11.3", VARIANTS["11.3"][0])
    rows = batch(tmp_path, {"alice": copied, "bob": copy.deepcopy(copied), "carol": solution("11.3")})
    whole = similarity.noted(rows, tmp_path)
    assert whole[0].notes != rows[0].notes  # alice and bob are alike
    assert [similarity.noted([row], tmp_path, rest_of=None)[0] for row in rows] == whole
    assert similarity.noted(rows[:1], tmp_path) == rows[:1]  # a batch alone compares only what it graded


@pytest.mark.slow  # compares a class of copies: make test, not make check
def test_a_class_handing_in_one_solution_names_the_closest_few_and_counts_the_rest(tmp_path: Path) -> None:
    rows = batch(tmp_path, {f"s{index}": solution("11.2") for index in range(similarity.NAMED + 3)}, lab="11.2")
    first = similarity.noted(rows, tmp_path)[0]
    added = first.notes[len(rows[0].notes) :]
    assert len(added) == similarity.NAMED + 1
    assert added[-1] == f"{similarity_notes.PREFIX}exercise cell 1 is alike 2 more submissions' cells than these"


def test_one_students_own_duplicates_are_not_a_copy(tmp_path: Path) -> None:
    rows = batch(tmp_path, {"alice": solution("11.3")})
    again = tmp_path / "alice" / "lab_11_3_build_context-1.ipynb"
    again.write_text(nbformat.writes(solution("11.3")), encoding="utf-8")
    rows.append(result("alice", "11.3", {}, submission="alice/lab_11_3_build_context-1.ipynb"))
    assert similarity.noted(rows, tmp_path) == rows


@pytest.mark.parametrize("lab", sorted(VARIANTS))
def test_honest_solutions_written_apart_are_not_reported(lab: str) -> None:
    """The course's solution and the variants: none against another, none against course_lib."""
    honest = variants(lab)
    cells = [similarity.Text(name, name, n, s) for name, sources in honest.items() for n, s in enumerate(sources, 1)]
    entry = lab_registry.LABS[lab]
    found = similarity.compare_lab(
        entry, cells, boilerplate=similarity.stub_cells(entry), references=similarity.reference_texts(entry)
    )
    assert found == []
    assert len(list(combinations(honest, 2))) >= 1


@pytest.mark.parametrize("lab", sorted(lab_registry.LABS))
def test_no_course_solution_is_reported_against_course_lib(lab: str) -> None:
    cells = [similarity.Text("solution", "s", n, s) for n, s in enumerate(exercise_sources(solution(lab)), 1)]
    entry = lab_registry.LABS[lab]
    found = similarity.compare_lab(
        entry, cells, boilerplate=similarity.stub_cells(entry), references=similarity.reference_texts(entry)
    )
    assert found == []


@pytest.mark.slow  # grades a notebook and compares a class: make test, not make check
def test_the_paste_scores_full_marks_as_the_issue_found() -> None:
    """Judging cannot tell a paste: the module's functions, returning the course's classes, score in full.

    Pasted whole, the module also defines its own result classes, which the lab's contract does not name
    (issue 43): that paste is a wrong return; the one keeping the setup cell's classes is what similarity reports.
    """
    graded = grade_in_process("11.3", namespace("11.3", pasted("11.3", functions_pasted())))
    assert graded.score == graded.max_score
    whole = grade_in_process("11.3", namespace("11.3", pasted("11.3", CONTEXT)))
    assert whole.score < whole.max_score
    assert any("a type the lab's contract does not name" in test.output for test in whole.tests if test.hidden)


RESULT_CLASSES = ("_Result", "TokenProjection", "BuildContextResult")
"""What ``course_lib/context.py`` defines that Lab 11.3's setup cell imports: a paste that keeps those is the course's."""


def functions_pasted() -> str:
    """``CONTEXT`` without the result classes the setup cell already imports: the paste that scores in full."""
    tree = ast.parse(CONTEXT)
    tree.body = [node for node in tree.body if not (isinstance(node, ast.ClassDef) and node.name in RESULT_CLASSES)]
    return ast.unparse(tree)


@pytest.mark.slow
@pytest.mark.parametrize("lab", sorted(VARIANTS))
def test_the_variants_are_honest_full_marks(lab: str) -> None:
    """Honest means correct too: each variant keeps full marks under the grader's own judging."""
    for cells in VARIANTS[lab]:
        graded = grade_in_process(lab, namespace(lab, variant_notebook(lab, cells)))
        assert graded.score == graded.max_score, [t.output for t in graded.tests if not t.passed]


def test_the_stub_alone_matches_nothing(tmp_path: Path) -> None:
    """Every learner starts from the same stub: it is boilerplate, so untouched notebooks are not copies."""
    rows = batch(tmp_path, {"a": learner("11.3"), "b": learner("11.3")})
    assert similarity.noted(rows, tmp_path) == rows


def test_an_unreadable_file_has_no_cells_and_no_note(tmp_path: Path) -> None:
    rows = batch(tmp_path, {"a": solution("11.3")})
    (tmp_path / "a" / "lab_11_3_build_context.ipynb").write_text("not JSON", encoding="utf-8")
    assert similarity.noted(rows, tmp_path) == rows


@pytest.mark.slow  # compares a batch and renders its pages and report: make test, not make check
def test_the_report_lists_each_pair_once_and_the_feedback_page_leaves_the_note_out(tmp_path: Path) -> None:
    copied = variant_notebook("11.3", VARIANTS["11.3"][1])
    rows = batch(tmp_path, {"alice": copied, "bob": copy.deepcopy(copied), "mallory": pasted("11.3", CONTEXT)})
    noted = similarity.noted(rows, tmp_path)
    from course_grader.results.grades_frame import write_csv

    csv = write_csv(noted, tmp_path / "grades.csv")
    assert list(csv.columns) == list(write_csv(rows, tmp_path / "before.csv").columns)  # no new column
    write_records(noted, tmp_path / "grades.jsonl")
    grades = read_grades(tmp_path / "grades.csv")
    for results in (noted, None):  # from the records, and from the CSV's notes alone
        page = build_report(grades, results, "grades.csv")
        section = page.split('<section id="similarity">')[1]
        assert section.count("<tr>") == 3  # the header, alice ~ bob once, mallory ~ course_lib
        assert "course_lib/context.py</code> (the course's own code)" in section
        assert "alice/lab_11_3_build_context.ipynb" in section and "bob/lab_11_3_build_context.ipynb" in section
    pages = write_feedback(noted, tmp_path / "feedback")
    alice = next(p for p in pages if "alice" in p.name).read_text(encoding="utf-8")
    assert "graded again alone" in alice and "bob" not in alice and similarity_notes.PREFIX not in alice


@pytest.mark.slow  # renders a report with its charts: make test, not make check
def test_a_report_without_matches_says_so(tmp_path: Path) -> None:
    rows = batch(tmp_path, {"alice": solution("11.3")})
    from course_grader.results.grades_frame import write_csv

    write_csv(similarity.noted(rows, tmp_path), tmp_path / "grades.csv")
    page = build_report(read_grades(tmp_path / "grades.csv"), None, "grades.csv")
    assert "No exercise cell was alike" in page


def test_the_note_reads_back_whatever_the_file_is_called() -> None:
    match = similarity_notes.Match("11.3", "x", "x", 2, 0.93, "we (ird) | =name.ipynb", "st (udent); x", 1, 0.871)
    assert similarity_notes.parsed(similarity_notes.note(match), "11.3", "x", "x") == similarity_notes.Match(
        "11.3", "x", "x", 2, 0.93, "we (ird) | =name.ipynb", "st (udent); x", 1, 0.87
    )


def test_the_grader_starts_without_copydetect() -> None:
    """copydetect (and the matplotlib it imports) loads only when a batch compares: no module imports it at the top."""
    for path in sorted((ROOT / "course_grader").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(name.split(".")[0] == "copydetect" for name in names), path.name


@pytest.mark.slow
@pytest.mark.parametrize("lab", ["11.2", "11.3", "11.4", "11.5"])
def test_every_mutant_is_reported_as_a_copy_of_the_solution(lab: str) -> None:
    """A mutant is one student's copy of another's code with one edit: each pair is found."""
    from mutants import MUTANTS

    copies = [m for m in MUTANTS if m.lab == lab]
    cells = [similarity.Text("solution", "s", n, c) for n, c in enumerate(exercise_sources(solution(lab)), 1)]
    for m in copies:
        cells += [similarity.Text(m.name, m.name, n, c) for n, c in enumerate(exercise_sources(m.notebook()), 1)]
    found = similarity.compare_lab(
        lab_registry.LABS[lab], cells, boilerplate=similarity.stub_cells(lab_registry.LABS[lab])
    )
    assert {m.other for m in found if m.file == "solution"} == {m.name for m in copies}


def test_a_comparison_that_fails_leaves_the_rows_as_they_are(tmp_path: Path, monkeypatch, capsys) -> None:
    rows = batch(tmp_path, {"a": pasted("11.3", CONTEXT)})

    def broken(*args: object, **kwargs: object) -> list[similarity_notes.Match]:
        raise RecursionError("deep")

    monkeypatch.setattr(similarity, "compare_lab", broken)
    assert similarity.noted(rows, tmp_path) == rows
    assert "similarity of Lab 11.3 not compared (RecursionError: deep)" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.sandboxed
def test_a_real_batch_notes_the_paste_and_keeps_its_full_marks(tmp_path: Path) -> None:
    """End to end, ``course-grade FOLDER``: the paste of course_lib/context.py's functions scores 7/7, its row says so."""
    from course_grader.cli import app as cli

    submissions = tmp_path / "submissions"
    for student, notebook in {"mallory": pasted("11.3", functions_pasted()), "honest": solution("11.3")}.items():
        (submissions / student).mkdir(parents=True)
        (submissions / student / "lab_11_3_build_context.ipynb").write_text(nbformat.writes(notebook))
    out = tmp_path / "grades.csv"
    assert cli.main([str(submissions), "--out", str(out), "--no-progress"]) == 0
    records = {r["student"]: r for r in map(json.loads, out.with_suffix(".jsonl").read_text().splitlines())}
    assert [t["score"] for t in records["mallory"]["tests"]] == [1.0] * 7
    assert any(
        n.startswith(similarity_notes.PREFIX) and "course_lib/context.py" in n for n in records["mallory"]["notes"]
    )
    assert not any(n.startswith(similarity_notes.PREFIX) for n in records["honest"]["notes"])
    grades = read_grades(out)
    assert "course_lib/context.py" in grades.frame.set_index("student").at["mallory", "notes"]
