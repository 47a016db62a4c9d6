"""``course-grade rescore grades.csv --course course.toml -o grades.csv``: the scores again, no notebook run.

For an extension, an override, a changed weight or late policy decided after
grading (``results/rescore.py``); the records beside the CSV (grades.jsonl)
are read, and written beside the output when it is another file.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from ..course.course_file import load_course
from ..errors import GradingError
from ..results.grades_csv import read_frame, write_frame
from ..results.records import companion, read_records
from ..results.rescore import rescore
from .refusals import writable


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
        rescored, changed = rescore(frame, results, course)
    except (OSError, GradingError) as exc:
        parser.error(str(exc))
    write_frame(rescored, arguments.output)
    if companion(arguments.output).resolve() != records.resolve():
        shutil.copyfile(records, companion(arguments.output))
    for line in changed:
        print(line)
    print(f"wrote {arguments.output}: {len(rescored)} rows scored by {arguments.course}, {len(changed)} changed")
    return 0
