"""``course-grade dry-run autograder.zip NOTEBOOK…``: a Gradescope autograder tried on this machine (packaging/dry_run.py).

As root, as Gradescope runs it: the zip's own ``setup.sh`` and ``run_autograder``
in a sandbox that sees only the bundle, so the checkouts on this machine are out
of reach, and the table and ``results.json`` that Gradescope would get.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..files import write_atomically
from ..packaging.dry_run import DryRunFailed, dry_run
from .refusals import writable


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade dry-run",
        description="Run a Gradescope autograder zip (course-grade bundle) on this machine, as root, as Gradescope "
        "does: its setup.sh, then its run_autograder on the uploads, in a bubblewrap sandbox that sees only the "
        "bundle, a fresh /autograder and this Python (read-only), so no other checkout on the machine is in reach.",
    )
    parser.add_argument("bundle", type=Path, help="the autograder zip, as uploaded to Gradescope")
    parser.add_argument("uploads", nargs="+", type=Path, help="what a learner uploads: their notebook (and any other)")
    parser.add_argument(
        "--results", type=Path, default=Path("results.json"), help="where results.json is copied (default: here)"
    )
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    writable(parser, arguments.results, "--results")
    try:
        run = dry_run(arguments.bundle, arguments.uploads)
    except (DryRunFailed, OSError) as exc:
        print(f"course-grade dry-run: {exc}", file=sys.stderr)
        return 2
    print(run.output.rstrip())
    write_atomically(arguments.results, json.dumps(run.results, indent=2))
    tests = run.results.get("tests", [])
    maximum = sum(test.get("max_score", 0) for test in tests)
    print(f"wrote {arguments.results}: score {run.results.get('score', 0):g} of {maximum:g} ({len(tests)} tests)")
    return 0
