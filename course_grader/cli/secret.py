"""``course-grade secret [FILE]``: a new term's secret, what every hidden case of the term is drawn from (issue 43).

A seed a person picks is found from one feedback page (``judging/secret.py``),
so the course file's ``seed`` is a secret this writes: into ``FILE``, readable
by you alone, which the course file then names (``seed = "term.secret"``), or
on stdout for ``seed = "…"``. An existing file is never replaced: the term's
grades were drawn from the secret in it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..judging.secret import new_secret


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course-grade secret",
        description="Write a new secret for the course file's seed (the term's hidden cases).",
        epilog='Without FILE the secret is printed: seed = "<it>" in the course file. With FILE (e.g. term.secret, '
        'mode 0600) the course file names it: seed = "term.secret", relative to the course file.',
    )
    parser.add_argument("file", type=Path, nargs="?", metavar="FILE", help="where to write it (never replaced)")
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    arguments = parser.parse_args(argv)
    secret = new_secret()
    if arguments.file is None:
        print(secret)
        return 0
    try:
        handle = os.open(arguments.file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        parser.error(f"{arguments.file} exists: a term's secret is never replaced (its grades were drawn from it)")
    except OSError as exc:
        parser.error(f"{arguments.file}: cannot be written ({exc.strerror or exc})")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(secret + "\n")
    print(
        f'wrote a new secret to {arguments.file} (yours only): put seed = "{arguments.file.name}" in the course file '
        "beside it, keep the file from learners, and keep it for the term's regrades"
    )
    return 0
