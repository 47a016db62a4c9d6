"""`make bench` at tiny sizes: the generators and the bench functions are correct (no timing asserted).

The generated sessions must be valid paths whose groups pass R11–R14 (with a
few compactions, R18), the pi log must import with nothing skipped, and the
PASS/MISS lines must follow from the measured numbers.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench
from sessions import GROUP_SIZE, candidates, generate_session, pi_lines, tenth_budget, write_pi_log

from course_lib import build_context, estimate_tokens_chars, group_interactions, path_to
from course_lib.importers import load_session

pytestmark = pytest.mark.slow  # the benchmark itself on tiny inputs, in subprocesses: make test, not make check


@pytest.mark.parametrize("n_entries", [1 + GROUP_SIZE, 12, 13, 14, 15, 101, 1_001])
def test_generated_session_has_exactly_n_entries_in_complete_groups(n_entries: int) -> None:
    """R10–R12: one linear path, ``sys`` then whole groups, every tool call answered."""
    path = generate_session(n_entries)
    assert len(path) == n_entries
    assert [entry.id for entry in path_to(path, path[-1].id)] == [entry.id for entry in path]
    messages = [entry for entry in path if entry.type == "message"]
    groups = group_interactions(messages)  # raises if a call had no result (R12)
    assert sum(len(group.entries) for group in groups) == len(messages) - 1
    assert all(group.entries[0].message.role == "user" for group in groups)


def test_a_long_session_has_tool_details_usage_model_changes_and_a_few_compactions() -> None:
    path = generate_session(1_001)
    kinds = [entry.type for entry in path]
    assert kinds.count("compaction") == 3 and kinds.count("metadata") >= 1
    results = [e.message for e in path if e.type == "message" and e.message.role == "toolResult"]
    assert all(isinstance(result.details, dict) for result in results)
    calls = [
        b
        for e in path
        if e.type == "message" and e.message.role == "assistant"
        for b in e.message.content
        if b.type == "toolCall"
    ]
    assert {call.name for call in calls} == {"read", "bash", "edit"} and all(call.arguments for call in calls)
    assert len(candidates(path)) < len([e for e in path if e.type == "message"])  # R18: from the latest compaction


def test_generator_refuses_a_session_too_small_for_one_group() -> None:
    with pytest.raises(ValueError, match="at least"):
        generate_session(GROUP_SIZE)


def test_tenth_budget_keeps_about_a_tenth_of_the_candidates() -> None:
    """R19: a contiguous newest suffix of roughly a tenth of the candidate messages is kept."""
    path = generate_session(1_001)
    result = build_context(path, estimate_tokens=estimate_tokens_chars, **tenth_budget(path))
    assert result.reason == "trimmed"
    assert 0.05 <= len(result.kept_entry_ids) / len(candidates(path)) <= 0.15
    assert list(result.kept_entry_ids) == [entry.id for entry in path[-len(result.kept_entry_ids) :]]


def test_the_pi_log_imports_the_same_messages(tmp_path: Path) -> None:
    path = generate_session(101)
    assert len(pi_lines(path)) == 102  # a header, then one line per entry
    log = tmp_path / "pi.jsonl"
    assert write_pi_log(log, megabytes=0.05) == log.stat().st_size
    imported = load_session(log)
    assert imported.format == "pi" and not imported.skipped and len(imported.entries) > 10


def test_measure_runs_every_timing_on_a_tiny_session(tmp_path: Path) -> None:
    row = bench.measure(200, tmp_path, repeat=2)
    assert row.entries == 200 and 0 < row.kept < 200
    timings = (
        row.loads,
        row.first_open,
        row.reopen,
        row.resume,
        row.lazy_reopen,
        row.explorer_open,
        row.models_only,
        row.plain_open,
        row.build,
        row.floor,
    )
    assert all(seconds > 0 for seconds in timings)
    lines = bench.table([row]).splitlines()
    assert [line.split(" (")[0].rsplit(" ", 2)[0].strip() for line in lines[1 : 2 + len(bench.OPERATIONS)]] == [
        "json.loads of the lines",
        *(name for name, _ in bench.OPERATIONS),
    ]
    assert lines[-1].split()[:2] == ["200", str(row.kept)]


def test_resume_gives_the_context_of_the_path_itself(tmp_path: Path) -> None:
    """The timed resume does the real work: reopen, what the projection reads of the leaf's path, the projection (R9, R10)."""
    path = generate_session(101)
    jsonl = tmp_path / "session.jsonl"
    bench.write_jsonl(path, jsonl)
    budget = tenth_budget(path)
    assert bench.resume(jsonl, path[-1].id, budget) == build_context(
        path, estimate_tokens=estimate_tokens_chars, **budget
    )


@pytest.mark.parametrize("part", ["size:200", "explorer:300", "import:0.05"])
def test_each_measurement_runs_in_a_fresh_process(part: str) -> None:
    measured = bench.in_fresh_process(part)
    assert type(measured) is bench._KINDS[part.split(":")[0]]
    assert all(value > 0 for value in vars(measured).values())


def test_an_unknown_part_is_refused() -> None:
    with pytest.raises(RuntimeError, match="unknown part 'sizes:1'"):
        bench.in_fresh_process("sizes:1")


def test_measure_redraw_and_import_run_on_tiny_inputs(tmp_path: Path) -> None:
    redraw = bench.measure_redraw(300, repeat=2)
    imported = bench.measure_import(0.05, tmp_path, repeat=1)
    assert redraw.budget_slider > 0 and redraw.page_slider > 0
    assert imported.entries > 10 and imported.load > 0 and imported.loads > 0
    assert "budget slider" in bench.extras([redraw], imported)


def _row(
    entries: int,
    *,
    loads: float,
    first_open: float,
    reopen: float,
    resume: float,
    build: float,
    floor: float,
    explorer_open: float = 0.0,
) -> bench.Row:
    return bench.Row(
        entries=entries,
        kept=entries // 10,
        loads=loads,
        first_open=first_open,
        reopen=reopen,
        resume=resume,
        lazy_reopen=reopen / 10,
        build=build,
        floor=floor,
        explorer_open=explorer_open,
    )


def test_verdicts_follow_the_numbers() -> None:
    rows = [
        _row(
            1_000, loads=0.5, first_open=5.0, reopen=5.0, resume=1.0, build=1.0, floor=1.0
        ),  # 1k: only build/floor judged
        _row(10_000, loads=2.0, first_open=4.0, reopen=2.2, resume=3.0, build=3.0, floor=1.0, explorer_open=0.9),
        _row(
            100_000, loads=30.0, first_open=61.0, reopen=30.0, resume=40.0, build=40.0, floor=10.0, explorer_open=13.0
        ),
    ]
    redraws = [
        bench.Redraw(entries=10_000, budget_slider=0.031, page_slider=0.002),
        bench.Redraw(entries=100_000, budget_slider=0.300, page_slider=0.020),
    ]
    imported = bench.Import(megabytes=50.2, entries=70_000, load=6.0, loads=2.5)
    checks = {sentence.split(" (")[0]: passed for passed, sentence in bench.verdicts(rows, redraws, imported)}
    assert checks == {
        "first open + entries() takes 2.00x json.loads at 10000 entries": True,
        "first open + entries() takes 2.03x json.loads at 100000 entries": False,
        "reopen + resume_path + build_context takes 1.50x json.loads at 10000 entries": False,
        "explorer open takes 0.45x json.loads at 10000 entries": True,
        "build_context is 1.00x its floor at 1000 entries": True,
        "build_context is 3.00x its floor at 10000 entries": True,
        "build_context is 4.00x its floor at 100000 entries": False,
        "the explorer redraws in 31.00 ms after a budget slider moves at 10000 entries": False,
        "the explorer redraws in 300.00 ms after a budget slider moves at 100000 entries": True,
        "first open + entries() grows 15.2x from 10000 to 100000 entries": True,  # <= 1.2 x 15
        "reopen + entries() grows 13.6x from 10000 to 100000 entries": True,
        "reopen + resume_path + build_context grows 13.3x from 10000 to 100000 entries": True,
        "explorer open grows 14.4x from 10000 to 100000 entries": True,
        "build_context grows 13.3x from 10000 to 100000 entries": False,  # the floor grew 10x: <= 12x
        "importing a 50 MB pi log takes 2.40x json.loads": True,
    }


def test_best_time_reports_seconds_per_call() -> None:
    calls: list[None] = []
    seconds = bench.best_time(lambda: calls.append(None), repeat=3)
    assert seconds >= 0 and len(calls) == 4  # one warm-up, then three cold runs


def test_growth_is_judged_against_the_baselines_own_growth() -> None:
    """Past the CPU caches even json.loads grows more than 10x; linear work may grow as fast, plus 20 %."""
    small = _row(10_000, loads=1.0, first_open=1.0, reopen=1.0, resume=1.0, build=1.0, floor=1.0)
    for reopen, passed in ((17.0, True), (19.0, False)):
        large = _row(100_000, loads=15.0, first_open=15.0, reopen=reopen, resume=15.0, build=10.0, floor=10.0)
        checks = {sentence.split(" (")[0]: ok for ok, sentence in bench.verdicts([small, large])}
        assert checks[f"reopen + entries() grows {reopen:.1f}x from 10000 to 100000 entries"] is passed


def test_the_calls_a_ratio_compares_take_turns() -> None:
    """Drift in the machine's speed must reach both sides of a ratio: one run of each per round."""
    order: list[str] = []
    seconds = bench.best_times({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeat=3)
    assert set(seconds) == {"a", "b"} and min(seconds.values()) >= 0
    assert order == ["a", "b"] + ["a", "b"] * 3  # the warm-ups, then three rounds


def test_the_models_alone_are_reported_as_the_least_a_reopen_can_take() -> None:
    """An INFO line, not a target: building the models at pydantic-core's speed, against json.loads."""
    row = dataclasses.replace(
        _row(10_000, loads=1.0, first_open=2.0, reopen=1.5, resume=2.0, build=3.0, floor=1.0), models_only=1.2
    )
    assert any(
        line.startswith("building the models alone") and "1.20x json.loads at 10000 entries" in line
        for line in bench.references([row])
    )


def test_every_timing_is_the_best_of_the_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each quantity from whichever fresh process measured it fastest; counts are kept as they are."""
    measured = iter(
        [
            bench.Import(megabytes=1.0, entries=7, load=3.0, loads=1.5),
            bench.Import(megabytes=1.0, entries=7, load=2.0, loads=1.8),
            bench.Import(megabytes=1.0, entries=7, load=2.5, loads=1.2),
        ]
    )
    parts: list[str] = []

    def in_fresh_process(part: str) -> bench.Import:
        parts.append(part)
        return next(measured)

    monkeypatch.setattr(bench, "in_fresh_process", in_fresh_process)
    best = bench.best_of_processes("import:1.0", processes=3)
    assert parts == ["import:1.0"] * 3
    assert best == bench.Import(megabytes=1.0, entries=7, load=2.0, loads=1.2)
