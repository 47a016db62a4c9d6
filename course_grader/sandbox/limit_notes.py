"""The notes a sandbox's limits leave on a row: English for the record, said on a page in its language (issue 45).

Each is a note template (``notes.NOTE``): the grades CSV keeps the English,
and a Chinese page reads it back and says it from the grader's catalog.
"""

from __future__ import annotations

from course_lib.teaching.i18n import message

from ..notes import NOTE

MEMORY_REACHED = NOTE(
    message("the sandbox's memory limit of {megabytes} MB was reached (whole sandbox, all processes)")
)
PER_PROCESS = NOTE(message("limits: per-process only (no cgroup: {reason})"))
CPU_NOT_SHARED = NOTE(message("limits: CPU not shared between sandboxes (no CPU controller: {reason})"))


def memory_note(memory_mb: int) -> str:
    """The note of a sandbox the cgroup's memory limit stopped (one wording, used by the grader and its tests)."""
    return MEMORY_REACHED(megabytes=memory_mb)


def fallback_note(reason: str) -> str:
    """The note of a sandbox without a cgroup of its own: each process is limited alone."""
    return PER_PROCESS(reason=reason)


def cpu_note(reason: str) -> str:
    """The note of a sandbox whose cgroup could not join the CPU controller (memory and processes still hold)."""
    return CPU_NOT_SHARED(reason=reason)
