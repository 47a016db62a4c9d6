"""The pool of worker processes a batch grades in: one submission per job, a job lost only by itself.

Each submission is graded in a worker process whose job is known: a worker
that dies (killed for memory, say) or hangs costs only the submission it was
grading, and the batch is told which (``run_jobs``' lost jobs, its ``hung``),
to grade it once more alone or give it a ``timeout`` row. A grader bug in a
worker becomes that submission's ``error`` row. Whenever a worker ends, killed
or not, the batch cleans up after it (``worker_cleanup``); its temporary files
live in a folder of its own under the batch's, which the batch removes.
"""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing
import os
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from ..intake.lab_names import named_lab
from ..judging.grade_options import GradeOptions
from ..judging.verdicts import GradeResult
from .ungraded import ungraded_row
from .worker_cleanup import clean_up_after

Grade = Callable[..., GradeResult]
"""``grade(path, options, root=root)``, like ``grade_notebook``; module-level, so a spawned worker can import it."""

STARTUP_ALLOWANCE = 300.0
"""Seconds a fresh worker may take to start (import the grader) before its first job counts as hung."""


def died(exitcode: int | None) -> str:
    """What a worker's exit code says, e.g. ``the grading worker died (signal 9: killed, likely out of memory)``."""
    if exitcode is None or exitcode == 0:
        return "the grading worker died"
    if exitcode > 0:
        return f"the grading worker died (exit status {exitcode})"
    number = -exitcode
    why = (signal.strsignal(number) or f"signal {number}").lower()
    memory = ", likely out of memory" if number == signal.SIGKILL else ""
    return f"the grading worker died (signal {number}: {why}{memory})"


def _grade_safely(grade: Grade, path: Path, options: GradeOptions, root: str) -> GradeResult:
    try:
        return grade(path, options, root=root)
    except BaseException as exc:  # noqa: BLE001 - even a grader bug becomes one row, not a stopped batch
        return ungraded_row(path, root, options, f"grading crashed: {type(exc).__name__}: {exc}", lab=named_lab(path))


def die_with(parent: int) -> None:
    """This process is killed when ``parent`` dies, however it dies (Linux's ``PR_SET_PDEATHSIG``; issue 43).

    A ``course-grade`` stopped by SIGKILL runs no clean-up: its workers (and so their sandboxes, which die
    with them) must not grade on for a minute beside nobody.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the next run's clean-up is what is left
        return
    if os.getppid() != parent:  # it died before the request took effect
        os._exit(1)


PR_SET_PDEATHSIG = 1


def _serve(connection: Connection, grade: Grade, scratch: str, parent: int) -> None:
    """A worker: grade the jobs ``connection`` sends, one at a time, until it sends ``None`` or closes.

    Its temporary files (sandbox homes and kernels' connection files) go under
    the batch's ``scratch`` folder, which the batch removes even if this worker
    is killed; it dies with the batch (``die_with``). Ctrl-C is the batch's to
    handle: it stops the workers.
    """
    die_with(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
    while True:
        try:
            job = connection.recv()
        except EOFError:
            return
        if job is None:
            return
        index, path, options, root = job
        connection.send(("started", index))  # the job's time runs from here, not from a slow start-up
        connection.send(("done", index, _grade_safely(grade, path, options, root)))


_NUMBERS = itertools.count()
"""Worker folders are named by number: short, since a kernel's socket paths live below them."""


class _Worker:
    """One spawned worker process, its own folder, and the job it is grading (``None`` when idle)."""

    def __init__(self, grade: Grade, scratch: str) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds kernel threads
        self.folder = Path(scratch) / str(next(_NUMBERS))
        self.folder.mkdir(mode=0o700)
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child, grade, str(self.folder), os.getpid()), name="course-grade-worker"
        )
        self.process.start()
        child.close()
        self.job: int | None = None
        self.started = 0.0
        self.running = False
        """True once the worker said it started the job: until then its start-up (imports) is not the job's time."""

    def give(self, index: int, job: tuple[Any, ...]) -> None:
        self.job, self.started, self.running = index, time.monotonic(), False
        self.connection.send(job)

    def overdue(self, deadline: float) -> float:
        """Seconds past the job's deadline (negative: still within it); a worker's start-up gets its own allowance."""
        return time.monotonic() - self.started - deadline - (0 if self.running else STARTUP_ALLOWANCE)

    def heard(self, done: Callable[[int, GradeResult], None]) -> bool:
        """Whether the worker said something: it started its job, or finished it (``done``). False: it is gone."""
        try:
            if self.connection.poll():
                message = self.connection.recv()
                if message[0] == "started":
                    self.started, self.running = time.monotonic(), True
                else:
                    self.job = None
                    done(message[1], message[2])
                return True
        except (EOFError, OSError):
            pass
        return False

    def stop(self, *, kill: bool = False) -> int | None:
        """Stop the process (politely when idle) and return its exit code."""
        if not kill:
            try:
                self.connection.send(None)
            except OSError:
                pass
            self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()
        if self.process.pid is not None:
            clean_up_after(self.process.pid, self.folder)
        return self.process.exitcode


def run_jobs(
    indexes: Iterable[int],
    jobs: int,
    paths: dict[int, Path],
    root: str,
    options: GradeOptions,
    grade: Grade,
    scratch: str,
    deadline: float,
    done: Callable[[int, GradeResult], None],
    hung: Callable[[int], None],
) -> dict[int, int | None]:
    """Grade ``indexes`` with up to ``jobs`` workers; returns the jobs whose worker died, with its exit code.

    A worker that dies takes only its own job with it (the others keep going,
    and a fresh worker takes its place); one busy for longer than ``deadline``
    seconds is killed and its job reported to ``hung``.
    """
    queue = deque(indexes)
    workers: list[_Worker] = []
    lost: dict[int, int | None] = {}
    try:
        while queue or any(worker.job is not None for worker in workers):
            for worker in workers:
                if worker.job is None and queue:
                    index = queue.popleft()
                    worker.give(index, (index, paths[index], options, root))
            while queue and len(workers) < jobs:
                workers.append(worker := _Worker(grade, scratch))
                index = queue.popleft()
                worker.give(index, (index, paths[index], options, root))
            busy = [worker for worker in workers if worker.job is not None]
            left = -max(worker.overdue(deadline) for worker in busy)
            ready = set(wait([w.connection for w in busy] + [w.process.sentinel for w in busy], timeout=max(0.0, left)))
            for worker in busy:
                job = worker.job
                assert job is not None
                if worker.connection in ready or worker.process.sentinel in ready:
                    if worker.heard(done):
                        continue
                    lost[job] = worker.stop(kill=True)
                    workers.remove(worker)
                elif worker.overdue(deadline) > 0:
                    worker.stop(kill=True)
                    workers.remove(worker)
                    hung(job)
    finally:
        for worker in workers:
            worker.stop(kill=worker.job is not None)
    return lost
