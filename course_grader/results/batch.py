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

Clean-up is the batch's, not the worker's (issue 27: a worker killed for memory
runs no clean-up of its own, and left its sandboxes' cgroups behind): each
worker has its own folder under the batch's, and whenever a worker ends, killed
or not, the batch kills every process in the cgroups that worker made (their
names hold its pid, ``cgroup.remove_made_by``) and any process whose command
line names the worker's folder (a sandbox without a cgroup), then removes the
cgroups and the folder. A submission the host starved of CPU in the batch
(``cpu_clock.STARVED``) is graded once more alone, and its row says so.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from course_lib import lab_registry

from ..intake.notebook import lab_in_name, not_regular, refusal, submission_name
from ..intake.roster import attribute
from ..intake.selection import Selection
from ..intake.shard import shard_of
from ..judging.grade import GradeOptions, grade_notebook, lab_view, not_graded
from ..judging.verdicts import GradeResult, Status
from ..sandbox import cgroup, cpu_clock
from .course import NO_COURSE, Course
from .grades_csv import FORMULA_STARTS as FORMULA_STARTS  # re-exported: their old home
from .grades_csv import Candidate, columns, duplicate_verdicts, row_key, typed, write_frame
from .grades_csv import neutralised as neutralised
from .scoring import score
from .submission_times import iso

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it (issue 31)
    import pandas as pd

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
    course: Course = NO_COURSE,
    shard: tuple[int, int] | None = None,
    only: Selection | None = None,
) -> list[GradeResult]:
    """Grade every submission under ``folder``: a row per entry ``discover`` finds and per unreadable folder, in path order.

    ``jobs`` workers grade at once. ``job_timeout`` (default: the submission
    budget's wall-clock backstop, ``cpu_clock.BACKSTOP`` times the budget, plus
    one budget and a minute) stops a worker stuck on one submission;
    that row becomes ``timeout``. Duplicates are flagged by ``flag_duplicates``
    under the course's policy, except in a shard (``shard=(I, N)``: only the
    entries ``shard.shard_of`` gives to shard I), whose duplicates ``merge`` decides.
    """
    root = str(folder)
    unreadable: list[Path] = []
    entries = discover(folder, unreadable)
    if shard is not None:
        entries = [e for e in entries if shard_of(submission_name(e.path, root), shard[1]) == shard[0]]
        unreadable = [p for p in unreadable if shard_of(submission_name(p, root), shard[1]) == shard[0]]
    if only is not None:  # a partial regrade (intake.selection): merge puts its rows into the term's CSV
        entries = [e for e in entries if only.takes(e.path, root, options.names, readable=e.refused is None)]
        unreadable = [p for p in unreadable if only.takes(p, root, options.names, readable=False)]
    longest = max(
        [options.limits.budget, *(limits.budget for _, limits in options.lab_limits)]
    )  # a lab's own budget too
    # A starved sandbox may take its budget's wall-clock backstop (cpu_clock.BACKSTOP times the budget) before it stops.
    deadline = job_timeout if job_timeout is not None else (cpu_clock.BACKSTOP + 1) * longest + 60
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
                done(
                    index,
                    _row(
                        paths[index],
                        root,
                        options,
                        f"grading took longer than {deadline:g} s; its worker was stopped",
                        status="timeout",
                        lab=lab_in_name(paths[index]),
                    ),
                )

            lost = _run_jobs(todo, jobs, paths, root, options, grade, str(work), deadline, done, hung)
            for index, exitcode in lost.items():  # graded once more, alone in a fresh worker
                again = _run_jobs([index], 1, paths, root, options, grade, str(work), deadline, done, hung)
                if index in again:
                    done(
                        index,
                        _row(
                            paths[index],
                            root,
                            options,
                            f"{died(again[index])}, also when graded again alone",
                            lab=lab_in_name(paths[index]),
                        ),
                    )
                else:
                    rows[index] = rows[index].model_copy(
                        update={"notes": (f"graded again alone after {died(exitcode)}", *rows[index].notes)}
                    )
            if jobs > 1:  # alone, the host's CPUs are its own and the batch's; the second grade stands
                for index in [index for index in todo if starved(rows[index])]:
                    _run_jobs([index], 1, paths, root, options, grade, str(work), deadline, done, hung)
                    rows[index] = rows[index].model_copy(update={"notes": (AGAIN_ALONE, *rows[index].notes)})
    results = [_when(rows[index], entries[index], course) for index in range(len(entries))]
    if shard is None:
        results = flag_duplicates(results, course.settings.duplicates, course)
    results += [_row(path, root, options, f"the folder {path} could not be read") for path in unreadable]
    return sorted(results, key=lambda result: row_key(result.submission))  # one order on every machine (merge's too)


AGAIN_ALONE = "graded again alone: in the batch, the host kept its sandbox waiting for a CPU"


def starved(result: GradeResult) -> bool:
    """Whether a limit stopped the submission at its wall-clock backstop, not its own time (``cpu_clock``)."""
    return any(note.startswith(cpu_clock.STARVED) for note in result.notes)


def _when(result: GradeResult, entry: Found, course: Course) -> GradeResult:
    """When the file came: the course's manifest says, else its modification time (to the microsecond, as the CSV)."""
    manifest = course.submitted_at.get(result.submission)
    if manifest is not None:
        return result.model_copy(update={"submitted": iso(manifest), "submitted_from": "manifest"})
    if not entry.modified:
        return result
    moment = datetime.fromtimestamp(0, UTC) + timedelta(microseconds=entry.modified // 1000)
    return result.model_copy(update={"submitted": iso(moment), "submitted_from": "modified"})


def _row(
    path: Path, root: str, options: GradeOptions, note: str, *, status: Status = "error", lab: str | None = None
) -> GradeResult:
    """A row for a submission that was not graded (refused, unreadable, its worker died or hung), every test at 0."""
    who, source, known = (
        attribute(path, root, options.names) if Path(path) != Path(root) else (Path(path).name, "folder", ())
    )
    result = not_graded(path, who, lab, note, time.monotonic(), options)
    return result.model_copy(
        update={
            "submission": submission_name(path, root),
            "student_source": source,
            "status": status,
            "execution_time": 0.0,
            "notes": (*known, *result.notes),
        }
    )


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


_NUMBERS = itertools.count()
"""Worker folders are named by number: short, since a kernel's socket paths live below them."""


class _Worker:
    """One spawned worker process, its own folder, and the job it is grading (``None`` when idle)."""

    def __init__(self, grade: Grade, scratch: str) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds kernel threads
        self.folder = Path(scratch) / str(next(_NUMBERS))
        self.folder.mkdir(mode=0o700)
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, grade, str(self.folder)), name="course-grade-worker")
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
        if self.process.pid is not None:
            clean_up_after(self.process.pid, self.folder)
        return self.process.exitcode


def clean_up_after(pid: int, folder: Path) -> None:
    """Nothing left of a worker that ended: its sandboxes' cgroups and every process in them, its folder.

    Processes first (the cgroups' own, then any whose command line names the
    folder: bwrap and the relay of a sandbox without a cgroup), then the folder
    they used. A worker that ended normally had removed everything already.
    """
    try:
        cgroup.remove_made_by(pid)
    except OSError as exc:  # a process the kernel cannot kill in 10 s: say so, and let the batch finish its rows
        print(f"course-grade: a grading worker's cgroup could not be removed: {exc}", file=sys.stderr)
    for survivor in processes_naming(folder):
        try:
            os.kill(survivor, signal.SIGKILL)
        except OSError:
            pass
    shutil.rmtree(folder, ignore_errors=True)


def processes_naming(folder: Path) -> list[int]:
    """The processes whose command line names a path inside ``folder`` (Linux's ``/proc``; none elsewhere)."""
    return processes_with(f"{folder}{os.sep}")


def processes_with(text: str) -> list[int]:
    """The processes whose command line contains ``text``."""
    mark = os.fsencode(text)
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if mark in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return sorted(found)


def _run_jobs(
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


def flag_duplicates(
    results: list[GradeResult], policy: str = "latest", course: Course = NO_COURSE
) -> list[GradeResult]:
    """Two or more rows for one student and lab: every row stays, each names the others and the one that counts.

    Which one counts is ``policy`` (the course file's ``duplicates``; ``grades_csv.duplicate_verdicts``):
    by default the latest ``submitted`` (the manifest's time, else the file's
    modification time), a tie going to the last in path order.
    """
    candidates = [
        Candidate(r.student, r.lab, r.submission, r.submitted, r.submitted_from, score(r, course).score)
        for r in results
    ]
    flagged = list(results)
    for index, (counts, note) in duplicate_verdicts(candidates, policy).items():
        flagged[index] = results[index].model_copy(update={"notes": (note, *results[index].notes), "counts": counts})
    return flagged


def results_frame(
    results: Iterable[GradeResult], course: Course = NO_COURSE, *, shard: str | None = None
) -> pd.DataFrame:
    """One row per submission: who, which lab, a score column per test, the course's score, status, notes.

    The columns come in a fixed order (``grades_csv.columns``), whatever order the submissions arrive in;
    the rows in the order given (``grade_folder``'s: path order).
    """
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    rows: list[dict[str, Any]] = []
    tests: set[str] = set()
    for result in results:
        row: dict[str, Any] = {
            "student": result.student,
            "student_from": result.student_source,
            "file": result.submission,
            "lab": result.lab,
        }
        for test in result.tests:
            tests.add(f"{test.lab} {test.number} {test.name}")
            row[f"{test.lab} {test.number} {test.name}"] = test.score
        record = score(result, course)
        row |= {
            "points": record.points,
            "max_points": record.max_points,
            "late": record.late,
            "penalty": record.penalty,
            "score": record.score,
            "submitted": result.submitted,
            "submitted_from": result.submitted_from,
            "total": result.score,
            "max_score": result.max_score,
            "percent": result.percent,
            "status": result.status,
            "counts": result.counts,
            "seconds": round(result.execution_time, 1),
            "budget": result.budget,
            "sandbox": result.sandbox,
            "seed": result.seed,
            "notes": " | ".join(result.notes),
            "course": course.stamp,  # which course file scored the row (merge and feedback check it)
        }
        if shard:
            row[shard] = ""
        rows.append(row)
    return typed(pd.DataFrame(rows, columns=columns(sorted(tests), shard=shard)))


def write_csv(
    results: Iterable[GradeResult],
    path: str | os.PathLike[str],
    course: Course = NO_COURSE,
    *,
    shard: str | None = None,
) -> pd.DataFrame:
    """The CSV (``grades_csv.render``), written whole or not at all (a temporary file renamed into place).

    Safe to open in a spreadsheet: every text cell is quoted, and one that
    would start a formula (a student folder named ``=HYPERLINK(…)``) is
    ``neutralised``. The frame returned is the data as graded, not neutralised.
    """
    frame = results_frame(results, course, shard=shard)
    write_frame(frame, Path(path))
    return frame
