"""When a submission came, as every machine writes it, and how many days late that is.

The time is the course's times file's when it has one (``submitted_from``
says which form: ``manifest``, ``moodle-worksheet``, ``canvas-submissions``),
else the file's modification time (``modified``); the CSV shows
it in UTC to the microsecond (``iso``), so every machine writes the same text,
and the late policy counts started days past the deadline (``days_late``).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from course_lib.teaching.i18n import message

from ..intake.discovery import Found
from ..intake.lab_names import in_sentence, the_assignment
from ..judging.verdicts import GradeResult
from ..notes import NOTE
from .course import Course


def when_submitted(result: GradeResult, entry: Found, course: Course) -> GradeResult:
    """When the file came (the course's times file says, else its modification time, to the microsecond as the
    CSV), and to which lab's assignment; a note when that is another lab's, or when the time is not its own."""
    handed = handed_in(result, course)
    notes = tuple(note for note in (handed[1], course.caveats.get(result.submission, "")) if note)
    update: dict[str, object] = {"handed_in": handed[0], "notes": (*notes, *result.notes)}
    given = course.submitted_at.get(result.submission)
    if given is not None:
        source = course.submitted_from.get(result.submission, "manifest")
        return result.model_copy(update={**update, "submitted": iso(given), "submitted_from": source})
    if not entry.modified:
        return result.model_copy(update=update)
    moment = datetime.fromtimestamp(0, UTC) + timedelta(microseconds=entry.modified // 1000)
    return result.model_copy(update={**update, "submitted": iso(moment), "submitted_from": "modified"})


RULES = {
    "stricter": NOTE(message("late or not by the stricter of the two deadlines")),
    "assignment": NOTE(message("late or not by {assignment}'s deadline")),
    "lab": NOTE(message("late or not by {lab}'s own deadline")),
}
"""What the note says of a file handed in to another lab's assignment, by ``[late] wrong_assignment``."""


def handed_in(result: GradeResult, course: Course) -> tuple[str, str]:
    """The lab of the assignment ``result``'s file was handed in to (empty: unknown), and a note if it is another's."""
    assigned = course.assignment_of(result.submission)
    if assigned is None:
        return "", ""
    lab, how = assigned
    if result.lab is None or lab == result.lab:
        return lab, ""
    rule = RULES[course.settings.late.wrong_assignment]
    fields = {"assignment": in_sentence(lab), "lab": in_sentence(result.lab)}
    said = rule(**{name: fields[name] for name in rule.pattern.groupindex})
    return lab, WRONG_ASSIGNMENT(assignment=the_assignment(lab), how=how, lab=in_sentence(result.lab), rule=said)


WRONG_ASSIGNMENT = NOTE(
    message(
        "handed in to {assignment} ({how}), but the notebook is {lab}: graded as {lab}, {rule} ([late] wrong_assignment)"
    )
)


def days_late(submitted: datetime, deadline: datetime, grace_minutes: float = 0) -> int:
    """Started days past the deadline (and its grace): 1 minute late is one day late, as most syllabi count it."""
    seconds = (submitted - deadline).total_seconds() - 60 * grace_minutes
    return max(0, math.ceil(seconds / 86400)) if seconds > 0 else 0


def iso(when: datetime) -> str:
    """A time as the CSV shows it: UTC, to the microsecond (so every machine writes the same text)."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")
