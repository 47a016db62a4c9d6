"""Grade a folder of submissions as independent jobs and write one CSV row per submission.

Every ``.ipynb`` found gets a row, and so does every folder that could not be
read: one bad submission (or a grader bug) becomes a row with status
``error``, never a stopped or silently shorter batch (docs/grading.md,
*Grading a folder*). What the folder holds is hostile: only regular files are
graded (a link, FIFO, device, socket or folder named ``.ipynb`` gets an
``error`` row without being opened or followed), who a file belongs to comes
from its folder, and duplicates are flagged, not silently resolved.

Each submission is graded in a worker process whose job is known: a worker
that dies (killed for memory, say) or hangs costs only the submission it was
grading, which is graded once more alone before it gets an ``error`` row with
the reason. Everything a batch writes to disk lives in one temporary folder,
removed at the end, whatever its workers did.
"""

from __future__ import annotations

import csv
import multiprocessing
import os
import signal
import tempfile
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from course_lib import lab_registry
from .grade import GradeOptions, grade_notebook, lab_view, not_graded
from .notebook import identify, lab_in_name, not_regular, refusal, submission_name
from .results import GradeResult, Status, write_atomically

Grade = Callable[..., GradeResult]
"""``grade(path, options, root=root)``, like ``grade_notebook``; module-level, so a spawned worker can import it."""

CHECKPOINTS = ".ipynb_checkpoints"
STARTUP_ALLOWANCE = 300.0
"""Seconds a fresh worker may take to start (import the grader) before its first job counts as hung."""


@dataclass(frozen=True)
class Found:
    """An entry of the submissions folder that is, or poses as, a notebook."""

    path: Path
    refused: str | None = None
    """What it is instead of a regular file (``notebook.not_regular``): it gets an ``error`` row, unopened."""
    modified: int = 0
    """Its modification time (``lstat``, ns): the latest of a student's duplicates counts."""


def discover(folder: str | Path, unreadable: list[Path] | None = None) -> list[Found]:
    """Every ``.ipynb`` under ``folder``, plus every link to a folder, in path order; nothing is followed.

    ``os.scandir`` with ``follow_symlinks=False`` throughout: a link (to a
    file or a folder, inside the tree or not) is reported, never entered or
    opened; a folder named ``.ipynb`` is reported, not entered; Jupyter's
    checkpoints are skipped. Folders that cannot be listed are added to
    ``unreadable`` (when given), so the batch can report them.
    """
    found: list[Found] = []
    pending = [Path(folder)]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError as error:
            if unreadable is not None:
                unreadable.append(Path(error.filename or current))
            continue
        for entry in entries:
            path = Path(entry.path)
            notebook = entry.name.endswith(".ipynb")
            try:
                status = entry.stat(follow_symlinks=False)
                if entry.is_symlink():
                    if notebook or os.path.isdir(path):  # a stat through the link, never an open
                        found.append(Found(path, not_regular(path, status), status.st_mtime_ns))
                elif entry.is_dir(follow_symlinks=False):
                    if notebook:
                        found.append(Found(path, "a folder", status.st_mtime_ns))
                    elif entry.name != CHECKPOINTS:
                        pending.append(path)
                elif notebook:
                    found.append(Found(path, not_regular(path, status), status.st_mtime_ns))
            except OSError as error:  # gone or unreadable between the listing and the lstat
                if notebook:
                    found.append(Found(path, f"unreadable ({error.strerror or error})"))
    return sorted(found, key=lambda item: item.path)


def find_submissions(folder: str | Path, unreadable: list[Path] | None = None) -> list[Path]:
    """The paths ``discover`` finds (regular or not: reading them is what refuses the others)."""
    return [item.path for item in discover(folder, unreadable)]


def grade_folder(
    folder: str | Path,
    options: GradeOptions = GradeOptions(),
    *,
    jobs: int = 1,
    progress: bool = True,
    grade: Grade = grade_notebook,
    job_timeout: float | None = None,
) -> list[GradeResult]:
    """Grade every submission under ``folder``: a row per entry ``discover`` finds, then a row per unreadable folder.

    ``jobs`` workers grade at once. ``job_timeout`` (default: twice the
    submission budget and a minute) stops a worker stuck on one submission;
    that row becomes ``timeout``. Duplicates are flagged by ``flag_duplicates``.
    """
    root = str(folder)
    unreadable: list[Path] = []
    entries = discover(folder, unreadable)
    deadline = job_timeout if job_timeout is not None else 2 * options.limits.budget + 60
    rows: dict[int, GradeResult] = {}
    for index, item in enumerate(entries):
        if item.refused:
            rows[index] = _row(item.path, root, options, refusal(item.path, item.refused))
    with tempfile.TemporaryDirectory(prefix="course-grade-batch-") as scratch:
        views = Path(scratch) / "views"
        work = Path(scratch) / "w"  # short: a kernel's sockets live below it (a unix socket path has ~100 bytes)
        work.mkdir()
        options = replace(options, views=options.views or str(views))
        for lab in lab_registry.LABS:  # built once, before the workers start: they share one copy of each lab's view
            lab_view(lab, options.views)
        todo = [index for index in range(len(entries)) if index not in rows]
        paths = {index: entries[index].path for index in todo}
        with tqdm(total=len(todo), desc="grading", unit="notebook", disable=not progress) as bar:

            def done(index: int, result: GradeResult) -> None:
                rows[index] = result
                bar.update()
                bar.set_postfix_str(f"{result.student}: {result.status}", refresh=False)

            def hung(index: int) -> None:
                done(index, _row(paths[index], root, options, f"grading took longer than {deadline:g} s; its worker was "
                                 "stopped", status="timeout", lab=lab_in_name(paths[index])))

            lost = _run_jobs(todo, jobs, paths, root, options, grade, str(work), deadline, done, hung)
            for index, exitcode in lost.items():  # graded once more, alone in a fresh worker
                again = _run_jobs([index], 1, paths, root, options, grade, str(work), deadline, done, hung)
                if index in again:
                    done(index, _row(paths[index], root, options, f"{died(again[index])}, also when graded again alone",
                                     lab=lab_in_name(paths[index])))
                else:
                    rows[index] = rows[index].model_copy(update={"notes": (
                        f"graded again alone after {died(exitcode)}", *rows[index].notes)})
    results = [rows[index] for index in range(len(entries))]
    results = flag_duplicates(results, {submission_name(e.path, root): e.modified for e in entries})
    return results + [_row(path, root, options, f"the folder {path} could not be read") for path in unreadable]


def _row(path: Path, root: str, options: GradeOptions, note: str, *, status: Status = "error",
         lab: str | None = None) -> GradeResult:
    """A row for a submission that was not graded (refused, unreadable, its worker died or hung), every test at 0."""
    who, source = identify(path, root) if Path(path) != Path(root) else (Path(path).name, "folder")
    result = not_graded(path, who, lab, note, time.monotonic(), options)
    return result.model_copy(update={"submission": submission_name(path, root), "student_source": source,
                                     "status": status, "execution_time": 0.0})


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
        return _row(path, root, options, f"grading crashed: {type(exc).__name__}: {exc}", lab=lab_in_name(path))


def _serve(connection: Connection, grade: Grade, scratch: str) -> None:
    """A worker: grade the jobs ``connection`` sends, one at a time, until it sends ``None`` or closes.

    Its temporary files (sandbox homes and kernels' connection files) go under
    the batch's ``scratch`` folder, which the batch removes even if this worker
    is killed. Ctrl-C is the batch's to handle: it stops the workers.
    """
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


class _Worker:
    """One spawned worker process and the job it is grading (``None`` when idle)."""

    def __init__(self, grade: Grade, scratch: str) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds kernel threads
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, grade, scratch), name="course-grade-worker")
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
        return self.process.exitcode


def _run_jobs(indexes: Iterable[int], jobs: int, paths: dict[int, Path], root: str, options: GradeOptions, grade: Grade,
              scratch: str, deadline: float, done: Callable[[int, GradeResult], None],
              hung: Callable[[int], None]) -> dict[int, int | None]:
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
                    try:
                        if worker.connection.poll():
                            message = worker.connection.recv()
                            if message[0] == "started":
                                worker.started, worker.running = time.monotonic(), True
                            else:
                                worker.job = None
                                done(message[1], message[2])
                            continue
                    except (EOFError, OSError):
                        pass
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


def flag_duplicates(results: list[GradeResult], modified: dict[str, int]) -> list[GradeResult]:
    """Two or more rows for one student and lab: every row stays, each names the others and the one that counts.

    The one that counts is the latest modified (``modified``, by ``submission``;
    a tie goes to the last in path order). Rows with no lab (not a readable
    notebook) take no part.
    """
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, result in enumerate(results):
        if result.lab is not None:
            groups[(result.student, result.lab)].append(index)
    flagged = list(results)
    for (student, lab), indexes in groups.items():
        if len(indexes) < 2:
            continue
        files = [results[i].submission for i in indexes]
        counting = max(indexes, key=lambda i: (modified.get(results[i].submission, 0), results[i].submission))
        chosen = results[counting].submission
        for index in indexes:
            others = ", ".join(f for f in files if f != results[index].submission)
            verdict = "this one counts" if index == counting else f"{chosen} counts, not this one"
            note = (f"duplicate: {student} has {len(indexes)} {lab_registry.lab(lab).label} submissions (also {others}); "
                    f"{verdict} (the latest modified)")
            flagged[index] = results[index].model_copy(update={"notes": (note, *results[index].notes),
                                                                "counts": index == counting})
    return flagged


def _test_order(column: tuple[str, str, str]) -> tuple[int, int, int, str]:
    """Labs in course order (``lab_registry.LABS``), checklist tests by number, then hidden tests H1, H2, …"""
    lab, number, name = column
    position = list(lab_registry.LABS).index(lab) if lab in lab_registry.LABS else len(lab_registry.LABS)
    hidden = number.startswith("H")
    digits = number.removeprefix("H")
    return position, int(hidden), int(digits) if digits.isdigit() else 0, name


def results_frame(results: Iterable[GradeResult]) -> pd.DataFrame:
    """One row per submission: student, lab, a score column per test, total, percent, status, notes.

    The test columns come in a fixed order (``_test_order``), whatever order the submissions arrive in.
    """
    rows: list[dict[str, Any]] = []
    tests: set[tuple[str, str, str]] = set()
    for result in results:
        row: dict[str, Any] = {"student": result.student, "student_from": result.student_source,
                               "file": result.submission, "lab": result.lab}
        for test in result.tests:
            tests.add((test.lab, test.number, test.name))
            row[f"{test.lab} {test.number} {test.name}"] = test.score
        row |= {
            "total": result.score, "max_score": result.max_score, "percent": result.percent,
            "status": result.status, "counts": result.counts, "seconds": round(result.execution_time, 1),
            "budget": result.budget, "sandbox": result.sandbox, "seed": result.seed, "notes": " | ".join(result.notes),
        }
        rows.append(row)
    test_columns = [" ".join(test) for test in sorted(tests, key=_test_order)]
    columns = ["student", "student_from", "file", "lab", *test_columns, "total", "max_score", "percent", "status",
               "counts", "seconds", "budget", "sandbox", "seed", "notes"]
    return pd.DataFrame(rows, columns=columns)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP, *CSV Injection*)."""


def neutralised(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula, prefixed with ``'``; numbers and other text unchanged.

    Only text: ``-1.5`` in a score column is a number, not a formula.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(results: Iterable[GradeResult], path: str | os.PathLike[str]) -> pd.DataFrame:
    """The CSV, written whole or not at all (a temporary file renamed into place).

    Safe to open in a spreadsheet: every text cell is quoted, and one that
    would start a formula (a student folder named ``=HYPERLINK(…)``) is
    ``neutralised``. The frame returned is the data as graded, not neutralised.
    """
    frame = results_frame(results)
    safe = frame.map(neutralised)
    write_atomically(Path(path), safe.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))
    return frame
