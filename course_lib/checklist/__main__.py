"""``python -m course_lib.checklist [--lab 11.3]``: the checklist from a shell (exit 0 only if all pass)."""

from __future__ import annotations

import argparse

from ..teaching.i18n import MESSAGES
from .runner import LABS, run


def parser() -> argparse.ArgumentParser:
    """The command's options, apart from running it (the glossary's test parses its commands with it).

    The help speaks the reader's language (``COURSE_LANG``, the locale), as the table does.
    """
    description = MESSAGES("Run the checklist from a shell: every check, or one lab's (exit 0 only if all pass).")
    built = argparse.ArgumentParser(prog="python -m course_lib.checklist", description=description)
    built.add_argument("--lab", choices=LABS, help=MESSAGES("run only this lab's checks"))
    return built


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    report = run(lab=arguments.lab)
    print(report)
    return 0 if report.all_passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
