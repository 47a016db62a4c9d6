"""``course-grade``: grade a notebook or a folder, or build a Gradescope autograder.

    course-grade SUBMISSION.ipynb [--results results.json] [--student ID]
    course-grade DIR --out grades.csv [-j N] [--course course.toml] [--roster roster.csv] [--shard I/N]
    course-grade DIR --only student:ID|lab:LAB|FILE --out regrade.csv   (part of the folder again)
    course-grade merge A.csv B.csv … -o grades.csv  (shards' CSVs into the whole run's; a term's CSV and its regrades)
    course-grade rescore grades.csv --course FILE -o grades.csv  (extensions, overrides: the scores again, no regrade)
    course-grade export grades.csv --roster roster.csv -o gradebook.csv [--format canvas|moodle]
    course-grade bundle --lab 11.3 -o autograder.zip
    course-grade autograder --lab 11.3 [--root /autograder]     (what the bundle runs)
    course-grade dry-run autograder.zip NOTEBOOK.ipynb          (the bundle as Gradescope runs it, in a sandbox)
    course-grade report grades.csv -o report.html               (the class picture, report.py)
    course-grade feedback grades.jsonl … -o DIR [--course FILE] (the pages again, from a batch's records)
    course-grade secret [term.secret]                           (a new term secret, for the course file's seed)
    course-grade clean                                          (what a killed course-grade left: cgroups, folders)
    ... --feedback DIR                                          (a page per student and lab, feedback.py)

Everything that can be checked before grading is checked first (limits, the
labs folder, where the output goes, that there is something to grade, that
the sandbox tool is installed), so a batch never grades for an hour and then
fails to write its results. The exit status is 0 once results are written,
whatever the score; 2 for a usage or set-up error (a labs folder not found, no
sandbox tool, …: nothing is graded then), which includes a single SUBMISSION
that is not a regular file (a link is never followed) or is over the size limit.

This module only dispatches. Each verb is a module of this folder with a
``main(argv) -> int``, named in ``verbs.py``; ``grade.py`` is the default (a
notebook, ``grade_single.py``, or a folder, ``grade_batch.py``). What several
verbs share: ``options.py`` (the limits options), ``course_file.py`` (the
course file under the flags), ``refusals.py`` (checked before any work) and
``feedback_pages.py`` (``--feedback DIR``).
"""

from __future__ import annotations

import logging
import sys

from . import grade
from .verbs import VERBS


def main(argv: list[str] | None = None) -> int:
    """``course-grade …``: the verb named first runs on the rest (``verbs.py``), anything else is graded (``grade.py``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _printable_streams()
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # a dead kernel's pending tasks are reported by us
    if argv and argv[0] in VERBS:
        return VERBS[argv[0]](argv[1:])
    return grade.main(argv)


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
