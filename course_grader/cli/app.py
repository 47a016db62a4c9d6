"""``course-grade``: grade a notebook or a folder, or build a Gradescope autograder.

    course-grade SUBMISSION.ipynb [--results results.json] [--student ID]
    course-grade DIR --out grades.csv [-j N] [--course course.toml] [--roster roster.csv] [--shard I/N]
    course-grade DIR --only student:ID|lab:LAB|FILE --out regrade.csv   (part of the folder again)
    course-grade merge A.csv B.csv … -o grades.csv  (shards' CSVs into the whole run's; a term's CSV and its regrades)
    course-grade export grades.csv --roster roster.csv -o gradebook.csv [--format canvas|moodle]
    course-grade bundle --lab 11.3 -o autograder.zip
    course-grade autograder --lab 11.3 [--root /autograder]     (what the bundle runs)
    course-grade report grades.csv -o report.html               (the class picture, report.py)
    course-grade feedback grades.jsonl … -o DIR [--course FILE] (the pages again, from a batch's records)
    ... --feedback DIR                                          (a page per student and lab, feedback.py)

Everything that can be checked before grading is checked first (limits, the
labs folder, where the output goes, that there is something to grade, that
the sandbox tool is installed), so a batch never grades for an hour and then
fails to write its results. The exit status is 0 once results are written,
whatever the score; 2 for a usage or set-up error (a labs folder not found, no
sandbox tool, …: nothing is graded then), which includes a single SUBMISSION
that is not a regular file (a link is never followed) or is over the size limit.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import secrets
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from course_lib import lab_registry

from ..errors import GradingError
from ..files import write_atomically
from ..intake.identity import submission_name
from ..intake.lab_templates import missing_templates
from ..intake.notebook import lab_named
from ..intake.regular_file import MAX_NOTEBOOK_BYTES, MAX_NOTEBOOK_MB, not_regular, refusal
from ..intake.roster import UNKNOWN, Names, Roster, load_roster
from ..intake.selection import Selection, selection, unmatched
from ..intake.shard import parse_shard, run_record
from ..judging.grade import grade_notebook
from ..judging.grade_options import GradeOptions
from ..judging.verdicts import GradeResult, format_table
from ..packaging.bundle import SECRET, build_bundle, bundle_secret, for_stdout, run_autograder
from ..publish import gradebook
from ..publish.feedback import write_feedback
from ..publish.page_score import Scorer
from ..results.batch import grade_folder
from ..results.course import NO_COURSE, Course
from ..results.course_file import load_course
from ..results.discovery import find_submissions
from ..results.grades_csv import read_frame, shard_column, write_frame
from ..results.grades_frame import write_csv
from ..results.gradescope import to_gradescope
from ..results.records import companion, write_records
from ..results.scoring import score
from ..results.term_merge import join, joined_records
from ..sandbox import cgroup
from ..sandbox.kernel import GIVEN_UP, INSTALL_HINT, Limits, bubblewrap

if TYPE_CHECKING:
    import pandas as pd


def _lab(text: str) -> str:
    try:
        return lab_registry.lab(text).id
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _limits_options(parser: argparse.ArgumentParser) -> None:
    defaults = Limits()
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help=f"time limit per cell, per check and per hidden call (default: the course file's, else {defaults.cell_timeout:g})",
    )
    parser.add_argument(
        "--memory",
        type=int,
        metavar="MB",
        help=f"memory of the whole sandbox (default: the course file's, else {defaults.memory_mb})",
    )
    parser.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help=f"hard time budget per submission, charged in the sandbox's own time (docs/grading.md); its sandbox is killed then (default: the course file's, else {defaults.budget:g})",
    )
    parser.add_argument(
        "--labs", metavar="DIR", help="folder with the course's lab notebooks (default: ./labs or the checkout's)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="draw the hidden cases from seed N (default: the course file's term seed, else a new random "
        "seed, printed; N reproduces a run)",
    )
    parser.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the term's course file (course.toml: roster, seed, limits, points, late policy; docs/grading.md)",
    )


# --- the course file, the roster, shards (docs/grading.md, *The course file*) ----------------------------


def _course(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> Course:
    """The course file named by ``--course``, else the empty course (today's behaviour); a bad one stops here."""
    if getattr(arguments, "course", None) is None:
        return Course()
    try:
        return load_course(arguments.course)
    except GradingError as exc:
        parser.error(str(exc))


def _roster(parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course) -> Roster | None:
    """``--roster``, else the course file's ``roster``; ``None`` without either."""
    path = getattr(arguments, "roster", None) or course.roster_path
    if path is None:
        return None
    try:
        return load_roster(path)
    except GradingError as exc:
        parser.error(str(exc))


def _names(course: Course, roster: Roster | None) -> Names | None:
    """LMS names are read once there is a course file or a roster; without either, who is decided as before."""
    if roster is None and course.path is None:
        return None
    return Names.of(course.settings.names, course.settings.pattern, roster)


def _seed(arguments: argparse.Namespace, course: Course = NO_COURSE) -> int:
    """The run's hidden-case seed: the one asked for, the term's, or a fresh one nobody could have prepared for."""
    if arguments.seed is not None:
        return arguments.seed
    return course.settings.seed if course.settings.seed is not None else secrets.randbelow(10**9)


def _flags_over(limits: Limits, arguments: argparse.Namespace) -> Limits:
    """The limit flags given on the command line, over ``limits`` (the course file's or the defaults)."""
    return replace(
        limits,
        **{
            name: value
            for name, value in (
                ("cell_timeout", arguments.timeout),
                ("memory_mb", arguments.memory),
                ("budget", arguments.budget),
            )
            if value is not None
        },
    )


def _lab_limits(arguments: argparse.Namespace, course: Course) -> tuple[tuple[str, Limits], ...]:
    """Each lab the course file sets limits for: its limits, under the flags."""
    return tuple((lab, _flags_over(course.limits(lab, Limits()), arguments)) for lab in course.settings.labs)


def _limits(
    parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course = NO_COURSE, lab: str | None = None
) -> Limits:
    limits = _flags_over(course.limits(lab, Limits()), arguments)
    if limits.problems():
        parser.error(
            "; ".join(limits.problems())
            .replace("cell_timeout", "--timeout")
            .replace("memory_mb", "--memory")
            .replace("budget", "--budget")
        )
    if arguments.labs and not Path(arguments.labs).is_dir():
        parser.error(f"--labs {arguments.labs}: no such folder")
    return limits


def _course_order(lab: str) -> int:
    return list(lab_registry.LABS).index(lab)


def _grade_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade",
        description=f"Grade Lab {', '.join(lab_registry.LABS)} notebooks (see docs/grading.md).",
        epilog="Other commands: " + ", ".join(f"'course-grade {name} --help'" for name in SUBCOMMANDS) + ".",
    )
    parser.add_argument("target", type=Path, help="a submitted .ipynb, or a folder of them")
    parser.add_argument(
        "--results",
        type=Path,
        default=Path("results.json"),
        help="where one notebook's Gradescope results go (default results.json)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("grades.csv"), help="the CSV for a folder (default grades.csv)"
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="notebooks graded at once (folder only)")
    parser.add_argument("--lab", type=_lab, help="grade as this lab when a notebook names none")
    parser.add_argument("--student", help="the student's id for a single notebook (default: from its metadata or name)")
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run submissions without bubblewrap (only where something else isolates them)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (folder only)")
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the class (id,name,email,aliases): every file maps to one student or is reported unknown",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="grade only shard I of N of the folder (by a hash of each path); join with course-grade merge",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="WHAT",
        help="regrade part of the folder: student:ID, lab:LAB or a file or folder under it (repeatable); "
        "put the rows into the term's CSV with course-grade merge TERM.csv THIS.csv",
    )
    _limits_options(parser)
    _feedback_options(parser)
    return parser


def _merge_main(argv: list[str]) -> int:
    """``course-grade merge A.csv B.csv … -o grades.csv``: the shards' CSVs, joined as one unsharded run writes it."""
    parser = argparse.ArgumentParser(
        prog="course-grade merge",
        description="Join the CSVs of every shard of one run (--shard I/N) into one, "
        "identical to an unsharded run's; or a term's CSV and its regrades (--only), a later CSV's row "
        "replacing an earlier one's. Duplicates are decided across them all; grades.jsonl is joined too.",
    )
    parser.add_argument(
        "shards",
        nargs="+",
        type=Path,
        help="one CSV per shard, all N of them; or the term's CSV, then its regrades (a later row replaces an earlier)",
    )
    parser.add_argument("-o", "--output", type=Path, default=Path("grades.csv"))
    arguments = parser.parse_args(argv)
    _writable(parser, arguments.output, "-o")
    try:  # everything read before anything is written: the output may be one of the inputs
        joined = join(arguments.shards)
        results, missing = joined_records(joined)
    except GradingError as exc:
        parser.error(str(exc))
    write_frame(joined.frame, arguments.output)
    for line in joined.messages():
        print(line, file=sys.stderr)
    print(joined.summary(arguments.output))
    if results is not None:  # the results too, for the report and the pages
        print(f"wrote {write_records(results, companion(arguments.output))}")
    else:
        print(
            f"warning: {missing}: {companion(arguments.output)} not written (feedback and report need it)",
            file=sys.stderr,
        )
    return 0


def _listing(folder: Path) -> list[str]:
    """Every entry a batch of ``folder`` gives a row (its notebooks and unreadable folders), as the CSV names them."""
    unreadable: list[Path] = []
    found = find_submissions(folder, unreadable)
    return [submission_name(path, folder) for path in [*found, *unreadable]]


def _export_main(argv: list[str]) -> int:
    """``course-grade export grades.csv --roster roster.csv -o gradebook.csv``: one row per student, a column per lab."""
    parser = argparse.ArgumentParser(
        prog="course-grade export",
        description="Write the gradebook an LMS imports: one row per roster student, one "
        "column per lab (the counting submission's score after weights and "
        "late penalty).",
    )
    parser.add_argument("grades", type=Path, help="the grades CSV (course-grade FOLDER, or merge)")
    parser.add_argument("--roster", type=Path, metavar="FILE", help="the class (default: the course file's roster)")
    parser.add_argument(
        "--course", type=Path, metavar="FILE", help="the course file (its roster, lab columns and labs)"
    )
    parser.add_argument("-o", "--output", type=Path, default=Path("gradebook.csv"))
    parser.add_argument(
        "--format",
        choices=("canvas", "moodle"),
        default="canvas",
        help="canvas: Student, ID, SIS User ID, SIS Login ID, Section, labs; moodle: ID number, "
        "Email address, Full name, labs (default canvas)",
    )
    parser.add_argument(
        "--missing",
        choices=("empty", "zero"),
        default="empty",
        help="a lab a student submitted nothing for: an empty cell (ungraded in the LMS) or 0 (default empty)",
    )
    arguments = parser.parse_args(argv)
    course = _course(parser, arguments)
    roster = _roster(parser, arguments, course)
    if roster is None:
        parser.error("export needs the class: --roster FILE, or a course file (--course) naming one")
    _writable(parser, arguments.output, "-o")
    try:
        grades = read_frame(arguments.grades)
        book = gradebook.build(grades, roster, layout=arguments.format, missing=arguments.missing, course=course)
    except GradingError as exc:
        parser.error(str(exc))
    gradebook.write(book, arguments.output)
    print(
        f"wrote {arguments.output} ({arguments.format}): {book.students} students × {len(book.labs)} labs "
        f"({', '.join(book.labs)}); {book.missing} cells without a submission ({arguments.missing})"
    )
    if book.unknown:
        print(
            f"warning: {book.unknown} counting rows name no roster student (unknown): they are in no one's row",
            file=sys.stderr,
        )
    if (ungraded := not_graded_warning(grades)) is not None:
        print(ungraded, file=sys.stderr)
    return 0


def not_graded_warning(grades: pd.DataFrame, shown: int = 10) -> str | None:
    """The counting rows nothing was graded in (status ``error``: a 0-byte or HTML file, a link, a crash), named.

    Their cell in the gradebook is 0 (or empty without a lab), which an LMS
    imports like any grade: the instructor must see them before importing.
    """
    if "status" not in grades.columns:
        return None
    rows = grades[grades["counts"] & (grades["status"] == "error")]
    if rows.empty:
        return None
    listed = [f"{row.file} ({str(row.notes).split(' | ')[0][:160]})" for row in rows.head(shown).itertuples()]
    more = f"; and {len(rows) - shown} more" if len(rows) > shown else ""
    return (
        f"warning: {len(rows)} counting rows were not graded (status error), so the gradebook has 0 or nothing "
        f"for them: {'; '.join(listed)}{more}. Check these files before importing"
    )


def _bundle_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade bundle",
        description="Build a Gradescope autograder zip for one lab.",
        epilog="--seed N makes N the assignment's secret (default: the course file's term seed, else a fresh random "
        "one; printed for the instructor either way).",
    )
    parser.add_argument("--lab", type=_lab, required=True, help=f"one of {', '.join(lab_registry.LABS)}")
    parser.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"))
    _limits_options(parser)
    return parser


def _autograder_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade autograder",
        description="Grade ROOT/submission and write ROOT/results/results.json (Gradescope's layout), as root: "
        "the kernel runs as an unused uid that cannot read the grader, and bubblewrap is not used. "
        "The hidden cases come from ROOT/source/secret unless --seed is given.",
    )
    parser.add_argument("--lab", type=_lab, required=True)
    parser.add_argument("--root", help="default $AUTOGRADER_ROOT or /autograder")
    _limits_options(parser)
    return parser


def _writable(parser: argparse.ArgumentParser, path: Path, option: str) -> None:
    """Fail before grading, not after, when the output cannot be written."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        parser.error(f"{option} {path} is a folder; give a file name")
    if not folder.is_dir():
        parser.error(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        parser.error(f"{option} {path}: the folder {folder} is not writable")


def _readable_file(parser: argparse.ArgumentParser, path: Path) -> None:
    """Only a regular file of a notebook's size is graded: a link (to a solution, to /etc/shadow) is never followed."""
    status = os.lstat(path)
    what = not_regular(path, status)
    if what:
        parser.error(f"{refusal(path, what)}; give the file itself")
    if status.st_size > MAX_NOTEBOOK_BYTES:
        parser.error(
            f"{path}: a file of {status.st_size / 2**20:.1f} MB exceeds the {MAX_NOTEBOOK_MB} MB limit for a notebook"
        )


# --- feedback pages and the batch's records (feedback.py, records.py; docs/grading.md, *Feedback for every student*)


def _feedback_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--feedback",
        type=Path,
        metavar="DIR",
        help="also write an HTML feedback page per student and lab into DIR (docs/grading.md)",
    )
    parser.add_argument(
        "--rules-url",
        metavar="BASE",
        help="where the pages link a rule to (BASE#r19; default: the checkout's docs/rules.md, relative)",
    )


def _feedback_folder(parser: argparse.ArgumentParser, folder: Path | None) -> None:
    """Fail before grading, not after, when the feedback pages could not be written."""
    if folder is None:
        return
    existing = folder if folder.exists() else folder.parent if str(folder.parent) else Path(".")
    if folder.exists() and not folder.is_dir():
        parser.error(f"--feedback {folder} is not a folder")
    if not existing.is_dir():
        parser.error(f"--feedback {folder}: the folder {existing} does not exist")
    if not os.access(existing, os.W_OK):
        parser.error(f"--feedback {folder}: the folder {existing} is not writable")


def _write_feedback(arguments: argparse.Namespace, results: list[GradeResult], scorer: Scorer | None = None) -> None:
    """``--feedback DIR``: the pages; ``scorer`` makes each page's score (default: 1 point per passed test)."""
    if arguments.feedback is not None:
        pages = write_feedback(results, arguments.feedback, scorer=scorer, rules_base=arguments.rules_url)
        print(f"wrote {len(pages) - 1} feedback pages to {arguments.feedback} (list: {pages[-1]})")


def _after_batch(arguments: argparse.Namespace, results: list[GradeResult], scorer: Scorer | None = None) -> None:
    """What a batch writes besides its CSV: every result beside it (grades.jsonl, for the report), and the pages."""
    records = write_records(results, companion(arguments.out))
    print(f"wrote {records} (every result whole, for course-grade report and feedback)")
    _write_feedback(arguments, results, scorer)


def _report_main(argv: list[str]) -> int:
    from ..publish.report import main as report_main  # matplotlib loads only for the report

    return report_main(argv)


def _feedback_main(argv: list[str]) -> int:
    from ..publish.feedback import main as feedback_main

    return feedback_main(argv)


def _bundle_main(argv: list[str]) -> int:
    parser = _bundle_parser()
    arguments = parser.parse_args(argv)
    course = _course(parser, arguments)
    secret = bundle_secret(arguments.seed if arguments.seed is not None else course.settings.seed)
    limits = _limits(parser, arguments, course, arguments.lab)
    if (missing := missing_templates([arguments.lab], arguments.labs)) is not None:
        parser.error(missing)
    path = build_bundle(arguments.lab, arguments.output, labs_dir=arguments.labs, limits=limits, seed=secret)
    print(
        f"wrote {path} ({lab_registry.lab(arguments.lab).label}): upload it as the assignment's autograder on Gradescope"
    )
    origin = (
        "--seed"
        if arguments.seed is not None
        else f"the term seed of {arguments.course}"
        if course.settings.seed is not None
        else "drawn at random"
    )
    print(
        f"the hidden cases come from the secret seed {secret} ({origin}), kept in the zip as source/{SECRET} "
        "(root-only on Gradescope, never shown to learners); keep this zip private"
    )
    print(
        f"regrade a downloaded submission with the same cases: "
        f"course-grade SUBMISSION.ipynb --lab {arguments.lab} --seed {secret}"
    )
    return 0


def _autograder_main(argv: list[str]) -> int:
    parser = _autograder_parser()
    arguments = parser.parse_args(argv)
    result = run_autograder(
        arguments.lab,
        root=arguments.root,
        labs_dir=arguments.labs,
        limits=_limits(parser, arguments, _course(parser, arguments), arguments.lab),
        seed=arguments.seed,
    )
    print(format_table(for_stdout(result)))
    return 0


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "merge": _merge_main,
    "export": _export_main,
    "report": _report_main,
    "feedback": _feedback_main,
    "bundle": _bundle_main,
    "autograder": _autograder_main,
}
"""``course-grade NAME …``; anything else is a notebook or a folder to grade."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _printable_streams()
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # a dead kernel's pending tasks are reported by us
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])

    parser = _grade_parser()
    arguments = parser.parse_args(argv)
    course = _course(parser, arguments)
    shard = None
    if arguments.shard is not None:
        try:
            shard = parse_shard(arguments.shard)
        except GradingError as exc:
            parser.error(str(exc))
    limits = _limits(parser, arguments, course)
    lab_limits = _lab_limits(arguments, course)
    if any(lab.problems() for _, lab in lab_limits):
        parser.error(
            next(
                f"course file: [labs.{name!r}]: " + "; ".join(lab.problems())
                for name, lab in lab_limits
                if lab.problems()
            )
        )
    options = GradeOptions(
        limits=limits,
        labs_dir=arguments.labs,
        sandbox=not arguments.no_sandbox,
        seed=_seed(arguments, course),
        names=_names(course, _roster(parser, arguments, course)),
        lab_limits=lab_limits,
    )
    target: Path = arguments.target
    if not os.path.lexists(target):
        parser.error(f"{target} does not exist")
    if (
        not target.is_dir()
    ):  # one file: refused before anything opens it (a folder given may be a link: the instructor's)
        _readable_file(parser, target)
        if arguments.only:
            parser.error("--only selects part of a folder: give the submissions folder")
    if arguments.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {arguments.jobs}")
    _feedback_folder(parser, arguments.feedback)
    if options.sandbox and bubblewrap() is None:
        parser.error(
            f"grading needs a sandbox per submission: {INSTALL_HINT}; "
            "or pass --no-sandbox where the machine itself is the sandbox"
        )
    if importlib.util.find_spec("ipykernel") is None:
        parser.error("the grader's Python has no ipykernel, so no kernel can start: install the course's dependencies")
    submissions = find_submissions(target) if target.is_dir() else [target]
    listing: list[str] = []
    only: Selection | None = None
    if target.is_dir():
        _writable(parser, arguments.out, "--out")
        if not submissions:
            parser.error(f"no notebooks (.ipynb) under {target}")
        listing = _listing(target)
        if arguments.only:  # a partial regrade: refused here when a part of it names nothing
            try:
                only = selection(arguments.only, target)
            except GradingError as exc:
                parser.error(str(exc))
            if (nothing := unmatched(only, target, submissions, options.names)) is not None:
                parser.error(nothing)
        try:  # the manifest's paths as graded: an entry that names no file stops here
            course = course.for_submissions(listing, target)
        except GradingError as exc:
            parser.error(str(exc))
    needed = [arguments.lab] if arguments.lab and not target.is_dir() else [lab_named(path) for path in submissions]
    if (
        missing := missing_templates(sorted({lab for lab in needed if lab}, key=_course_order), arguments.labs)
    ) is not None:
        parser.error(missing)
    if not options.sandbox:
        print(f"warning: --no-sandbox: {GIVEN_UP}", file=sys.stderr)
    if (no_cgroup := cgroup.unavailable()) is not None:
        print(f"warning: {cgroup.fallback_note(no_cgroup)}; each result says so too", file=sys.stderr)
    if arguments.seed is None and course.settings.seed is not None:
        print(
            f"hidden cases drawn from the term seed {options.seed} ({arguments.course}: every regrade draws the same)"
        )
    else:
        print(f"hidden cases drawn from seed {options.seed} (--seed {options.seed} reproduces this run)")

    if target.is_dir():
        results = grade_folder(
            target,
            options,
            jobs=arguments.jobs,
            progress=not arguments.no_progress,
            course=course,
            shard=shard,
            only=only,
        )
        from ..results.similarity import noted  # reported, not judged; copydetect loads only here

        results = noted(results, target, options.labs_dir, rest_of=options.names if shard or only else False)
        run = run_record(options.seed, course.fingerprint, listing)
        column = shard_column(*shard, course.settings.duplicates, run) if shard else None
        frame = write_csv(results, arguments.out, course, shard=column)
        _after_batch(arguments, results, scorer=lambda graded: score(graded, course))
        counts = Counter(result.status for result in results)
        part = f" (shard {shard[0]}/{shard[1]}: join the shards with course-grade merge)" if shard else ""
        print(
            f"graded {len(results)} notebooks{part}: "
            + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        )
        unknown = sum(result.student_source.startswith(UNKNOWN) for result in results)
        if unknown:
            print(f"{unknown} submissions name no roster student (student_from {UNKNOWN}…; see their notes)")
        mean = f"mean {frame['percent'].mean():.1f} % · " if len(frame) else ""
        print(f"{mean}wrote {arguments.out}")
        return 0

    _writable(parser, arguments.results, "--results")
    if arguments.lab:
        options = replace(options, expected_lab=arguments.lab)
    result = grade_notebook(target, options, student=arguments.student)
    # The files first: nothing the terminal cannot show (a lone surrogate in a message) may cost the results.
    write_atomically(arguments.results, json.dumps(to_gradescope(result), indent=2))
    _write_feedback(arguments, [result], scorer=lambda graded: score(graded, course))
    print(format_table(result))
    if course.path is not None:
        print(f"course score: {score(result, course).explanation}")
    print(f"wrote {arguments.results}")
    return 0


def _printable_streams() -> None:
    """stdout and stderr show what they cannot encode as escapes instead of raising ``UnicodeEncodeError``.

    Messages quote the learner's exceptions and file names, which may hold a lone
    surrogate or characters an ASCII terminal lacks (``PYTHONIOENCODING=utf-8:strict``,
    ``LANG=C``); the command must still write its results and finish.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to protect
                pass
