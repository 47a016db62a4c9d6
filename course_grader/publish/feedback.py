"""The feedback pages of a batch: a page per student and lab, and their index (docs/grading.md, *Feedback for every student*).

``course-grade FOLDER --feedback DIR`` writes one page per student and lab from
a batch, ``course-grade SUBMISSION.ipynb --feedback DIR`` the page of one
notebook, and ``course-grade feedback`` the pages again from a batch's
records; all go through ``feedback_page.render_page``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from course_lib.checklist import rules_page
from course_lib.teaching import i18n, lab_registry

from ..checkout import CHECKOUT
from ..errors import GradingError
from ..files import write_atomically
from ..intake.lab_names import the_assignment
from ..judging.verdicts import GradeResult
from ..safe_text import shown, valid
from .feedback_page import NAME_LIMIT, lab_heading, render_page
from .lms_feedback import LMS_NAMES, Lms, write_lms_zips
from .page_names import lab_suffix, page_names
from .page_score import Scorer, points_per_test
from .pages import render


def counting(results: Iterable[GradeResult]) -> dict[tuple[str, str | None], GradeResult]:
    """The result each page shows, per (student, lab): the one that counts (``counts``), else the last.

    A duplicate that does not count gets no page of its own; the counting one's
    notes name it (``batch.flag_duplicates``).
    """
    groups: dict[tuple[str, str | None], list[GradeResult]] = defaultdict(list)
    for result in results:
        groups[(result.student, result.lab)].append(result)
    return {key: next((r for r in reversed(group) if r.counts), group[-1]) for key, group in groups.items()}


def default_rules_base(folder: Path, language: str = i18n.DEFAULT) -> str:
    """The checkout's rules page in ``language`` (docs/rules.md, docs/zh/rules.md), relative to the feedback folder;
    ``rules.md`` when there is no checkout."""
    rules = CHECKOUT / rules_page.PAGES[language]
    if not rules.is_file():
        return "rules.md"
    return Path(os.path.relpath(rules, folder.resolve())).as_posix()


def write_feedback(
    results: Iterable[GradeResult],
    folder: str | os.PathLike[str],
    *,
    scorer: Scorer | None = None,
    rules_base: str | None = None,
    language: str = i18n.DEFAULT,
    whole: bool = True,
    language_of: Callable[[str], str] | None = None,
) -> list[Path]:
    """A page per student and lab in ``folder`` (made if missing), and ``index.html`` listing them (for the instructor).

    The index speaks ``language``, the run's (``Course.language``); so does every page, or ``language_of`` its
    student's (``Course.language_of``: their section's, issue 45).

    Pages are named ``<student>_lab_11_3.html`` (``_capstone``, or
    ``_not_graded`` for a file that is not a lab notebook); ``page_names``
    keeps a hostile student id from naming a path or another student's page.
    A page an earlier run wrote here and this one supersedes is removed
    (``stale_pages``): one whose submission now has another page (regraded
    under another student id), and, when the results are the ``whole`` term's,
    one no result has any more. Returns the pages written, index last.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    rows = []
    paths = page_paths(results, folder)
    stale_pages(folder, {path.name: valid(result.submission) for result, path in paths}, whole=whole)
    for result, path in paths:
        spoken = language_of(result.student) if language_of is not None else language
        base = rules_base if rules_base is not None else default_rules_base(folder, spoken)
        score = scorer(result) if scorer else points_per_test(result, spoken)
        write_atomically(path, render_page(result, score=score, rules_base=base, language=spoken))
        written.append(path)
        rows.append(
            {
                "student": shown(result.student, NAME_LIMIT),
                "lab": lab_heading(result.lab, language),
                "status": result.status,
                "score": score,
                "href": path.name,
            }
        )
    index = folder / "index.html"
    write_atomically(index, render("feedback_index.html.j2", language, rows=rows))
    return [*written, index]


WRITTEN = ".course-grade-pages.json"
"""Beside the pages: each page this folder holds and the submission it shows, so a later run can tell what it
supersedes (``stale_pages``)."""


def stale_pages(folder: Path, pages: dict[str, str], *, whole: bool) -> list[str]:
    """Remove the pages of an earlier run that ``pages`` (name → submission, about to be written) supersede.

    A page whose submission now shows on another page is stale (Kevin's file,
    graded as ``kpark`` and then, after a roster change, as ``S1099``); so is,
    for the ``whole`` term's pages, one whose submission no result has any more.
    Only pages listed in ``WRITTEN`` are touched: the grader never deletes a
    file it did not write. Returns the names removed.
    """
    listed = folder / WRITTEN
    try:
        earlier: dict[str, str] = json.loads(listed.read_text(encoding="utf-8")) if listed.is_file() else {}
    except (OSError, ValueError):
        earlier = {}
    showing = set(pages.values())
    removed = [
        name
        for name, submission in earlier.items()
        if name not in pages and (whole or submission in showing) and "/" not in name and name.endswith(".html")
    ]
    for name in removed:
        (folder / name).unlink(missing_ok=True)
    kept = {} if whole else {name: file for name, file in earlier.items() if name not in removed}
    write_atomically(listed, json.dumps({**kept, **pages}, indent=1, sort_keys=True) + "\n")
    return removed


def page_paths(results: Iterable[GradeResult], folder: Path) -> list[tuple[GradeResult, Path]]:
    """Each page's result and file, by student then lab in course order (``counting``, ``page_names``)."""
    shown_results = counting(results)
    names = page_names(student for student, _ in shown_results)
    order = list(lab_registry.LABS)
    return [
        (result, folder / f"{names[student]}_{lab_suffix(lab)}.html")
        for (student, lab), result in sorted(
            shown_results.items(),
            key=lambda item: (item[0][0], order.index(item[0][1]) if item[0][1] in order else len(order)),
        )
    ]


def lms_zip(results: Iterable[GradeResult], folder: Path, lms: Lms) -> str:
    """``--lms-zip``: the pages just written, zipped per assignment as ``lms`` takes them back; the lines that say so."""
    written, left_out = write_lms_zips(page_paths(results, folder), folder, lms)
    lines = [
        f"wrote {path}: {count} pages for {lms}'s bulk feedback upload of "
        f"{the_assignment(lab) if lab is not None else 'no lab assignment'}"
        for path, lab, count in written
    ]
    if not written:
        lines.append(f"no page for {lms}: none of these submissions was named by its download")
    if left_out:
        shown_names = ", ".join(shown(name, NAME_LIMIT) for name in left_out[:5])
        more = f" and {len(left_out) - 5} more" if len(left_out) > 5 else ""
        lines.append(f"not in a zip, as {lms} did not name their download: {shown_names}{more}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """``course-grade feedback grades.jsonl -o DIR``: the pages again from a batch's records, without regrading.

    For shards (their ``.jsonl`` files joined: every page and one index). The
    score on each page is the one the grades CSV holds: the course file the
    grades were scored by (their ``course`` column) is used again, and a page
    is never written under another one (``recorded_course``).
    """
    from ..results.records import counted_files, read_records, with_counts
    from .recorded_course import recorded_course  # the course file and the CSVs are read only by this command

    parser = argparse.ArgumentParser(
        prog="course-grade feedback", description="Write the feedback pages of graded results (docs/grading.md)."
    )
    parser.add_argument("records", type=Path, nargs="+", help="grades.jsonl files (one per shard, or the batch's)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="the folder for the pages")
    parser.add_argument(
        "--rules-url",
        metavar="BASE",
        help="where the pages link a rule to (BASE#r19; default: the checkout's docs/rules.md, relative)",
    )
    parser.add_argument(
        "--grades",
        type=Path,
        metavar="CSV",
        help="the (merged) grades CSV: which of a student's duplicates counts, decided across shards "
        "(default: each records file's own CSV beside it, grades.jsonl → grades.csv)",
    )
    parser.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the course file the grades were scored by (default: the one the grades CSV records); "
        "another one is refused",
    )
    lms_option(parser)
    arguments = parser.parse_args(argv)
    try:
        results = [result for path in arguments.records for result in read_records(path)]
        if arguments.grades:
            results = with_counts(results, counted_files(arguments.grades))
        grades = [arguments.grades] if arguments.grades else [p.with_suffix(".csv") for p in arguments.records]
        recorded = recorded_course(results, [path for path in grades if path.is_file()], arguments.course)
    except (OSError, GradingError) as exc:
        parser.error(str(exc))
    if recorded.warning:
        print(f"warning: {recorded.warning}", file=sys.stderr)
    pages = write_feedback(
        results,
        arguments.output,
        scorer=recorded.scorer,
        rules_base=arguments.rules_url,
        language=recorded.language,
        language_of=recorded.language_of,
    )
    print(f"wrote {len(pages) - 1} feedback pages to {arguments.output} (list: {pages[-1]})")
    if arguments.lms_zip:
        print(lms_zip(results, arguments.output, arguments.lms_zip))
    return 0


def lms_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lms-zip",
        choices=LMS_NAMES,
        help="also zip the pages for the LMS to take back, one zip per assignment, each page named as that student's "
        "download was: canvas for an assignment's Re-Upload Submissions, moodle for 'Upload multiple feedback files "
        "in a zip' (DIR/feedback-canvas-lab_11_3.zip, DIR/feedback-moodle-capstone.zip, …)",
    )
