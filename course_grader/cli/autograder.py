"""``course-grade autograder --lab 11.3 [--root /autograder]``: what the Gradescope bundle runs (packaging/bundle.py).

Grades ROOT/submission into ROOT/results/results.json and prints the table,
for Gradescope's log.
"""

from __future__ import annotations

import argparse

from ..judging.verdicts import format_table
from ..packaging.bundle import for_stdout, run_autograder
from . import course_file
from .options import lab, limits_options


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade autograder",
        description="Grade ROOT/submission and write ROOT/results/results.json (Gradescope's layout), as root: "
        "the kernel runs as an unused uid that cannot read the grader, and bubblewrap is not used. "
        "The hidden cases come from ROOT/source/secret unless --seed is given.",
    )
    parser.add_argument("--lab", type=lab, required=True)
    parser.add_argument("--root", help="default $AUTOGRADER_ROOT or /autograder")
    limits_options(parser)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    result = run_autograder(
        arguments.lab,
        root=arguments.root,
        labs_dir=arguments.labs,
        limits=course_file.limits(parser, arguments, course_file.course(parser, arguments), arguments.lab),
        seed=arguments.seed,
    )
    print(format_table(for_stdout(result)))
    return 0
