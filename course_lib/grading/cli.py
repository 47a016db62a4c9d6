"""``course-grade``: grade a notebook or a folder, or build a Gradescope autograder.

    course-grade SUBMISSION.ipynb [--results results.json]
    course-grade DIR --out grades.csv [-j N]
    course-grade bundle --lab 11.3 -o autograder.zip
    course-grade autograder --lab 11.3 [--root /autograder]     (what the bundle runs)

The exit status is 0 once results are written, whatever the score; 2 for a
usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from pathlib import Path

from ..checklist.runner import LABS, normalise_lab
from .batch import grade_folder, write_csv
from .bundle import build_bundle, run_autograder
from .grade import GradeOptions, grade_notebook
from .results import format_table, to_gradescope
from .sandbox import Limits

SUBCOMMANDS = ("bundle", "autograder")


def _lab(text: str) -> str:
    try:
        return normalise_lab(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _limits_options(parser: argparse.ArgumentParser) -> None:
    defaults = Limits()
    parser.add_argument("--timeout", type=float, default=defaults.cell_timeout, metavar="SECONDS",
                        help=f"time limit per cell and per check (default {defaults.cell_timeout:g})")
    parser.add_argument("--memory", type=int, default=defaults.memory_mb, metavar="MB",
                        help=f"address-space limit of the learner's kernel, 0 for none (default {defaults.memory_mb})")
    parser.add_argument("--labs", metavar="DIR", help="folder with the course's lab notebooks (default: ./labs or the checkout's)")


def _limits(arguments: argparse.Namespace) -> Limits:
    return Limits(cell_timeout=arguments.timeout, memory_mb=arguments.memory or None)


def _grade_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade", description="Grade Lab 11.1–11.5 notebooks (see docs/grading.md).",
        epilog="Other commands: 'course-grade bundle --help', 'course-grade autograder --help'.",
    )
    parser.add_argument("target", type=Path, help="a submitted .ipynb, or a folder of them")
    parser.add_argument("--results", type=Path, default=Path("results.json"),
                        help="where one notebook's Gradescope results go (default results.json)")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="the CSV for a folder (default grades.csv)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="notebooks graded at once (folder only)")
    parser.add_argument("--lab", type=_lab, help="grade as this lab when a notebook names none")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (folder only)")
    _limits_options(parser)
    return parser


def _bundle_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course-grade bundle", description="Build a Gradescope autograder zip for one lab.")
    parser.add_argument("--lab", type=_lab, required=True, help=f"one of {', '.join(LABS)}")
    parser.add_argument("-o", "--output", type=Path, default=Path("autograder.zip"))
    _limits_options(parser)
    return parser


def _autograder_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade autograder",
        description="Grade ROOT/submission and write ROOT/results/results.json (Gradescope's layout).",
    )
    parser.add_argument("--lab", type=_lab, required=True)
    parser.add_argument("--root", help="default $AUTOGRADER_ROOT or /autograder")
    _limits_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # a dead kernel's pending tasks are reported by us
    if argv and argv[0] == "bundle":
        arguments = _bundle_parser().parse_args(argv[1:])
        path = build_bundle(arguments.lab, arguments.output, labs_dir=arguments.labs, limits=_limits(arguments))
        print(f"wrote {path} (Lab {arguments.lab}): upload it as the assignment's autograder on Gradescope")
        return 0
    if argv and argv[0] == "autograder":
        arguments = _autograder_parser().parse_args(argv[1:])
        result = run_autograder(arguments.lab, root=arguments.root, labs_dir=arguments.labs, limits=_limits(arguments))
        print(format_table(result))
        return 0

    arguments = _grade_parser().parse_args(argv)
    options = GradeOptions(limits=_limits(arguments), labs_dir=arguments.labs, expected_lab=None)
    target: Path = arguments.target
    if target.is_dir():
        results = grade_folder(target, options, jobs=max(1, arguments.jobs), progress=not arguments.no_progress)
        frame = write_csv(results, arguments.out)
        counts = Counter(result.status for result in results)
        print(f"graded {len(results)} notebooks: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
        if len(frame):
            print(f"mean {frame['percent'].mean():.1f} % · wrote {arguments.out}")
        return 0
    if not target.exists():
        _grade_parser().error(f"{target} does not exist")
    if arguments.lab:
        options = GradeOptions(limits=options.limits, labs_dir=options.labs_dir, expected_lab=arguments.lab)
    result = grade_notebook(target, options)
    print(format_table(result))
    arguments.results.write_text(json.dumps(to_gradescope(result), indent=2), encoding="utf-8")
    print(f"wrote {arguments.results}")
    return 0
