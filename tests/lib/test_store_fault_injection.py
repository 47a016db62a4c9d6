"""Fault injection: writers and recoveries killed at random points (R8).

A child process appends entries with fsync and reports each acknowledged id through
a pipe; the parent SIGKILLs it after a random (seeded) delay, then checks that every
acknowledged entry is in the file, reopening it, or recovering it into a new file when
the kill tore the last line. The children are forked from this process (course_lib is
already imported), so thirty kills take a few seconds. Bounded and self-stopping: no
timing is asserted, only what is on disk.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from course_lib import JsonlSessionStore

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child to kill it (POSIX only)")

KILLS = 30
SEED = 20261130
CHILD_LIMIT_SECONDS = 5.0
"""A child not killed by then stops by itself."""


def _metadata(entry_id: str, parent: str | None, size: int) -> dict[str, Any]:
    return {"type": "metadata", "id": entry_id, "parentId": parent, "timestamp": 1, "key": "k", "value": "x" * size}


def _in_child(work: Callable[[int], None]) -> tuple[int, int]:
    """Fork a child running ``work(pipe)``; returns (pid, read end of the pipe)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        status = 0
        try:
            os.close(read_end)
            work(write_end)
        except BaseException:  # noqa: BLE001 - the child reports any failure as its exit status
            status = 3
        os._exit(status)
    os.close(write_end)
    return pid, read_end


def _kill_and_collect(pid: int, read_end: int, delay: float) -> str:
    """Kill the child after ``delay`` seconds; everything it reported before dying."""
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert not os.WIFEXITED(status) or os.WEXITSTATUS(status) == 0, "the child failed before it was killed"
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    return b"".join(chunks).decode()


def _append_until_killed(path: Path, round_no: int, parent: str | None) -> Callable[[int], None]:
    def work(ack: int) -> None:
        store = JsonlSessionStore.open(path)  # fsync=True: acknowledged means on disk
        sizes = random.Random(round_no)
        started = time.monotonic()
        previous = parent
        for number in itertools.count():
            if time.monotonic() - started > CHILD_LIMIT_SECONDS:
                return
            entry_id = f"r{round_no}-{number}"
            size = sizes.choice([10, 100, 2_000, 200_000])  # a long line is more likely to be torn
            store.append(_metadata(entry_id, previous, size))
            os.write(ack, f"{entry_id}\n".encode())
            previous = entry_id

    return work


@pytest.mark.slow  # several seconds: make test, not make check
def test_r8_a_writer_killed_at_random_points_loses_no_acknowledged_entry(tmp_path: Path) -> None:
    delays = random.Random(SEED)
    current = tmp_path / "session-0.jsonl"
    acknowledged: list[str] = []
    parent: str | None = None
    recoveries = 0
    for round_no in range(KILLS):
        pid, read_end = _in_child(_append_until_killed(current, round_no, parent))
        acknowledged += _kill_and_collect(pid, read_end, delays.uniform(0.0, 0.12)).split()
        store = JsonlSessionStore.open(current)  # every file reopens ...
        if store.warnings:  # ... or, with a torn tail, recovers into a clean one
            assert [w.code for w in store.warnings] == ["unterminated_tail"]
            recoveries += 1
            current = tmp_path / f"session-{recoveries}.jsonl"
            store = JsonlSessionStore.recover_into(store.path, current)
            assert store.warnings == ()
        ids = [entry.id for entry in store.entries()]
        assert set(acknowledged) <= set(ids), f"round {round_no}: acknowledged entries lost"
        positions = [ids.index(entry_id) for entry_id in acknowledged]
        assert positions == sorted(positions), "entries are on disk in the order they were acknowledged"
        parent = ids[-1] if ids else None
        store.close()
    assert acknowledged, "no append was ever acknowledged: the kills came too early to test anything"


def _recover(source: Path, target: Path) -> Callable[[int], None]:
    def work(ack: int) -> None:
        JsonlSessionStore.recover_into(source, target)
        os.write(ack, b"done\n")

    return work


@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_r8_a_recovery_killed_at_random_points_leaves_no_half_target(tmp_path: Path) -> None:
    source = tmp_path / "crashed.jsonl"
    with JsonlSessionStore.open(source, fsync=False) as store:
        parent = None
        for number in range(3_000):
            store.append(_metadata(f"e{number}", parent, 200))
            parent = f"e{number}"
    with source.open("ab") as handle:
        handle.write(b'{"type": "metad')  # a torn tail: the reason to recover
    started = time.perf_counter()
    expected = [entry.id for entry in JsonlSessionStore.recover_into(source, tmp_path / "reference.jsonl").entries()]
    duration = time.perf_counter() - started  # only to spread the kills over one recovery
    delays = random.Random(SEED)
    for round_no in range(10):
        target = tmp_path / f"clean-{round_no}.jsonl"
        pid, read_end = _in_child(_recover(source, target))
        reported = _kill_and_collect(pid, read_end, delays.uniform(0.0, 1.2 * duration))
        if target.exists():  # the whole copy, or ...
            assert [entry.id for entry in JsonlSessionStore.open(target).entries()] == expected
        else:  # ... no target at all, and a rerun works
            assert reported == ""
            assert [entry.id for entry in JsonlSessionStore.recover_into(source, target).entries()] == expected
