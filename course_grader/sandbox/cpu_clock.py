"""The time a sandbox is charged: what it ran or slept, never what others kept it waiting for a CPU (issues 27, 43).

A wall-clock limit charges a sandbox for time a neighbour took from it: 55 busy
processes in one sandbox gave an honest Lab 11.5 beside it "setup over 60 s"
and 0/8. Each sandbox has its own share of the CPUs now (``cgroup.py``), and
every time limit (the setup's, each cell's and call's, the submission's
budget) is charged in

    charged = max(cpu, wall − waited)

over the interval, where ``cpu`` is the CPU time of the whole sandbox (its
cgroup's counter, ended processes included) and ``waited`` the time *the
sandbox itself* was stalled for a CPU held outside it: its cgroup's own
``cpu.pressure`` ``full`` total, the time in which every runnable task of the
sandbox waited and none of them ran. A submission's own processes cannot make
that time: while one of them runs, the sandbox is not stalled (issue 43: 40
processes waking on one tick piled up run-queue waits, and the sum of every
thread's waits made a 25 s sleep free under a 10 s limit). Where the kernel
does not measure a cgroup's pressure, ``waited`` is the longest single
thread's wait between two readings (``schedstat``), never their sum, and
never more than the wall-clock time between them.

On a quiet machine ``waited`` is about 0 and the charge is the wall-clock
time, as before: a cell that sleeps or blocks is charged as it always was.

Generous wall-clock backstop: whatever the charge, a limit also stops after
``BACKSTOP`` times its seconds of wall-clock time. A limit met that way is the
host's doing only when the sandbox's own stall was measured (``starved_note``:
a batch grades the row once more alone, ``batch.py``); otherwise it counts
against the submission, as its own time (``backstop_note``), and is not graded
again.

Without a cgroup (or without its CPU counter) the charge is the wall-clock time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

BACKSTOP = 3.0
"""A limit of N seconds also stops after ``BACKSTOP`` × N seconds of wall-clock time, whatever was charged."""

SLICE = 0.5
"""Seconds between two readings while a cell runs or the submission's budget is watched."""

STARVED = "the host kept this sandbox waiting for a CPU"
"""The start of ``starved_note``: a batch grades a row whose notes start so once more alone."""


def starved_note(limit: float) -> str:
    return (
        f"{STARVED}: a limit of {limit:g} s stopped it at its wall-clock backstop ({BACKSTOP:g}× the limit) "
        "before its own time was used up"
    )


def backstop_note(limit: float) -> str:
    """A limit met at its backstop where the sandbox's own stall is not measured: the submission's time, not the host's."""
    return (
        f"a limit of {limit:g} s stopped it at its wall-clock backstop ({BACKSTOP:g}× the limit), counted as its "
        "own time: this machine does not measure whether the host or the submission kept its sandbox waiting"
    )


class Counted(Protocol):
    """What a meter reads of a sandbox (``cgroup.SandboxCgroup``)."""

    def cpu_seconds(self) -> float | None: ...

    def stalled_seconds(self) -> float | None: ...

    def threads(self) -> list[int]: ...


@dataclass(frozen=True)
class Reading:
    """One reading of a sandbox's clocks, each counted from some fixed point (only differences mean anything)."""

    wall: float
    cpu: float | None
    """The sandbox's CPU time; None where nothing counts it (the charge is then the wall-clock time)."""
    waited: float
    """Seconds the sandbox was stalled for a CPU held outside it (its cgroup's ``cpu.pressure`` ``full``), or, where
    that is not measured, the sum over readings of the longest single thread's wait, each at most the time between."""
    measured: bool = False
    """Whether ``waited`` is the cgroup's own stall as the kernel measures it: only then is a backstop the host's."""


def charged(since: Reading, now: Reading) -> float:
    """Seconds charged between two readings: ``max(cpu, wall − waited)``; the wall-clock time without a counter."""
    wall = now.wall - since.wall
    if now.cpu is None or since.cpu is None:
        return wall
    return max(now.cpu - since.cpu, wall - (now.waited - since.waited))


def over(since: Reading, now: Reading, limit: float) -> str | None:
    """``"charged"`` when the limit's seconds are charged, ``"backstop"`` at its wall-clock backstop, else None."""
    if charged(since, now) >= limit:
        return "charged"
    if now.wall - since.wall >= BACKSTOP * limit:
        return "backstop"
    return None


def schedstat_wait(tid: int, proc: Path = Path("/proc")) -> int | None:
    """Nanoseconds thread ``tid`` has waited on a run queue (``schedstat``'s second field), None once it is gone."""
    try:
        fields = (proc / str(tid) / "schedstat").read_text().split()
    except OSError:
        return None
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


class Meter:
    """Readings of one sandbox; a thread's waits are kept once read, so a thread that ends keeps them.

    Read from the grader's thread (each cell) and the budget's watch: one lock.
    """

    def __init__(
        self,
        group: Counted | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[int], int | None] = schedstat_wait,
    ) -> None:
        self.group = group
        self._clock = clock
        self._wait = wait
        self._lock = threading.Lock()
        self._seen: dict[int, int] = {}
        self._waited_ns = 0
        self._scanned: float | None = None
        self.starved: list[float] = []
        """The limits that stopped the sandbox at their backstop while the host starved it (``starved_note``)."""
        self.own: list[float] = []
        """The limits met at their backstop with no measure of who starved it: the submission's (``backstop_note``)."""

    def read(self, *, scan: bool = True) -> Reading:
        """The clocks now: the cgroup's own stall where measured, else the threads' waits (``scan=False`` leaves
        those as last read, at most a ``SLICE`` old while a ``Watch`` runs: reading every ``schedstat`` costs)."""
        with self._lock:
            wall = self._clock()
            cpu = self.group.cpu_seconds() if self.group is not None else None
            if cpu is None or self.group is None:
                return Reading(wall, cpu, self._waited_ns / 1e9)
            stalled = self.group.stalled_seconds()
            if stalled is not None:
                return Reading(wall, cpu, stalled, measured=True)
            if scan:
                self._scan(wall)
            return Reading(wall, cpu, self._waited_ns / 1e9)

    def _scan(self, wall: float) -> None:
        """Add the longest wait any one thread had since the last scan, at most the wall-clock time since then."""
        assert self.group is not None
        longest = 0
        for tid in self.group.threads():
            now = self._wait(tid)
            if now is None:
                continue
            before = self._seen.get(tid, 0)
            if now < before:  # the id was reused by a new thread
                before = 0
            longest = max(longest, now - before)
            self._seen[tid] = now
        since = wall - self._scanned if self._scanned is not None else None
        self._scanned = wall
        self._waited_ns += longest if since is None else min(longest, int(since * 1e9))

    def over(self, since: Reading, limit: float, *, scan: bool = False) -> bool:
        """Whether ``limit`` is used up since ``since``; one met at its backstop is remembered for the notes.

        The charge is at most ``max(cpu, wall)``, so the threads' waits are read (``scan``) only once the
        wall-clock time alone has reached the limit: a cell that ends in time costs no ``schedstat`` read.
        """
        now = self.read(scan=scan)
        if not scan and now.wall - since.wall >= limit:
            now = self.read()  # the wall-clock time is up: the waits decide
        verdict = over(since, now, limit)
        if verdict == "backstop":
            with self._lock:
                (self.starved if now.measured else self.own).append(limit)
        return verdict is not None

    def notes(self) -> list[str]:
        said = [starved_note(limit) for limit in self.starved] + [backstop_note(limit) for limit in self.own]
        return list(dict.fromkeys(said))


class Watch:
    """Calls ``expire`` once ``limit`` seconds are charged to the sandbox (or at the backstop): the submission's budget."""

    def __init__(self, meter: Meter, limit: float, expire: Callable[[], None]) -> None:
        self._meter, self._limit, self._expire = meter, limit, expire
        self._stopped = threading.Event()
        self._since = meter.read()
        self._thread = threading.Thread(target=self._run, daemon=True, name="course-grade-budget")
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(SLICE):  # each slice reads the threads' waits, so they are never stale
            if self._meter.over(self._since, self._limit, scan=True):
                self._expire()
                return

    def stop(self) -> None:
        self._stopped.set()
