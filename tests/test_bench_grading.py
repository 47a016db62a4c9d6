"""`make bench`'s grading rows and options: the verdicts follow the numbers; the measurement runs (sandboxed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench
import grading


def test_the_grading_verdicts_follow_the_numbers() -> None:
    passed = grading.Grading(notebooks=20, jobs=2, one=4.4, floor=3.0, batch=1.3, cells=99)
    missed = grading.Grading(notebooks=20, jobs=2, one=4.6, floor=3.0, batch=1.31, cells=99)
    assert [ok for ok, _ in grading.grading_verdicts(passed)] == [True, True]
    assert [ok for ok, _ in grading.grading_verdicts(missed)] == [False, False]
    assert "1.53x its floor" in grading.grading_verdicts(missed)[0][1]
    lines = grading.grading_lines(passed)
    assert "99 cells" in lines[0] and "0.87x the floor shared by 2 cores (1.50 s)" in lines[1]


def test_the_options_choose_what_is_measured() -> None:
    defaults = bench.parse_arguments([])
    assert (defaults.sizes, defaults.explorer_sizes, defaults.notebooks) == (
        bench.SIZES,
        bench.EXPLORER_SIZES,
        bench.BATCH_NOTEBOOKS,
    )
    chosen = bench.parse_arguments(["--sizes", "1000,10000", "--explorer-sizes", "", "--notebooks", "0"])
    assert (chosen.sizes, chosen.explorer_sizes, chosen.notebooks) == ((1000, 10000), (), 0)


@pytest.mark.slow
@pytest.mark.sandboxed
def test_the_grading_rows_measure_real_grading(tmp_path: Path) -> None:
    """One notebook graded by the command, its floor replaying the cells grading sent, a batch of one."""
    measured = grading.measure_grading(tmp_path, notebooks=1, repeat=1)
    assert measured.cells > 10 and measured.one > 0 and measured.floor > 0 and measured.batch > 0
