"""`make bench`'s live lab rows (issue 46): the verdicts follow the numbers; a short load runs for real."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench
import live


def load(post_p99: float, page_p99: float, memory_mb: float) -> live.LiveLoad:
    return live.LiveLoad(
        learners=120, seconds=120, pages=5, posts=7000, refused=0, post_p50=0.005, post_p99=post_p99,
        page_p50=0.1, page_p99=page_p99, page_worst=1.2, memory_mb=memory_mb, cpu_share=0.1,
    )  # fmt: skip


def test_the_live_verdicts_follow_the_numbers() -> None:
    assert [ok for ok, _ in live.live_verdicts(load(0.049, 0.99, 199))] == [True, True, True]
    assert [ok for ok, _ in live.live_verdicts(load(0.050, 1.0, 200))] == [False, False, False]
    assert "p99 50.0 ms" in live.live_lines(load(0.050, 1.0, 200))[1]
    assert "about 1200 learners" in live.live_references(load(0.01, 0.1, 50))[0]


def test_the_live_part_is_chosen_by_its_options() -> None:
    assert (bench.parse_arguments([]).live_learners, bench.parse_arguments([]).live_seconds) == (120, 120.0)
    chosen = bench.parse_arguments(["--live-learners", "0"])
    assert chosen.live_learners == 0


@pytest.mark.slow  # a server under a short load, in a fresh process
def test_the_live_part_measures_a_real_server() -> None:
    measured = bench.in_fresh_process("live:6:3")
    assert isinstance(measured, live.LiveLoad)
    assert measured.posts > 0 and measured.refused == 0 and measured.memory_mb > 0
    assert measured.post_p99 >= measured.post_p50 > 0 and measured.page_worst >= measured.page_p50 > 0
