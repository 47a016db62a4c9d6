"""The course file under the flags: what a run's roster, seed and limits are (docs/grading.md, *The course file*).

A flag given on the command line wins over the course file, which wins over
the defaults; a course file, roster or limit that cannot be used stops the
command here, as a usage error, before anything is graded.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from course_lib.teaching.lab_registry import Lab

from ..course.course import NO_COURSE, Course
from ..course.course_file import load_course
from ..errors import GradingError
from ..intake.roster import Names, Roster, load_roster
from ..judging.secret import new_secret
from ..sandbox.limits import Limits


def course(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> Course:
    """The course file named by ``--course``, else the empty course (today's behaviour); a bad one stops here."""
    if getattr(arguments, "course", None) is None:
        return Course()
    try:
        return load_course(arguments.course)
    except GradingError as exc:
        parser.error(str(exc))


def roster(parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course) -> Roster | None:
    """``--roster``, else the course file's ``roster``; ``None`` without either."""
    path = getattr(arguments, "roster", None) or course.roster_path
    if path is None:
        return None
    try:
        return load_roster(path)
    except GradingError as exc:
        parser.error(str(exc))


def names(course: Course, roster: Roster | None) -> Names | None:
    """LMS names are read once there is a course file or a roster; without either, who is decided as before. What the
    course's worksheets say of each participant id (its email, ID number) tells two students with one name apart."""
    if roster is None and course.path is None:
        return None
    return Names.of(course.settings.names, course.settings.pattern, roster, course.known)


def seed(parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course = NO_COURSE) -> str:
    """The run's secret: the one asked for, the term's, or a fresh one nobody could have prepared for (issue 43).

    A term's secret file that is missing or weak stops the command here, before anything is graded.
    """
    if arguments.seed is not None:
        return str(arguments.seed)
    try:
        return course.secret or new_secret()
    except GradingError as exc:
        parser.error(f"course file {arguments.course}: key seed: {exc}")


def flags_over(limits: Limits, arguments: argparse.Namespace) -> Limits:
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


def lab_limits(arguments: argparse.Namespace, course: Course) -> tuple[tuple[str, Limits], ...]:
    """Each lab the course file sets limits for: its limits, under the flags."""
    return tuple((lab, flags_over(course.limits(lab, Limits()), arguments)) for lab in course.settings.labs)


def limits(
    parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course = NO_COURSE, lab: Lab | None = None
) -> Limits:
    """The run's limits (``lab``'s, when the course file sets its own), refused as the flags that set them."""
    chosen = flags_over(course.limits(lab.id if lab else None, Limits()), arguments)
    if chosen.problems():
        parser.error(
            "; ".join(chosen.problems())
            .replace("cell_timeout", "--timeout")
            .replace("memory_mb", "--memory")
            .replace("budget", "--budget")
        )
    if arguments.labs and not Path(arguments.labs).is_dir():
        parser.error(f"--labs {arguments.labs}: no such folder")
    return chosen
