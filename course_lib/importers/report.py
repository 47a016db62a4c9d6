"""What an import returns and reports: the entries, what was left out or changed, and the error that stops it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from ..errors import CourseError
from ..models import SessionEntry

Format = Literal["course", "pi", "claude-code", "codex"]
FORMATS: tuple[Format, ...] = ("course", "pi", "claude-code", "codex")


class SessionImportError(CourseError, ValueError):
    """A file cannot be imported; ``line`` names the first line that stopped it (when one did)."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class Skip(NamedTuple):
    """A line (or one JSON object of it) that was not carried over, and why."""

    line: int
    reason: str


class Note(NamedTuple):
    """A line carried over with a change (an image placeholder, a dropped thinking block),
    or an entry the importer had to add (an error result for a call with none), and why."""

    line: int
    text: str


@dataclass(frozen=True)
class ImportedSession:
    """One agent log as the course's session entries for its active path.

    ``entries`` is a root → leaf chain (each ``parent_id`` is the previous id) that
    ``group_interactions`` and ``build_context`` accept as it is. Every JSON object
    of the file is accounted for exactly once: carried into an entry (``entry_lines``
    maps each entry id to its source line), listed in ``skipped`` with a reason, or
    a structural line (``structural``: a header, read for its settings only).
    """

    format: Format
    source: Path
    entries: tuple[SessionEntry, ...]
    skipped: tuple[Skip, ...]
    notes: tuple[Note, ...] = ()
    structural: tuple[int, ...] = ()
    entry_lines: Mapping[str, int] = field(default_factory=dict)
