"""``course-grade export grades.csv --roster roster.csv -o gradebook.csv``: one row per student, a column per lab.

The gradebook an LMS imports (Canvas or Moodle's layout, ``publish/gradebook.py``);
the rows nothing was graded in are named on stderr, since an LMS imports
their 0 like any grade.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from course_lib.teaching import lab_registry

from ..course.course_roster import check_students
from ..errors import GradingError
from ..publish import gradebook
from ..results.grades_csv import read_frame
from . import course_file
from .options import lab
from .refusals import writable

if TYPE_CHECKING:
    import pandas as pd


def build_parser() -> argparse.ArgumentParser:
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
        help="a lab a student submitted nothing for: an empty cell (ungraded in the LMS) or 0 (default empty); "
        "0 only in labs that are due (past their deadline, or graded for someone when they have none)",
    )
    parser.add_argument(
        "--labs",
        type=lab_list,
        metavar="LAB,LAB",
        help="the labs to export, e.g. 11.3,11.4 (default: every lab graded or set in the course file); "
        "Canvas imports only the columns present, so leave out the labs it should not touch",
    )
    return parser


def lab_list(text: str) -> tuple[str, ...]:
    """``--labs``' type: labs as the course names them, comma-separated, each once, in course order."""
    named = {lab(item).id for item in text.split(",") if item.strip()}
    if not named:
        raise argparse.ArgumentTypeError("name at least one lab, e.g. --labs 11.3,11.4")
    return tuple(entry for entry in lab_registry.LABS if entry in named)


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    course = course_file.course(parser, arguments)
    roster = course_file.roster(parser, arguments, course)
    if roster is None:
        parser.error("export needs the class: --roster FILE, or a course file (--course) naming one")
    writable(parser, arguments.output, "-o")
    try:
        check_students(course, roster, (), "the roster")
        grades = read_frame(arguments.grades)
        book = gradebook.build(
            grades, roster, layout=arguments.format, missing=arguments.missing, course=course, labs=arguments.labs
        )
    except GradingError as exc:
        parser.error(str(exc))
    gradebook.write(book, arguments.output)
    print(
        f"wrote {arguments.output} ({arguments.format}): {book.students} students × {len(book.labs)} labs "
        f"({', '.join(book.labs)}); {book.missing} cells without a submission ({arguments.missing})"
    )
    if book.not_due:
        print(f"left empty, not due yet: {', '.join(book.not_due)}")
    for line in book.overridden:
        print(line)
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
