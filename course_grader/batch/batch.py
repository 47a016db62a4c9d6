"""Grade a folder of submissions as independent jobs and write one CSV row per submission.

Every ``.ipynb`` found gets a row, and so does every folder that could not be
read: one bad submission (or a grader bug) becomes a row with status
``error``, never a stopped or silently shorter batch (docs/grading.md,
*Grading a folder*). What the folder holds is hostile: only regular files are
graded (``discovery``: a link, FIFO, device, socket or folder named ``.ipynb``
gets an ``error`` row without being opened or followed), who a file belongs to
comes from its folder, and duplicates are flagged, not silently resolved.

Each submission is graded in a worker process whose job is known
(``worker_pool``): a worker that dies (killed for memory, say) or hangs costs
only the submission it was grading, which is graded once more alone before it
gets an ``error`` row with the reason. Everything a batch writes to disk lives
in one temporary folder, removed at the end, whatever its workers did
(``worker_cleanup``). A submission the host starved of CPU in the batch
(``cpu_clock.STARVED``: its sandbox's own stall measured, never a limit its own
processes stretched) is graded once more alone, and its row says so; so is one
whose sandbox failed for a reason outside the submission (``COULD_NOT_GRADE``:
a kernel that would not start, no free uid). No row is graded again alone more
than once, whatever the reason (issue 43).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import message

from ..course.course import NO_COURSE, Course
from ..course.submission_times import when_submitted
from ..files import scratch_prefix
from ..intake.discovery import Found, discover
from ..intake.identity import submission_name
from ..intake.lab_names import named_lab
from ..intake.regular_file import refusal
from ..intake.selection import Selection
from ..intake.shard import shard_of
from ..judging.grade import COULD_NOT_GRADE, grade_notebook
from ..judging.grade_options import GradeOptions
from ..judging.kernel_run import lab_view
from ..judging.verdicts import GradeResult
from ..notes import NOTE
from ..results.duplicates import Candidate, duplicate_verdicts
from ..results.grades_csv import row_key
from ..results.records import append_record
from ..results.scoring import score
from ..sandbox import cpu_clock
from .ungraded import ungraded_row
from .worker_pool import Grade, died, run_jobs

AGAIN_ALONE = NOTE(message("graded again alone: in the batch, the host kept its sandbox waiting for a CPU"))()
SANDBOX_AGAIN = NOTE(message("graded again alone: its sandbox failed for a reason outside the submission"))()
AGAIN_BECAUSE = {
    AGAIN_ALONE: NOTE(message("graded again alone: in the batch, the host kept its sandbox waiting for a CPU ({why})")),
    SANDBOX_AGAIN: NOTE(message("graded again alone: its sandbox failed for a reason outside the submission ({why})")),
}
"""Each grading again's note with the first grade's reason, when that says more than the note."""


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
    journal: Path | None = None,
) -> list[GradeResult]:
    """Grade every submission under ``folder``: a row per entry ``discover`` finds and per unreadable folder, in path order.

    ``jobs`` workers grade at once. ``job_timeout`` (default: the submission
    budget's wall-clock backstop, ``cpu_clock.BACKSTOP`` times the budget, plus
    one budget and a minute) stops a worker stuck on one submission;
    that row becomes ``timeout``. Duplicates are flagged by ``flag_duplicates``
    under the course's policy, except in a shard (``shard=(I, N)``: only the
    entries ``shard.shard_of`` gives to shard I), whose duplicates ``merge`` decides.
    Each row is appended to ``journal`` as it is made (``records.append_record``):
    a grader killed later leaves every finished row on disk.
    """
    root = str(folder)
    entries, unreadable = _entries(folder, options, shard, only)
    deadline = job_timeout if job_timeout is not None else _default_deadline(options)
    rows: dict[int, GradeResult] = {}
    for index, item in enumerate(entries):
        if item.refused:
            rows[index] = ungraded_row(item.path, root, options, refusal(item.path, item.refused))
            if journal is not None:
                append_record(rows[index], journal)
    options = _grade_in_workers(
        entries, rows, root, options, grade=grade, jobs=jobs, deadline=deadline, progress=progress, journal=journal
    )
    results = [when_submitted(rows[index], entries[index], course) for index in range(len(entries))]
    if shard is None:
        results = flag_duplicates(results, course.settings.duplicates, course)
    results += [ungraded_row(path, root, options, f"the folder {path} could not be read") for path in unreadable]
    return sorted(results, key=lambda result: row_key(result.submission))  # one order on every machine (merge's too)


def _entries(
    folder: str | Path, options: GradeOptions, shard: tuple[int, int] | None, only: Selection | None
) -> tuple[list[Found], list[Path]]:
    """What ``discover`` finds, and the folders it could not list, that this run grades: its shard, its selection."""
    root = str(folder)
    unreadable: list[Path] = []
    entries = discover(folder, unreadable)
    if shard is not None:
        entries = [e for e in entries if shard_of(submission_name(e.path, root), shard[1]) == shard[0]]
        unreadable = [p for p in unreadable if shard_of(submission_name(p, root), shard[1]) == shard[0]]
    if only is not None:  # a partial regrade (intake.selection): merge puts its rows into the term's CSV
        entries = [e for e in entries if only.takes(e.path, root, options.identity.names, readable=e.refused is None)]
        unreadable = [p for p in unreadable if only.takes(p, root, options.identity.names, readable=False)]
    return entries, unreadable


def _default_deadline(options: GradeOptions) -> float:
    """Seconds a job may take: the longest budget's wall-clock backstop, plus one budget and a minute."""
    longest = max(
        [options.sandbox.limits.budget, *(limits.budget for _, limits in options.sandbox.lab_limits)]
    )  # a lab's own budget too
    # A starved sandbox may take its budget's wall-clock backstop (cpu_clock.BACKSTOP times the budget) before it stops.
    return (cpu_clock.BACKSTOP + 1) * longest + 60


def _grade_in_workers(
    entries: list[Found],
    rows: dict[int, GradeResult],
    root: str,
    options: GradeOptions,
    *,
    grade: Grade,
    jobs: int,
    deadline: float,
    progress: bool,
    journal: Path | None = None,
) -> GradeOptions:
    """Every entry without a row yet graded in ``jobs`` workers, into ``rows``; returns the options they graded with.

    Everything the workers write lives in one temporary folder, removed at the
    end whatever they did; the labs' views are built in it first.
    """
    with tempfile.TemporaryDirectory(prefix=scratch_prefix()) as scratch:
        views = Path(scratch) / "views"
        work = Path(scratch) / "w"  # short: a kernel's sockets live below it (a unix socket path has ~100 bytes)
        work.mkdir()
        options = replace(options, sandbox=replace(options.sandbox, views=options.sandbox.views or str(views)))
        for (
            lab
        ) in lab_registry.LABS.values():  # built once, before the workers start: they share one copy of each lab's view
            lab_view(lab, options.sandbox.views)
        todo = [index for index in range(len(entries)) if index not in rows]
        paths = {index: entries[index].path for index in todo}
        with tqdm(total=len(todo), desc="grading", unit="notebook", disable=not progress) as bar:
            batch = _Jobs(paths, root, options, grade, str(work), deadline, rows, bar, journal)
            batch.again_alone(batch.run(todo, jobs))
            batch.again_if(todo, sandbox_failed, SANDBOX_AGAIN)
            if jobs > 1:  # alone, the host's CPUs are its own and the batch's; the second grade stands
                batch.again_if(todo, starved, AGAIN_ALONE)
    return options


@dataclass
class _Jobs:
    """A batch's submissions in the pool of workers: what every job needs, and the rows as they come in."""

    paths: dict[int, Path]
    root: str
    options: GradeOptions
    grade: Grade
    work: str
    deadline: float
    rows: dict[int, GradeResult]
    bar: Any
    """The progress bar (``tqdm``)."""
    journal: Path | None = None
    """Where each row goes as it comes in (``records.append_record``), or nowhere."""
    again: set[int] = field(default_factory=set)
    """The rows already graded again alone: none is graded alone a second time."""

    def run(self, indexes: Iterable[int], jobs: int) -> dict[int, int | None]:
        """``run_jobs``: each row to ``done``, each hung job to ``hung``; returns the jobs whose worker died."""
        return run_jobs(
            indexes,
            jobs,
            self.paths,
            self.root,
            self.options,
            self.grade,
            self.work,
            self.deadline,
            self.done,
            self.hung,
        )

    def done(self, index: int, result: GradeResult) -> None:
        self.rows[index] = result
        if self.journal is not None:
            append_record(result, self.journal)
        self.bar.update()
        self.bar.set_postfix_str(f"{result.student}: {result.status}", refresh=False)

    def hung(self, index: int) -> None:
        note = f"grading took longer than {self.deadline:g} s; its worker was stopped"
        path = self.paths[index]
        self.done(index, ungraded_row(path, self.root, self.options, note, status="timeout", lab=named_lab(path)))

    def again_alone(self, lost: dict[int, int | None]) -> None:
        """Each job whose worker died graded once more, alone in a fresh worker; its row says so, or that it died again."""
        for index, exitcode in lost.items():
            self.again.add(index)
            again = self.run([index], 1)
            if index in again:
                note, path = f"{died(again[index])}, also when graded again alone", self.paths[index]
                self.done(index, ungraded_row(path, self.root, self.options, note, lab=named_lab(path)))
            else:
                self.noted(index, f"graded again alone after {died(exitcode)}")

    def again_if(self, todo: Iterable[int], outside: Callable[[GradeResult], str | None], note: str) -> None:
        """Each job ``outside`` names a reason outside the submission for graded once more, alone, if not already.

        The second grade stands; its row says ``note`` and the first grade's reason.
        """
        for index in [index for index in todo if index not in self.again]:
            why = outside(self.rows[index])
            if why is None:
                continue
            self.again.add(index)
            self.run([index], 1)
            self.noted(index, note if why == note else AGAIN_BECAUSE[note](why=why[:200]))

    def noted(self, index: int, note: str) -> None:
        self.rows[index] = self.rows[index].model_copy(update={"notes": (note, *self.rows[index].notes)})


def starved(result: GradeResult) -> str | None:
    """``AGAIN_ALONE`` when the host starved the submission at a limit's wall-clock backstop (``cpu_clock``)."""
    return AGAIN_ALONE if any(note.startswith(cpu_clock.STARVED) for note in result.notes) else None


def sandbox_failed(result: GradeResult) -> str | None:
    """The note saying the grader or its sandbox failed, not the submission (``COULD_NOT_GRADE``), or None."""
    if result.status != "error":
        return None
    return next((note for note in result.notes if note.startswith(COULD_NOT_GRADE)), None)


def flag_duplicates(
    results: list[GradeResult], policy: str = "latest", course: Course = NO_COURSE
) -> list[GradeResult]:
    """Two or more rows for one student and lab: every row stays, each names the others and the one that counts.

    Which one counts is ``policy`` (the course file's ``duplicates``) and its ``[[decisions]]``
    (``duplicates.duplicate_verdicts``): by default the latest ``submitted`` (the times file's, else the
    file's modification time), never one handed in to another lab's assignment over the lab's own, a tie flagged.
    """
    candidates = [
        Candidate(r.student, r.lab, r.submission, r.submitted, r.submitted_from, score(r, course).score, r.handed_in)
        for r in results
    ]
    flagged = list(results)
    for index, (counts, note) in duplicate_verdicts(candidates, policy, course.decided).items():
        flagged[index] = results[index].model_copy(update={"notes": (note, *results[index].notes), "counts": counts})
    return flagged
