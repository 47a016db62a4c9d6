"""``course-grade DIR --out grades.csv``: a folder graded into its CSV, its records and, asked for, its pages.

``prepare`` refuses what would fail after grading (the CSV's folder, an empty
folder, an ``--only`` that takes nothing, a manifest entry that names no
file); ``run`` grades, writing each row to a journal as it is made, writes the
CSV and its records, then notes similar exercise cells (reported, not judged,
in a child process of bounded memory) and writes them again with the notes,
and prints the batch's summary. Whatever kills the grader after a row is made,
the row is on disk (issue 43).
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..batch.batch import grade_folder
from ..course.course import Course
from ..course.course_roster import check_students, decision_problems
from ..course.course_settings import CourseFileError
from ..errors import GradingError
from ..intake.discovery import find_submissions
from ..intake.identity import submission_name
from ..intake.notebook import lab_named
from ..intake.roster import UNKNOWN, Names, attribute
from ..intake.selection import Selection, selection, unmatched
from ..intake.shard import folder_digest, run_record
from ..judging.grade_options import GradeOptions
from ..judging.verdicts import GradeResult
from ..results.grades_csv import shard_column
from ..results.grades_frame import write_csv
from ..results.records import companion, journal, start_journal, write_records
from ..results.run_file import Run, limits_text, write_run
from ..results.scoring import score
from .feedback_pages import write_pages
from .refusals import writable

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Batch:
    """A folder checked and ready to grade: what it holds, as its CSV names it, and the part of it to grade."""

    submissions: list[Path]
    listing: list[str]
    only: Selection | None
    course: Course
    """The course with its manifest's entries matched to the files found."""
    options: GradeOptions
    """The run's options, who the files are read with the whole folder's names (``Names.with_listing``)."""


def listing(folder: Path) -> list[str]:
    """Every entry a batch of ``folder`` gives a row (its notebooks and unreadable folders), as the CSV names them."""
    unreadable: list[Path] = []
    found = find_submissions(folder, unreadable)
    return [submission_name(path, folder) for path in [*found, *unreadable]]


def prepare(
    parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course, options: GradeOptions
) -> Batch:
    """The folder's submissions, refused here when nothing could be graded or written."""
    target: Path = arguments.target
    submissions = find_submissions(target)
    writable(parser, arguments.out, "--out")
    if not submissions:
        parser.error(f"no notebooks (.ipynb) under {target}")
    entries = listing(target)
    names = options.identity.names.with_listing(entries) if options.identity.names is not None else None
    options = replace(options, identity=replace(options.identity, names=names))
    only: Selection | None = None
    if arguments.only:  # a partial regrade: refused here when a part of it names nothing
        try:
            only = selection(arguments.only, target)
        except GradingError as exc:
            parser.error(str(exc))
        if (nothing := unmatched(only, target, submissions, names)) is not None:
            parser.error(nothing)
    try:  # the manifest's paths as graded: an entry that names no file stops here; so does an entry for no one
        course = course.for_submissions(entries, target).identified(names)
        _check_entries(course, names, target, entries)
    except GradingError as exc:
        parser.error(str(exc))
    return Batch(submissions, entries, only, course, options)


def _check_entries(course: Course, names: Names | None, target: Path, entries: list[str]) -> None:
    """The course file's extensions, overrides and decisions name students of the class, and decisions their files."""
    if not (course.settings.extensions or course.settings.overrides or course.settings.decisions):
        return
    whose = {entry: (attribute(target / entry, target, names)[0], lab_named(target / entry)) for entry in entries}
    roster = names.roster if names is not None else None
    check_students(course, roster, {student for student, _ in whose.values()}, f"the students of {target}")
    if problems := decision_problems(course, whose):
        raise CourseFileError("; ".join(problems))


def run(arguments: argparse.Namespace, batch: Batch, shard: tuple[int, int] | None) -> int:
    course, options = batch.course, batch.options
    started = datetime.now(UTC).isoformat(timespec="microseconds")
    partial = start_journal(journal(arguments.out))
    results = grade_folder(
        arguments.target,
        options,
        jobs=arguments.jobs,
        progress=not arguments.no_progress,
        course=course,
        shard=shard,
        only=batch.only,
        journal=partial,
    )
    run = run_record(options.judging.seed, course.stamp.split(" ", 1)[0], batch.listing)
    column = shard_column(*shard, course.settings.duplicates, run) if shard else None
    write_grades(arguments, results, course, column)  # the grades first: the similarity pass cannot cost them
    write_run(_run(arguments, options, batch, started), arguments.out)
    partial.unlink(missing_ok=True)
    from ..similarity.bounded import noted_within  # reported, not judged; in a child of bounded memory

    results = noted_within(
        results,
        arguments.target,
        options.identity.labs_dir,
        rest_of=options.identity.names if shard or batch.only else False,
    )
    frame = write_grades(arguments, results, course, column)
    print(f"wrote {companion(arguments.out)} (every result whole, for course-grade report and feedback)")
    write_pages(arguments, results, lambda graded: score(graded, course), course.language, course.language_of)
    _summary(arguments, results, frame, shard)
    return 0


def write_grades(
    arguments: argparse.Namespace, results: list[GradeResult], course: Course, column: str | None
) -> pd.DataFrame:
    """The CSV and, beside it, every result whole (grades.jsonl, for the report and the pages)."""
    frame = write_csv(results, arguments.out, course, shard=column)
    write_records(results, companion(arguments.out))
    return frame


def _run(arguments: argparse.Namespace, options: GradeOptions, batch: Batch, started: str) -> Run:
    """What the run file beside the CSV records: the folder, its listing, the limits, when grading started."""
    limits = {"": options.sandbox.limits, **dict(options.sandbox.lab_limits)}
    return Run(
        folder=os.path.abspath(arguments.target),
        listing=folder_digest(batch.listing),
        entries=len(batch.listing),
        limits=limits_text(limits),
        graded=started,
        only=batch.only.described() if batch.only is not None else "",
    )


def _summary(
    arguments: argparse.Namespace, results: list[GradeResult], frame: pd.DataFrame, shard: tuple[int, int] | None
) -> None:
    """How many notebooks ended how, who the roster does not know, the mean and where the CSV went."""
    counts = Counter(result.status for result in results)
    part = f" (shard {shard[0]}/{shard[1]}: join the shards with course-grade merge)" if shard else ""
    print(
        f"graded {len(results)} notebooks{part}: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    )
    unknown = sum(result.student_source.startswith(UNKNOWN) for result in results)
    if unknown:
        print(f"{unknown} submissions name no roster student (student_from {UNKNOWN}…; see their notes)")
    mean = f"mean {frame['percent'].mean():.1f} % · " if len(frame) else ""
    print(f"{mean}wrote {arguments.out}")
