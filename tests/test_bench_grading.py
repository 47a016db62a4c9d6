"""`make bench`'s grading rows and options: the verdicts follow the numbers; the measurement runs (sandboxed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench
import grading
import nbgrader_row


def test_the_grading_verdicts_follow_the_numbers() -> None:
    """One notebook against its floor (<= 1.3x), the batch per notebook against the batch's floor (<= 1.15x)."""
    passed = grading.Grading(notebooks=20, jobs=2, one=3.9, floor=3.0, batch=1.15, batch_floor=1.0, cells=99)
    missed = grading.Grading(notebooks=20, jobs=2, one=3.91, floor=3.0, batch=1.16, batch_floor=1.0, cells=99)
    assert [ok for ok, _ in grading.grading_verdicts(passed)] == [True, True]
    assert [ok for ok, _ in grading.grading_verdicts(missed)] == [False, False]
    assert "1.30x its floor" in grading.grading_verdicts(missed)[0][1]
    assert "1.16x its floor per notebook" in grading.grading_verdicts(missed)[1][1]
    lines = grading.grading_lines(passed)
    assert "99 cells" in lines[0] and "1.00 s per notebook; 1.15x" in lines[1]


def test_the_nbgrader_verdicts_follow_the_numbers() -> None:
    """course-grade's wall time per notebook within 1.1x nbgrader's, its CPU time no more than nbgrader's."""
    row = nbgrader_row.NbgraderRow(
        notebooks=10, jobs=2, course_grade=2.2, course_grade_cpu=1.0, nbgrader=2.0, nbgrader_cpu=1.0
    )
    assert [ok for ok, _ in nbgrader_row.nbgrader_verdicts(row)] == [True, True]
    slower = nbgrader_row.NbgraderRow(
        notebooks=10, jobs=2, course_grade=2.21, course_grade_cpu=1.01, nbgrader=2.0, nbgrader_cpu=1.0
    )
    assert [ok for ok, _ in nbgrader_row.nbgrader_verdicts(slower)] == [False, False]
    assert "1.10x nbgrader autograde's wall time" in nbgrader_row.nbgrader_verdicts(slower)[0][1]


def test_the_options_choose_what_is_measured() -> None:
    defaults = bench.parse_arguments([])
    assert (defaults.sizes, defaults.explorer_sizes, defaults.notebooks, defaults.nbgrader) == (
        bench.SIZES,
        bench.EXPLORER_SIZES,
        bench.BATCH_NOTEBOOKS,
        nbgrader_row.NBGRADER_NOTEBOOKS,
    )
    chosen = bench.parse_arguments(
        ["--sizes", "1000,10000", "--explorer-sizes", "", "--notebooks", "0", "--nbgrader", "0", "--stress-sizes", ""]
    )
    assert (chosen.sizes, chosen.explorer_sizes, chosen.notebooks, chosen.nbgrader, chosen.stress_sizes) == (
        (1000, 10000),
        (),
        0,
        0,
        (),
    )


@pytest.mark.slow
@pytest.mark.sandboxed
def test_the_grading_rows_measure_real_grading(tmp_path: Path) -> None:
    """One notebook graded by the command, its floor replaying the cells grading sent, a batch of one."""
    measured = grading.measure_grading(tmp_path, notebooks=1, repeat=1)
    assert measured.cells > 10 and measured.one > 0 and measured.floor > 0 and measured.batch > 0
    assert measured.batch_floor > 0


@pytest.mark.slow
@pytest.mark.sandboxed
def test_the_nbgrader_row_grades_the_same_notebooks_both_ways(tmp_path: Path) -> None:
    """nbgrader autograde and course-grade on the same handed-in notebook, each timed."""
    row = nbgrader_row.measure_nbgrader(tmp_path, notebooks=1)
    assert row.nbgrader > 0 and row.course_grade > 0 and row.nbgrader_cpu > 0 and row.course_grade_cpu > 0
    assert (tmp_path / "grades.csv").read_text(encoding="utf-8").count("\n") >= 2  # a header and the student
