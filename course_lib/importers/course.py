"""The course's own JSONL, read by the fast reader (R8): committed entries, an unterminated tail reported.

The leaf is the last entry in the file; entries off its path are reported as
skipped (an abandoned branch). Bad lines raise the readers' errors, which name
the line; they are re-raised as ``SessionImportError`` with that line.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SessionEntryError, SessionStoreError
from ..jsonl import ReadWarning
from ..paths import path_to
from ..reader import SessionReader
from ..teaching.i18n import MESSAGES
from .report import ImportedSession, SessionImportError, Skip
from .tree import OFF_PATH


def load(path: Path) -> ImportedSession:
    try:
        read = SessionReader(path).read()  # the entries just built, not copies of them
    except (SessionEntryError, SessionStoreError) as exc:
        raise SessionImportError(str(exc), line=exc.line) from None
    entries = read.entries
    committed = path.read_bytes().split(b"\n")[:-1]
    lines = [number for number, raw in enumerate(committed, start=1) if raw.strip()]
    skipped = [Skip(w.line, _said(w)) for w in read.warnings]
    on_path = path_to(entries, entries[-1].id) if entries else []
    kept = {entry.id for entry in on_path}
    skipped += [Skip(line, MESSAGES(OFF_PATH)) for line, entry in zip(lines, entries) if entry.id not in kept]
    return ImportedSession(
        format="course",
        source=path,
        entries=tuple(on_path),
        skipped=tuple(sorted(skipped)),
        entry_lines={entry.id: line for line, entry in zip(lines, entries) if entry.id in kept},
    )


def _said(warning: ReadWarning) -> str:
    """A reader's warning in the reader's language (the one kind the store warns of; any other as the store says it)."""
    if warning.code == "unterminated_tail":
        return MESSAGES("line {line} has no newline (an unterminated tail, skipped)").format(line=warning.line)
    return warning.message
