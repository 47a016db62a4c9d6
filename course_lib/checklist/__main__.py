"""``python -m course_lib.checklist [--lab 11.3]``: the checklist from a shell (exit 0 only if all pass)."""

from __future__ import annotations

import argparse

from .runner import LABS, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_lib.checklist", description=__doc__)
    parser.add_argument("--lab", choices=LABS, help="run only this lab's checks")
    arguments = parser.parse_args(argv)
    report = run(lab=arguments.lab)
    print(report)
    return 0 if report.all_passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
