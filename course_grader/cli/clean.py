"""``course-grade clean``: remove what a stopped ``course-grade`` left (its cgroups, its temporary folders; issue 43).

A run killed with SIGKILL cleans nothing; every grading run removes such
leftovers before it starts, and this verb does only that (``batch/leftovers.py``).
What belongs to a run still going on the machine is left alone.
"""

from __future__ import annotations

import argparse

from ..batch.leftovers import clean_leftovers


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="course-grade clean",
        description="Remove the cgroups and temporary folders a stopped course-grade left (a run still going keeps "
        "its own).",
    )
    parser.parse_args(argv)
    removed = clean_leftovers()
    for path in removed:
        print(f"removed {path}")
    print(f"removed {len(removed)} leftovers of a stopped course-grade" if removed else "nothing was left behind")
    return 0
