"""``--feedback DIR``: the grade verb's pages, one per student and lab (docs/grading.md, *Feedback for every student*).

The option is added here and acted on here once grading is done;
``refusals.writable_folder`` checks DIR before anything is graded. The
``feedback`` verb (``feedback.py``) writes the same pages again from a batch's records.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from course_lib.teaching import i18n

from ..judging.verdicts import GradeResult
from ..publish.feedback import lms_option, lms_zip, write_feedback
from ..publish.page_score import Scorer


def feedback_options(parser: argparse.ArgumentParser) -> None:
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
    lms_option(parser)


def write_pages(
    arguments: argparse.Namespace,
    results: list[GradeResult],
    scorer: Scorer | None = None,
    language: str = i18n.DEFAULT,
    language_of: Callable[[str], str] | None = None,
) -> None:
    """``--feedback DIR``: the pages in ``language`` (or each in ``language_of`` its student's); ``scorer`` makes each
    page's score (default: 1 point per passed test)."""
    if arguments.feedback is not None:
        whole = not (getattr(arguments, "only", None) or getattr(arguments, "shard", None))  # else: part of the term
        pages = write_feedback(
            results,
            arguments.feedback,
            scorer=scorer,
            rules_base=arguments.rules_url,
            language=language,
            whole=whole,
            language_of=language_of,
        )
        print(f"wrote {len(pages) - 1} feedback pages to {arguments.feedback} (list: {pages[-1]})")
        if arguments.lms_zip:
            print(lms_zip(results, arguments.feedback, arguments.lms_zip))
