"""``python -m course_lib.teaching.glossary [--language zh]``: a glossary page on stdout (``make glossary`` writes both)."""

from __future__ import annotations

import argparse
import sys

from ..i18n import parse_language
from .page import markdown


def parser() -> argparse.ArgumentParser:
    """The command's options, apart from running it (the glossary's test parses its own command with it)."""
    built = argparse.ArgumentParser(prog="python -m course_lib.teaching.glossary", description=__doc__)
    built.add_argument(
        "--language",
        type=lambda value: parse_language(value, "--language"),
        default="en",
        help="en (docs/glossary.md, the default) or zh (docs/zh/glossary.md)",
    )
    return built


def main(argv: list[str] | None = None) -> int:
    language = parser().parse_args(argv).language
    sys.stdout.buffer.write(markdown(language).encode("utf-8"))  # UTF-8 whatever the terminal's locale
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
