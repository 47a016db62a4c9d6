"""The live lab server's own exception types: a refused request says its HTTP status and why (issue 46)."""

from __future__ import annotations

from course_lib.errors import CourseError


class LiveError(CourseError):
    """The live lab server could not do what was asked (a bad option, a database it cannot use)."""


class Refusal(LiveError):
    """A request refused with ``status`` and a reason the client is shown; it changed nothing."""

    def __init__(self, status: int, reason: str, retry_after: int | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.retry_after = retry_after
        """Seconds to wait before the same learner may post again (a 429)."""


class SessionFileError(LiveError):
    """The session's database cannot be opened or holds something that is not a live lab's session."""
