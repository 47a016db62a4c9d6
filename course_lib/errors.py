"""The exception types of the course, each a ``ValueError`` that carries the ids involved.

R2 asks every error to name the entry id (when one was readable) and the field
path, so callers can find the first bad fact in a long history.
"""

from __future__ import annotations


class SessionEntryError(ValueError):
    """An entry (or one line of a JSONL file) does not have the chapter's shape (R1, R2)."""

    def __init__(
        self,
        message: str,
        *,
        entry_id: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.entry_id = entry_id
        self.path = path
        self.line = line


class SessionStoreError(ValueError):
    """A store refused an append: duplicate id, unknown parent, or a store that failed closed (R7, R8)."""

    def __init__(self, message: str, *, entry_id: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id
        self.line = line


class SessionPathError(ValueError):
    """``path_to`` could not walk from the leaf to a root (R10)."""

    def __init__(self, message: str, *, entry_id: str | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id


class InteractionError(ValueError):
    """Messages cannot be split into interaction groups (R11, R12)."""

    def __init__(self, message: str, *, entry_ids: tuple[str, ...] = (), call_id: str | None = None) -> None:
        super().__init__(message)
        self.entry_ids = entry_ids
        self.call_id = call_id


class CompactionError(ValueError):
    """A compaction entry cannot be created or resumed from (R18, R25–R27)."""

    def __init__(self, message: str, *, entry_id: str | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id
