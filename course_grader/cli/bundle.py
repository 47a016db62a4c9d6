"""``course-grade bundle --lab 11.3 -o autograder.zip``: a Gradescope autograder for one lab (packaging/bundle.py).

The zip keeps the assignment's secret, so the instructor is told where it
came from and how to regrade a downloaded submission with the same cases. With
a course file it is derived from the term's secret (``secret.derived``), never
the term's secret itself: what Gradescope's machines hold tells nothing of the
cases ``course-grade`` draws for the term (issue 43).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from course_lib.teaching import lab_registry

from ..course.course import Course
from ..intake.lab_templates import missing_templates
from ..judging.secret import derived
from ..packaging.bundle import SECRET, build_bundle, bundle_secret
from . import course_file
from .options import lab, limits_options


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade bundle",
        description="Build a Gradescope autograder zip for one lab.",
        epilog="--seed SECRET makes SECRET the assignment's secret (default: one derived from the course file's "
        "term secret, else a fresh one; printed for the instructor either way).",
    )
    parser.add_argument("--lab", type=lab, required=True, help=f"one of {', '.join(lab_registry.LABS)}")
    parser.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"))
    limits_options(parser)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    course = course_file.course(parser, arguments)
    secret = arguments.seed
    if secret is None and course.settings.seed is not None:  # derived: Gradescope never holds the term's own
        secret = derived(course_file.seed(parser, arguments, course), f"gradescope {arguments.lab.id}")
    secret = bundle_secret(secret)
    limits = course_file.limits(parser, arguments, course, arguments.lab)
    if (missing := missing_templates([arguments.lab], arguments.labs)) is not None:
        parser.error(missing)
    path = build_bundle(
        arguments.lab, arguments.output, labs_dir=arguments.labs, limits=limits, seed=secret, course=course
    )
    print(f"wrote {path} ({arguments.lab.label}): upload it as the assignment's autograder on Gradescope")
    print(
        f"the hidden cases come from the secret {secret} ({_origin(arguments, course)}), kept in the zip as "
        f"source/{SECRET} (root-only on Gradescope, never shown to learners); keep this zip private"
    )
    print(
        f"regrade a downloaded submission with the same cases: "
        f"course-grade SUBMISSION.ipynb --lab {arguments.lab.id} --seed {secret}"
    )
    return 0


def _origin(arguments: argparse.Namespace, course: Course) -> str:
    """Where the secret came from, as the instructor gave it."""
    if arguments.seed is not None:
        return "--seed"
    if course.settings.seed is not None:
        return f"derived from the term's secret of {arguments.course}, which it does not give away"
    return "drawn at random"
