"""The exception types of the course: ``CourseError`` and the errors the chapter's functions raise.

Everything the course raises (here, in the lifecycle, the importers, the checklist
and the grader) derives from ``CourseError``, so a caller can tell the course's
refusals from a bug. What the chapter calls an error (bad input, a refused append,
an impossible compaction, a bad option) is also a ``ValueError``, as its API says;
each carries the ids involved. R2 asks every error to name the entry id (when one
was readable) and the field path, so callers can find the first bad fact in a long
history.
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


class CourseError(Exception):
    """The base of every exception the course pack defines (``tests/lib/test_exceptions.py`` holds them to it)."""


class SessionEntryError(CourseError, ValueError):
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


class SessionStoreError(CourseError, ValueError):
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


class SessionPathError(CourseError, ValueError):
    """``path_to`` could not walk from the leaf to a root (R10)."""

    def __init__(self, message: str, *, entry_id: str | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id


class InteractionError(CourseError, ValueError):
    """Messages cannot be split into interaction groups (R11, R12)."""

    def __init__(self, message: str, *, entry_ids: tuple[str, ...] = (), call_id: str | None = None) -> None:
        super().__init__(message)
        self.entry_ids = entry_ids
        self.call_id = call_id


class CompactionError(CourseError, ValueError):
    """A compaction entry cannot be created or resumed from (R18, R25–R27)."""

    def __init__(self, message: str, *, entry_id: str | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id


class NotAvailableWhileGrading(CourseError, RuntimeError):
    """What a graded submission gets when it calls the course's own answer to its lab.

    While a lab is graded, the sandbox's copy of ``course_lib`` has the lab's
    reference replaced by stubs (``course_lib.teaching.lab_registry`` lists them); calling
    one raises this. It is deliberately not a ``ValueError``: routing a bad input
    to a stub must never look like a correct rejection.
    """

    def __init__(self, name: str, lab: str) -> None:
        super().__init__(
            f"{name} is not available while grading Lab {lab}: the grader runs your own code, so write it yourself"
        )
        self.name = name
        self.lab = lab


class OptionError(CourseError, ValueError):
    """An option outside what a function accepts: a budget number that is not finite and >= 0 (R15),
    a lab, format or estimator the course does not know, a page size below one."""


class EstimateError(CourseError, ValueError):
    """``estimate_tokens`` returned something that is not a token count, a finite number >= 0 (R15)."""


class NotFiniteJsonError(CourseError, ValueError):
    """JSON text holds ``NaN``, ``Infinity`` or ``-Infinity``, which R1 refuses (raised by a decoder's
    ``parse_constant``; the caller names the line or field)."""

    def __init__(self, constant: str) -> None:
        super().__init__(f"{constant} is not a finite JSON number")
        self.constant = constant
