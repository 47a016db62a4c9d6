"""``course-grade merge A.csv B.csv … -o grades.csv``: the shards' CSVs, joined as one unsharded run writes it.

Also a term's CSV and its regrades (``--only``), a later CSV's row replacing
an earlier one's; the records beside them (grades.jsonl) are joined too, for
the report and the pages.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from ..errors import GradingError
from ..judging.verdicts import GradeResult
from ..results.grades_csv import NOTES_SEPARATOR, write_frame
from ..results.records import companion, write_records
from ..results.run_file import write_run
from ..results.term_merge import Joined, join, joined_records
from ..similarity.similarity_notes import renamed
from .refusals import writable


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade merge",
        description="Join the CSVs of every shard of one run (--shard I/N) into one, "
        "identical to an unsharded run's; or a term's CSV and its regrades (--only), a later CSV's row "
        "replacing an earlier one's. Duplicates are decided across them all; grades.jsonl is joined too.",
    )
    parser.add_argument(
        "shards",
        nargs="+",
        type=Path,
        help="one CSV per shard, all N of them; or the term's CSV, then its regrades (a later row replaces an earlier)",
    )
    parser.add_argument("-o", "--output", type=Path, default=Path("grades.csv"))
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    writable(parser, arguments.output, "-o")
    try:  # everything read before anything is written: the output may be one of the inputs
        joined = join(arguments.shards)
        results, missing = joined_records(joined)
    except GradingError as exc:
        parser.error(str(exc))
    if joined.moved:  # a file now someone else's: the similarity notes naming it say who (similarity_notes.renamed)
        joined, results = _renamed(joined, results)
    write_frame(joined.frame, arguments.output)
    for line in joined.messages():
        print(line, file=sys.stderr)
    print(joined.summary(arguments.output))
    if joined.run is not None:  # what a later merge checks its regrades by (results.run_file)
        write_run(joined.run, arguments.output)
    if results is not None:  # the results too, for the report and the pages
        print(f"wrote {write_records(results, companion(arguments.output))}")
    else:
        print(
            f"warning: {missing}: {companion(arguments.output)} not written (feedback and report need it)",
            file=sys.stderr,
        )
    return 0


def _renamed(joined: Joined, results: list[GradeResult] | None) -> tuple[Joined, list[GradeResult] | None]:
    """The joined rows and records with the notes naming a moved file's student (``Joined.moved``) said again."""
    frame = joined.frame.copy()
    frame["notes"] = [
        NOTES_SEPARATOR.join(renamed(note, joined.moved) for note in cell.split(NOTES_SEPARATOR)) if cell else cell
        for cell in frame["notes"]
    ]
    if results is not None:
        results = [
            result.model_copy(update={"notes": tuple(renamed(note, joined.moved) for note in result.notes)})
            for result in results
        ]
    return replace(joined, frame=frame), results
