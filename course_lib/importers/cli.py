"""``course-session``: the course's projection for a real agent log, or the log as the course's JSONL.

    course-session show FILE [--format auto|course|pi|claude-code|codex]
                             [--max-tokens N --reserved-output N --safety-margin N --estimator chars|cjk|bpe]
    course-session convert FILE -o OUT.jsonl [--format ...]

``show`` prints a header (format, entries, skipped lines, costs, the reason)
and the rows around the keep/drop boundary plus the newest rows, with counts
for the rows in between, so a 10,000-entry log still fits a terminal. Exit
status: 0 done, 2 a usage error or a file that cannot be imported (one line
naming the file and line).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import CourseError, SessionEntryError, SessionPathError, SessionStoreError
from ..estimators import CJK_TOKENS_PER_CHAR, estimate_tokens_chars, estimate_tokens_cjk
from ..store import JsonlSessionStore
from ..teaching.i18n import MESSAGES
from . import FORMATS, ImportedSession, SessionImportError, load_session
from .bpe import TokenizerDataError, estimate_tokens_bpe

DEFAULTS = {"max_tokens": 200_000, "reserved_output": 16_384, "safety_margin": 2_000}
ESTIMATORS = {"chars": estimate_tokens_chars, "cjk": estimate_tokens_cjk, "bpe": estimate_tokens_bpe}
SHOWN = 3  # rows shown on each side of the boundary, and newest rows


class UsageError(CourseError):
    """A bad argument or a file that cannot be used: one line on stderr, exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "show":
            return _show(arguments)
        return _convert(arguments)
    except UsageError as exc:
        print(f"course-session: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    """The command line, its help in the reader's language (``COURSE_LANG``, the locale)."""
    parser = argparse.ArgumentParser(
        prog="course-session", description=MESSAGES("Real agent logs in the course's terms.")
    )
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show", help=MESSAGES("print the projection of a log at a budget"))
    convert = commands.add_parser("convert", help=MESSAGES("write a log's active path as the course's JSONL"))
    for command in (show, convert):
        command.add_argument("file", type=Path, help=MESSAGES("a pi, Claude Code, Codex or course JSONL log"))
        command.add_argument(
            "--format", default="auto", choices=("auto", *FORMATS), help=MESSAGES("the log's format (default auto)")
        )
    for name, default in DEFAULTS.items():
        flag = "--" + name.replace("_", "-")
        show.add_argument(
            flag,
            type=_count,
            default=default,
            metavar="N",
            help=MESSAGES("(default {default})").format(default=default),
        )
    estimator_help = MESSAGES(
        "chars: ceil(characters / 4); cjk: the same, but a Chinese, Japanese or Korean character counts "
        "{cjk} (not 1/4); bpe: cl100k_base tokens (default chars)"
    )
    show.add_argument(
        "--estimator",
        choices=tuple(ESTIMATORS),
        default="chars",
        help=estimator_help.format(cjk=format(float(CJK_TOKENS_PER_CHAR), "g")),
    )
    convert.add_argument(
        "-o", "--output", type=Path, required=True, help=MESSAGES("the new course JSONL file (never overwritten)")
    )
    return parser


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            MESSAGES("expected a whole number of tokens, got {text}").format(text=repr(text))
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(MESSAGES("expected a number >= 0, got {value}").format(value=value))
    return value


def _load(arguments: argparse.Namespace) -> ImportedSession:
    if not arguments.file.is_file():
        raise UsageError(MESSAGES("{file}: no such file").format(file=arguments.file))
    try:
        return load_session(arguments.file, format=arguments.format)
    except SessionImportError as exc:
        raise UsageError(f"{arguments.file}: {exc}") from None
    except (SessionEntryError, SessionStoreError, SessionPathError) as exc:
        raise UsageError(f"{arguments.file}: {exc}") from None


def _show(arguments: argparse.Namespace) -> int:
    from ..explorer.table import project  # pandas and the widgets load only for ``show``

    session = _load(arguments)
    try:
        projection = project(
            session.entries,
            max_tokens=arguments.max_tokens,
            reserved_output=arguments.reserved_output,
            safety_margin=arguments.safety_margin,
            estimate_tokens=ESTIMATORS[arguments.estimator],
        )
    except TokenizerDataError as exc:
        raise UsageError(str(exc)) from None
    tokens = projection.result.tokens
    print(f"{session.source}")
    print(
        MESSAGES(
            "format {format} · {entries} entries on the active path · {skipped} skipped lines · {notes} notes · "
            "estimator {estimator}"
        ).format(
            format=session.format,
            entries=len(session.entries),
            skipped=len(session.skipped),
            notes=len(session.notes),
            estimator=arguments.estimator,
        )
    )
    print(
        MESSAGES(
            "system {system} · summary {summary} · available for messages {available} · total {total} of {max_tokens}"
        ).format(
            system=f"{tokens.system:g}",
            summary=f"{projection.breakdown['summary']:g}",
            available=f"{tokens.available_for_messages:g}",
            total=f"{tokens.total:g}",
            max_tokens=f"{tokens.max_tokens:g}",
        )
    )
    print(MESSAGES("reason {reason}").format(reason=projection.reason))
    print()
    _print_rows(projection.table)
    return 0


def _print_rows(table: Any) -> None:  # a pandas DataFrame (pandas ships no types)
    """The rows around the first kept row and the newest rows; elided runs as counts by status."""
    from ..explorer.render import label

    rows = list(table.itertuples(index=False))
    statuses = [row.status for row in rows]
    first_kept = statuses.index("kept") if "kept" in statuses else len(rows)
    shown = set(range(max(0, first_kept - SHOWN), min(len(rows), first_kept + SHOWN)))
    shown |= set(range(max(0, len(rows) - SHOWN), len(rows)))
    print(
        f"{_padded(label('id'), 28)} {_padded(label('kind'), 18)} {_padded(label('group'), 5, right=True)} "
        f"{_padded(label('cost'), 8, right=True)}  {label('status')}"
    )
    hidden: list[str] = []
    for position, row in enumerate(rows):
        if position not in shown:
            hidden.append(row.status)
            continue
        _print_hidden(hidden)
        group = "" if row.group is None or str(row.group) == "<NA>" else str(row.group)
        cost = "" if row.cost is None or str(row.cost) == "<NA>" else f"{row.cost:g}"
        print(f"{str(row.id)[:28]:<28} {row.kind:<18} {group:>5} {cost:>8}  {label(row.status)}")
    _print_hidden(hidden)


def _padded(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded to ``width`` terminal columns (a Chinese character takes two)."""
    room = " " * max(0, width - sum(1 if character.isascii() else 2 for character in text))
    return room + text if right else text + room


def _print_hidden(hidden: list[str]) -> None:
    from ..explorer.render import label

    if hidden:
        counts = MESSAGES(", ").join(
            MESSAGES("{count} {status}").format(count=n, status=label(status)) for status, n in Counter(hidden).items()
        )
        print(MESSAGES("… {count} more entries ({counts}) …").format(count=len(hidden), counts=counts))
        hidden.clear()


def _convert(arguments: argparse.Namespace) -> int:
    if arguments.output.exists():
        raise UsageError(
            MESSAGES("{output} already exists; convert never overwrites a file").format(output=arguments.output)
        )
    session = _load(arguments)
    with JsonlSessionStore(arguments.output) as store:
        for entry in session.entries:
            try:
                store.append(entry)
            except (SessionEntryError, SessionStoreError) as exc:
                raise UsageError(f"{arguments.file}: line {session.entry_lines.get(entry.id)}: {exc}") from None
    print(
        MESSAGES("wrote {entries} entries ({format}, {skipped} skipped lines) to {output}").format(
            entries=len(session.entries), format=session.format, skipped=len(session.skipped), output=arguments.output
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
