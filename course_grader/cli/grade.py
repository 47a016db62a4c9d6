"""``course-grade SUBMISSION.ipynb`` or ``course-grade DIR``: the default verb, what a word that is no verb means.

Everything that can be checked before grading is checked here first (limits,
the labs folder, where the output goes, that there is something to grade,
that the sandbox tool is installed), each a usage error (exit status 2);
then ``grade_batch.py`` grades a folder and ``grade_single.py`` one notebook.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from course_lib.teaching import lab_registry

from ..batch.leftovers import clean_leftovers
from ..course.course import Course
from ..errors import GradingError
from ..intake.identity_settings import Identity
from ..intake.lab_templates import missing_templates
from ..intake.notebook import lab_named
from ..intake.shard import parse_shard
from ..judging.grade_options import GradeOptions
from ..judging.judging_settings import JudgingSettings
from ..sandbox import cgroup
from ..sandbox.bubblewrap import GIVEN_UP, INSTALL_HINT, bubblewrap
from ..sandbox.settings import SandboxSettings
from . import course_file, grade_batch, grade_single
from .feedback_pages import feedback_options
from .options import lab, limits_options
from .refusals import readable_file, writable_folder
from .stopping import stopped_cleanly
from .verbs import VERBS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade",
        description=f"Grade Lab {', '.join(lab_registry.LABS)} notebooks (see docs/grading.md).",
        epilog="Other commands: " + ", ".join(f"'course-grade {name} --help'" for name in VERBS) + ".",
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
    parser.add_argument("--lab", type=lab, help="grade as this lab when a notebook names none")
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
    limits_options(parser)
    feedback_options(parser)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    course = course_file.course(parser, arguments)
    shard = _shard(parser, arguments)
    options = _grade_options(parser, arguments, course)
    target: Path = arguments.target
    _refuse_before_grading(parser, arguments, options)
    if not target.is_dir():  # one notebook: as the lab asked for, else the one it names
        _refuse_missing_templates(parser, arguments, [arguments.lab.id if arguments.lab else lab_named(target)])
        _announce(arguments, course, options)
        with stopped_cleanly():
            return grade_single.run(parser, arguments, course, options)
    batch = grade_batch.prepare(parser, arguments, course, options)
    _refuse_missing_templates(parser, arguments, [lab_named(path) for path in batch.submissions])
    _announce(arguments, batch.course, options)
    with stopped_cleanly():
        return grade_batch.run(arguments, batch, shard)


def _shard(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> tuple[int, int] | None:
    """``--shard I/N`` read, else ``None``: the whole folder."""
    if arguments.shard is None:
        return None
    try:
        return parse_shard(arguments.shard)
    except GradingError as exc:
        parser.error(str(exc))


def _grade_options(parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course) -> GradeOptions:
    """The run's limits (each lab's the course file sets too), sandbox, seed and names; a bad limit stops here."""
    limits = course_file.limits(parser, arguments, course)
    lab_limits = course_file.lab_limits(arguments, course)
    if any(lab.problems() for _, lab in lab_limits):
        parser.error(
            next(
                f"course file: [labs.{name!r}]: " + "; ".join(lab.problems())
                for name, lab in lab_limits
                if lab.problems()
            )
        )
    roster = course_file.roster(parser, arguments, course)
    return GradeOptions(
        sandbox=SandboxSettings(limits=limits, lab_limits=lab_limits, isolate=not arguments.no_sandbox),
        identity=Identity(names=course_file.names(course, roster), labs_dir=arguments.labs),
        judging=JudgingSettings(
            seed=course_file.seed(parser, arguments, course),
            language=course.language,
            languages=tuple(sorted(course.languages(roster).items())),
        ),
    )


def _refuse_before_grading(
    parser: argparse.ArgumentParser, arguments: argparse.Namespace, options: GradeOptions
) -> None:
    """What the target is, how many jobs, where the pages go, the sandbox and the kernel: checked before grading."""
    target: Path = arguments.target
    if not os.path.lexists(target):
        parser.error(f"{target} does not exist")
    if (
        not target.is_dir()
    ):  # one file: refused before anything opens it (a folder given may be a link: the instructor's)
        readable_file(parser, target)
        if arguments.only:
            parser.error("--only selects part of a folder: give the submissions folder")
    if arguments.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {arguments.jobs}")
    writable_folder(parser, arguments.feedback, "--feedback")
    if arguments.lms_zip and arguments.feedback is None:
        parser.error("--lms-zip packs the feedback pages: give --feedback DIR too")
    if options.sandbox.isolate and bubblewrap() is None:
        parser.error(
            f"grading needs a sandbox per submission: {INSTALL_HINT}; "
            "or pass --no-sandbox where the machine itself is the sandbox"
        )
    if importlib.util.find_spec("ipykernel") is None:
        parser.error("the grader's Python has no ipykernel, so no kernel can start: install the course's dependencies")


def _refuse_missing_templates(
    parser: argparse.ArgumentParser, arguments: argparse.Namespace, needed: list[str | None]
) -> None:
    """The course's notebooks for every lab to grade, found before grading (``None``: a file that names no lab)."""
    labs = [lab for lab in lab_registry.LABS.values() if lab.id in needed]  # in the course's order
    if (missing := missing_templates(labs, arguments.labs)) is not None:
        parser.error(missing)


def _announce(arguments: argparse.Namespace, course: Course, options: GradeOptions) -> None:
    """What the run gives up (no sandbox, no cgroup) on stderr, and the seed that reproduces it."""
    if not options.sandbox.isolate:
        print(f"warning: --no-sandbox: {GIVEN_UP}", file=sys.stderr)
    if (no_cgroup := cgroup.unavailable()) is not None:
        print(f"warning: {cgroup.fallback_note(no_cgroup)}; each result says so too", file=sys.stderr)
    if left := clean_leftovers():  # what a course-grade stopped by SIGKILL left (issue 43)
        print(
            f"removed {len(left)} cgroups and folders a stopped course-grade left (course-grade clean)", file=sys.stderr
        )
    if arguments.seed is None and course.settings.seed is not None:
        print(f"hidden cases drawn from the term's secret ({arguments.course}: every regrade draws the same)")
    else:
        print(
            f"hidden cases drawn from the secret {options.judging.seed} (--seed {options.judging.seed} reproduces "
            "this run; keep it from learners)"
        )
