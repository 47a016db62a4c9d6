"""A file of submission times as read: which form it is, and each row's id (or path), time, line and column.

Why one shape for three forms: the pack's manifest (``file,submitted_at``),
Moodle's grading worksheet and Canvas's submissions JSON all say "this
submission came at this time", keyed by a path (the manifest) or by the id
the LMS's download names carry (Moodle's participant id, Canvas's user id).
Read into ``TimeRow``s, they are matched to the files graded the same way
(``times_matching``), and every refusal names the file, the line and the
column the instructor has to look at. A times file may come in pages (the
Canvas API's, ``?page=2``): each row keeps the page it was read from.

What the LMS says beyond one time per student is kept too: Canvas's
``submission_history`` gives each attempt its own time and the attachments it
uploaded (``Attempt``: a download name carries the attachment's id), and a
worksheet's identity columns (``Email address``, ``ID number``) say who a
participant id is (``TimeRow.identity``), so two students with one name are
told apart without a roster written by hand.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from course_lib.teaching.i18n import message

from ..notes import NOTE
from .course_settings import CourseFileError

Form = Literal["manifest", "moodle-worksheet", "canvas-submissions"]
"""A times file's form, and the ``submitted_from`` of a row it gave the time of."""
FORM_NAMES: dict[str, str] = {
    "manifest": message("manifest"),
    "moodle-worksheet": message("Moodle grading worksheet"),
    "canvas-submissions": message("Canvas submissions JSON"),
}
"""How a form is named (English in errors and notes; a message for the score's explanation in the run's language)."""
FORM_NOTES = tuple(NOTE(name) for name in FORM_NAMES.values())
"""The forms' names as a note says them, so a page says a note's form in its language (``notes.py``)."""


class SubmissionTimesError(CourseFileError):
    """A file of submission times is unreadable, of no known form, or has a line that cannot be used as it is."""


class TimeRow(BaseModel):
    """One submission's time in a times file, and where it stands there."""

    model_config = ConfigDict(frozen=True)

    key: str
    """The manifest's ``file``, Moodle's participant id (``1234567``) or Canvas's user id (``48213``)."""
    when: datetime
    """With its offset: the manifest's and Canvas's as written, Moodle's read in the course's ``timezone``."""
    line: int
    column: int
    who: str
    """How an error names the row: ``'alice/lab_11_3.ipynb'``, ``Participant 1234567 (Judy Smith)``, ``user 48213``."""
    path: Path | None = None
    """The page it was read from, when the times file came in several (the ``TimesFile``'s own path otherwise)."""
    name: str = ""
    """The full name the LMS shows (a worksheet's ``Full name``)."""
    identity: tuple[str, ...] = ()
    """What else the LMS says identifies the student: a worksheet's ``ID number``, ``Email address``, ``Username``."""


class Attempt(BaseModel):
    """One attempt of a Canvas submission (``submission_history``, or the submission's own attachments): its time,
    its number and each attachment it uploaded, whose id the download name carries (``login_48213_9981299_…``)."""

    model_config = ConfigDict(frozen=True)

    attachment: str
    user: str
    attempt: int | None
    when: datetime
    line: int
    column: int
    path: Path | None = None


class TimesFile(BaseModel):
    """A times file the course file names, read: for every lab (``lab`` None: ``[late] manifest``) or one."""

    model_config = ConfigDict(frozen=True)

    path: Path
    form: Form
    key: str
    """The course file's key that names it (``late.manifest``, ``labs.11.3.manifest``): what an error says."""
    lab: str | None = None
    rows: tuple[TimeRow, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    """Canvas's attempts with their attachments (``submission_history``): each download's own time."""
    assignment: str = ""
    """The LMS assignment the file is of, where it says (Canvas's ``assignment_id``)."""
    title: str = ""
    """The assignment's name, where the file holds it (Canvas's ``assignment.name``, ``include[]=assignment``)."""

    @property
    def where(self) -> str:
        return where(self.form, self.path, self.key)

    def at(self, row: TimeRow | Attempt) -> str:
        """An error's place: ``Moodle grading worksheet lab_11_3.csv (labs.11.3.manifest), line 4, column 8``."""
        return f"{where(self.form, row.path or self.path, self.key)}, line {row.line}, column {row.column}"


def where(form: Form, path: Path, key: str) -> str:
    """How an error names a times file: its form, its path and the course file's key that names it."""
    return f"{FORM_NAMES[form]} {path} ({key})"


def position(text: str, offset: int) -> tuple[int, int]:
    """The line and column (both from 1) of character ``offset`` of ``text``: where an editor shows it."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def once_each(rows: list[tuple[str, int, int, str]], where: str) -> None:
    """Two rows for one id (``(id, line, column, who)``): refused, naming both lines, since neither may be guessed."""
    seen: dict[str, int] = {}
    for key, line, column, who in rows:
        if key in seen:
            raise SubmissionTimesError(
                f"{where}, line {line}, column {column}: {who} has a row already (line {seen[key]}); "
                "one row per student: which time is theirs cannot be guessed"
            )
        seen[key] = line
