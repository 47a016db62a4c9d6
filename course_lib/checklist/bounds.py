"""Every check runs within a time and a memory bound, inline as in the grader's kernel: no inline check can hang.

A learner's loop without an end (the capstone's uncapped retry loop, L4) must
stop with a message naming the rule, not fill the kernel's memory for minutes.
``bounded()`` gives the code inside it ``SECONDS`` of wall-clock time and
``MEMORY_MB`` of memory beyond what the process held when it started:

- time: a ``SIGALRM`` timer in the main thread (where a Jupyter kernel and
  pytest run a cell), which also interrupts a ``sleep`` or a blocking read; in
  another thread a watchdog thread raises in the checked thread instead. Either
  way the interrupt is a ``KeyboardInterrupt`` (what interrupting a kernel
  raises), so a learner's ``except Exception`` cannot swallow it; it repeats
  every ``REPEAT`` seconds until the code gives up.
- memory: on Linux the soft ``RLIMIT_AS`` is lowered for the duration, so a huge
  allocation fails at once with a ``MemoryError``; everywhere the timer's ticks
  also compare the peak resident size with the bound (a slowly growing list).

The grader runs the same ``record_case`` in its sandboxed kernel (its own limits
are 10 s per cell and 2 GiB in all), so a check stopped here sends the grader the
same record the learner's notebook judges: the same verdict, the same message.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ..teaching.i18n import message
from ..teaching.wording import Wording, say

SECONDS = 5.0
"""Wall-clock seconds one check may run: far above any check's need, below the grader's 10 s per cell."""
MEMORY_MB = 1024
"""Megabytes one check may allocate beyond what the process held when it started."""
REPEAT = 0.05
"""Seconds between the timer's ticks: how often memory is measured, and the interrupt raised again once due."""
MAX_SENDS = 50
"""More ``send()`` (or ``compact()``) calls than any hidden case needs: a loop without a cap ends here, not never (L4).

The capstone's check 18 and the grader's scripted ``send()`` (``harness.drive_recovery``) both stop there.
"""

try:
    import resource
except ImportError:  # pragma: no cover - Windows: no rlimits, the tick's measure is all there is
    resource = None  # type: ignore[assignment]


@dataclass
class Bound:
    """What stopped the code, if anything: ``"time"``, ``"memory"`` or ``None``."""

    seconds: float
    megabytes: int
    reached: str | None = None

    @property
    def description(self) -> Wording:
        """The sentence a learner reads when the bound stopped a check (one of ``STOPPED``)."""
        if self.reached == "memory":
            return say(MEMORY_REACHED, megabytes=self.megabytes)
        return say(TIME_REACHED, seconds=format(self.seconds, "g"))


MEMORY_REACHED = message(
    "it used more than {megabytes} MB of memory, the bound of one check (a list that never stops growing?)"
)
TIME_REACHED = message("it ran longer than {seconds} s, the bound of one check (a loop that never ends?)")


def _statm(field: int) -> int | None:
    """One size from Linux's ``/proc/self/statm`` in bytes (0: virtual, 1: resident), ``None`` elsewhere."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[field])
    except (OSError, ValueError, IndexError):
        return None
    return pages * resource.getpagesize() if resource is not None else None


def _resident_mb() -> float:
    """The process's resident size in MB; where statm is missing, its peak (``ru_maxrss``: KiB, bytes on macOS)."""
    resident = _statm(1)
    if resident is not None:
        return resident / 2**20
    if resource is None:  # pragma: no cover - Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


@contextlib.contextmanager
def _address_limit(megabytes: int) -> Iterator[None]:
    """Lower the soft ``RLIMIT_AS`` to the current size plus ``megabytes`` (never above the hard limit)."""
    size = _statm(0)
    if resource is None or size is None:
        yield
        return
    saved = resource.getrlimit(resource.RLIMIT_AS)
    soft, hard = saved
    wanted = size + megabytes * 2**20
    limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft <= limit:
        yield  # a tighter limit is already in force (the grader's kernel under a low hard limit)
        return
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # pragma: no cover - a platform that refuses it: the tick's measure remains
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, saved)


@contextlib.contextmanager
def bounded(seconds: float | None = None, megabytes: int | None = None) -> Iterator[Bound]:
    """Run the block within ``seconds`` and ``megabytes`` (``SECONDS``, ``MEMORY_MB`` when not given).

    ``Bound.reached`` says which one stopped it.
    The block is stopped by a ``KeyboardInterrupt``; the caller tells it from a
    learner's own interrupt by ``Bound.reached``, and lets a real one through.
    """
    seconds = SECONDS if seconds is None else seconds
    megabytes = MEMORY_MB if megabytes is None else megabytes
    bound = Bound(seconds, megabytes)
    start_mb = _resident_mb()
    deadline = time.monotonic() + seconds

    def tick() -> None:
        if _resident_mb() - start_mb > megabytes:
            bound.reached = bound.reached or "memory"
        elif time.monotonic() >= deadline:
            bound.reached = bound.reached or "time"
        if bound.reached:
            raise KeyboardInterrupt(bound.description)

    with _address_limit(megabytes):
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            with _signal_ticks(tick):
                yield bound
        else:
            with _watchdog_ticks(tick):
                yield bound


@contextlib.contextmanager
def _signal_ticks(tick: object) -> Iterator[None]:
    active = {"on": True}

    def handler(signum: int, frame: object) -> None:
        if active["on"]:
            tick()  # type: ignore[operator]

    previous = signal.signal(signal.SIGALRM, handler)
    pending = signal.setitimer(signal.ITIMER_REAL, REPEAT, REPEAT)
    try:
        yield
    finally:
        active["on"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if pending[0] > 0:  # someone else's timer was running (pytest-timeout): give it back
            signal.setitimer(signal.ITIMER_REAL, *pending)


@contextlib.contextmanager
def _watchdog_ticks(tick: object) -> Iterator[None]:
    """Outside the main thread: a watchdog thread raises in the checked thread when the bound is reached."""
    target = threading.get_ident()
    done = threading.Event()

    def watch() -> None:
        while not done.wait(REPEAT):
            try:
                tick()  # type: ignore[operator]
            except KeyboardInterrupt:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), ctypes.py_object(KeyboardInterrupt))

    watcher = threading.Thread(target=watch, name="checklist-bound", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)  # one sent as the block ended
