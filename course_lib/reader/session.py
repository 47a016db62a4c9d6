"""A JSONL session opened for reading, fast: what the explorer, the importers and a resume on a long session use (R7–R10).

The plain ``JsonlSessionStore`` is the chapter's store: it parses every line and keeps
the models. ``SessionReader`` keeps the same promises for the course's own parser, and
only reads: the same entries, warnings and errors (both use the core's line parser and
tree check), copies that nobody else holds (R3, R7), and ``path_to`` by R10. What it adds
is speed on a long session: lines kept as bytes and validated in bulk (``reader.lines``),
a validated index that spares a reopen (``reader.index``), entries built only when read
(``reader.entries.StoredEntries``), and ``resume_path``, the part of a path that
``build_context`` reads when it resumes from the latest compaction.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

from ..jsonl import ReadWarning, SessionReadResult
from ..paths import walk_path
from .entries import StoredEntries
from .lines import KeptLine, hand_out_one
from .read import read_file, read_lines


class SessionReader:
    """A session file's committed entries, read once, handed out as copies built when read (R7–R10).

    Opening needs no lock and never writes the session (only its index, in the cache);
    appending is the store's (``JsonlSessionStore``).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.warnings: tuple[ReadWarning, ...] = ()
        self._lines: list[KeptLine] = []

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SessionReader:
        """Read the committed entries; an unterminated tail is a warning, a bad line an error naming it (R8)."""
        reader = cls(Path(path))
        if reader.path.exists():  # a missing file is an empty session, as the store reads it
            committed = read_file(reader.path)
            reader._lines, reader.warnings = committed.lines, committed.warnings
        return reader

    def entries(self) -> StoredEntries:
        """Every entry, each a copy nobody else holds, built when it is first read (R7)."""
        return StoredEntries(list(self._lines))

    def path_to(self, leaf_id: str) -> StoredEntries:
        """Root → leaf copies (R10), as ``entries()``: only the chain's entries, each built when read."""
        return StoredEntries(self._chain(leaf_id))

    def resume_path(self, leaf_id: str) -> StoredEntries:
        """The part of ``path_to(leaf_id)`` that ``build_context`` reads to resume from the latest compaction.

        With a compaction, ``build_context`` replays every system message on the path (R16)
        and takes its candidates from the compaction's ``firstKeptEntryId`` onward (R18): so
        the system messages before that entry plus everything from it to the leaf give
        exactly the result the whole path gives, and on a long session only those entries
        are built. Wherever that would not be exactly equivalent (no compaction, or a first
        kept entry that is not on the path before the latest compaction, which
        ``build_context`` refuses naming both), it is the whole path.
        """
        path = self._chain(leaf_id)
        kinds = "".join(line.kind for line in path)
        latest = kinds.rfind("c")
        if latest < 0:
            return StoredEntries(path)
        first_kept = hand_out_one(path[latest]).first_kept_entry_id
        start = next((position for position in range(latest) if path[position].id == first_kept), None)
        if start is None:
            return StoredEntries(path)
        return StoredEntries([line for line in path[:start] if line.kind == "s"] + path[start:])

    def read(self) -> SessionReadResult:
        """What is on disk now: the committed entries (copies) and warnings such as a tail."""
        if not self.path.exists():
            return SessionReadResult(entries=[])
        return read_file(self.path).as_result()

    def _chain(self, leaf_id: str) -> list[KeptLine]:
        """Root → leaf kept lines (R10): ``walk_path`` reads a kept line's id and parent as it reads an entry's."""
        return cast(list[KeptLine], walk_path(cast(list[Any], self._lines), leaf_id))


def recover_jsonl(text: str) -> SessionReadResult:
    """JSONL text read as ``course_lib.recover_jsonl`` reads it (R8), on the fast reader's path."""
    return read_lines(text.encode("utf-8")).as_result()
