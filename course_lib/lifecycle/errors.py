"""The lifecycle's exception types: each names what was refused, so a caller can act on it.

``SessionLockedError`` lives with the store that raises it and is re-exported here.
"""

from __future__ import annotations

from ..errors import CourseError, SessionLockedError


class CompactionSettingsError(CourseError, ValueError):
    """Settings or numbers that would make the threshold rule meaningless (L1, L2).

    A zero reserve is the classic case: compaction itself is a model call that
    needs window space, so "no reserve" means "no room to summarise".
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class OverflowRecoveryError(CourseError, RuntimeError):
    """Overflow recovery gave up: the attempt cap is spent or nothing is left to compact (L4).

    Raising, instead of compacting once more, is what rules out the
    compact → overflow → compact loop. ``attempts`` is how many compact-and-retry
    cycles ran before the failure.
    """

    def __init__(self, message: str, *, attempts: int, entry_id: str | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.entry_id = entry_id


class ScriptExhaustedError(CourseError, RuntimeError):
    """The scripted model was asked for more replies than its script holds."""


class ReplayError(CourseError, ValueError):
    """A log cannot say which messages a request was sent: not an assistant response, or no
    ``context_budget`` entry before it, or a different number of requests than the model recorded."""


__all__ = [
    "CompactionSettingsError",
    "OverflowRecoveryError",
    "ReplayError",
    "ScriptExhaustedError",
    "SessionLockedError",
]
