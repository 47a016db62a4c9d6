"""The exception types of the course, each a ``ValueError`` that carries the ids involved.

R2 asks every error to name the entry id (when one was readable) and the field
path, so callers can find the first bad fact in a long history.
"""

from __future__ import annotations

QUOTE_LIMIT = 60
"""How much of a piece of input a message may show: a 1 MB value still gives a short error."""


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (marked with …), printable even when it holds a
    lone surrogate, so an error about bad input can always be shown (R2)."""
    if len(text) > limit:
        text = text[:limit] + "…"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for a message, cut like ``shorten``: ``'u1'``, ``'xxxx…'``, ``12``."""
    if isinstance(value, str):
        return repr(value[:limit] + "…" if len(value) > limit else value)
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"  # repr() may refuse it
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


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


class SessionLockedError(SessionStoreError):
    """A second writer asked for a session file another writer holds (R8, lifecycle benefit 3).

    ``session`` is the name the second writer used; the lock belongs to the file itself,
    so a symlink or a second hard link to a held file is refused too.
    """

    def __init__(self, message: str, *, session: str) -> None:
        super().__init__(message)
        self.session = session


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


class NotAvailableWhileGrading(RuntimeError):
    """What a graded submission gets when it calls the course's own answer to its lab.

    While a lab is graded, the sandbox's copy of ``course_lib`` has the lab's
    reference replaced by stubs (``course_lib.lab_registry`` lists them); calling
    one raises this. It is deliberately not a ``ValueError``: routing a bad input
    to a stub must never look like a correct rejection.
    """
    def __init__(self, name: str, lab: str) -> None:
        super().__init__(
            f"{name} is not available while grading Lab {lab}: the grader runs your own code, so write it yourself"
        )
        self.name = name
        self.lab = lab
