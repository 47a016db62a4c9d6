"""The grader's own exception types: each says which file or lab could not be graded, and why."""

from __future__ import annotations

from course_lib.errors import CourseError


class GradingError(CourseError):
    """The grader could not grade a submission (not the learner's code failing a check)."""


class NotALabNotebook(GradingError):
    """The file is not a readable notebook of one of the chapter's labs."""


class TemplateNotFound(GradingError):
    """The course's copy of the lab (for its setup cells) is not where the grader looked."""


class NotARegularFile(NotALabNotebook):
    """A symbolic link, FIFO, device, socket or folder where a notebook file was expected: never opened or followed."""


class SubmissionTooLarge(NotALabNotebook):
    """A submitted file larger than the grader reads (``notebook.MAX_NOTEBOOK_BYTES``)."""


class SandboxError(GradingError, RuntimeError):
    """The grading sandbox could not be set up: bubblewrap is missing, or the relay to the kernel did not start."""
