"""The options several verbs add alike, so ``course-grade``, ``bundle`` and ``autograder`` spell them the same.

Each function adds its options to a parser; what the values mean together
(the course file under the flags) is ``course_file.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from course_lib.teaching import lab_registry
from course_lib.teaching.lab_registry import Lab

from ..errors import GradingError
from ..judging.secret import resolved
from ..sandbox.limits import Limits


def lab(text: str) -> Lab:
    """``--lab``'s type: a lab as the course names it (``11.3``, ``lab_11_3``, …), as the registry's entry."""
    try:
        return lab_registry.lab(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def secret(text: str) -> str:
    """``--seed``'s type: a run's secret, or the file holding one (``term.secret``); a number or a date is refused."""
    try:
        return resolved(text, Path("."))
    except GradingError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def limits_options(parser: argparse.ArgumentParser) -> None:
    """What a grading run may spend and where its labs and hidden cases come from: the grade verb, bundle, autograder."""
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
        type=secret,
        metavar="SECRET",
        help="draw the hidden cases from SECRET, or the secret in the file SECRET names (default: the course "
        "file's term secret, else a new one, printed; the CSV's seed reproduces a run; course-grade secret writes one)",
    )
    parser.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the term's course file (course.toml: roster, seed, limits, points, late policy; docs/grading.md)",
    )
