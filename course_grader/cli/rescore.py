"""``course-grade rescore grades.csv --course course.toml -o grades.csv``: the scores again, no notebook run.

For an extension, an override, a changed weight or late policy decided after
grading (``results/rescore.py``); the records beside the CSV (grades.jsonl)
are read, and written beside the output when it is another file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..course.course import Course
from ..course.course_file import load_course
from ..course.course_roster import check_students, decision_problems, said_without_submission, without_submission
from ..course.course_settings import CourseFileError
from ..errors import GradingError
from ..intake.roster import load_roster
from ..results.grades_csv import read_frame, write_frame
from ..results.records import companion, read_records, write_records
from ..results.rescore import rescore
from ..results.run_file import read_run, write_run
from .refusals import writable

if TYPE_CHECKING:
    import pandas as pd


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade rescore",
        description="Score a term's grades again under the course file as it is now (extensions, overrides, "
        "weights, late policy), from the CSV and its grades.jsonl, without running a notebook.",
    )
    parser.add_argument("grades", type=Path, help="the grades CSV (a batch's, or merge's); its grades.jsonl beside it")
    parser.add_argument("--course", type=Path, required=True, metavar="FILE", help="the course file to score by")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the rescored CSV (may be the input)")
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    writable(parser, arguments.output, "-o")
    records = companion(arguments.grades)
    try:  # everything read before anything is written: the output may be the input
        frame = read_frame(arguments.grades)
        results = read_records(records)
        course = load_course(arguments.course).for_submissions([r.submission for r in results], ".")
        _check_entries(course, frame, arguments.grades)
        rescored, rescored_records, changed = rescore(frame, results, course)
        run = read_run(arguments.grades)
    except (OSError, GradingError) as exc:
        parser.error(str(exc))
    write_frame(rescored, arguments.output)
    write_records(rescored_records, companion(arguments.output))
    if run is not None:
        write_run(run, arguments.output)
    for line in changed:
        print(line)
    counted = zip(rescored.loc[rescored["counts"], "student"], rescored.loc[rescored["counts"], "lab"])
    for override in without_submission(course, counted):
        print(said_without_submission(override))
    print(f"wrote {arguments.output}: {len(rescored)} rows scored by {arguments.course}, {len(changed)} changed")
    return 0


def _check_entries(course: Course, frame: pd.DataFrame, grades: Path) -> None:
    """The course file's per-student entries name students of the class and files of theirs (``course_roster``)."""
    roster = load_roster(course.roster_path) if course.roster_path is not None else None
    check_students(course, roster, frame["student"], f"the grades in {grades}")
    rows = {file: (student, lab or None) for file, student, lab in zip(frame["file"], frame["student"], frame["lab"])}
    if problems := decision_problems(course, rows):
        raise CourseFileError("; ".join(problems))
