"""The course file's times files, read: each recognised by its header, never by its name.

``[late] manifest`` (every lab) and ``[labs."11.3"] manifest`` (one lab: one
LMS assignment per lab) each name a file in one of three forms, told apart
by how they begin:

- Canvas's submissions JSON (``[`` or ``while(1);``): ``canvas_submissions``;
- Moodle's grading worksheet (a header with ``Identifier`` and
  ``Last modified (submission)``): ``moodle_worksheet``, read in
  ``[late] timezone``;
- the pack's manifest (``file,submitted_at``): ``manifest``, as before.

Anything else is refused, naming the columns it has and the forms read.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from zoneinfo import ZoneInfo

from ..files import read_instructor_text
from .canvas_submissions import is_canvas_json, read_submissions
from .course_settings import CourseSettings
from .lms_times import Form, SubmissionTimesError, TimeRow, TimesFile, where
from .manifest import manifest_rows
from .moodle_worksheet import IDENTIFIER, MODIFIED, is_worksheet, read_worksheet

FORMS = (
    "the pack's manifest (file,submitted_at)",
    f"Moodle's grading worksheet ({IDENTIFIER}, Full name, …, {MODIFIED}, …)",
    "Canvas's submissions JSON (a list of objects with user_id and submitted_at)",
)


def named_times(settings: CourseSettings) -> list[tuple[str, str, str | None]]:
    """Every times file the course file names, as (key, file as written, lab): ``[late]``'s first, then by lab."""
    if settings.late.submitted != "manifest":
        return []
    named: list[tuple[str, str | None, str | None]] = [("late.manifest", settings.late.manifest, None)]
    named += [(f"labs.{lab}.manifest", lab_settings.manifest, lab) for lab, lab_settings in settings.labs.items()]
    return [(key, file, lab) for key, file, lab in named if file]


def read_times(path: Path, key: str, lab: str | None, zone: ZoneInfo | None) -> TimesFile:
    """The times file at ``path`` (named by the course file's ``key``), read in the form its first line shows."""
    resave = "download it again from the LMS, or save it as CSV UTF-8"
    text = read_instructor_text(path, f"{path} ({key})", SubmissionTimesError, resave)
    form: Form
    if is_canvas_json(text):
        form = "canvas-submissions"
        rows = read_submissions(text, where(form, path, key))
    else:
        header = [cell.strip() for cell in next(csv.reader(io.StringIO(text, newline="")), [])]
        if "file" in header and "submitted_at" in header:
            form = "manifest"
            column = header.index("file") + 1
            rows = [
                TimeRow(key=file, when=when, line=line, column=column, who=repr(file))
                for line, file, when in manifest_rows(path)
            ]
        elif is_worksheet(header):
            form = "moodle-worksheet"
            rows = read_worksheet(text, where(form, path, key), zone)
        else:
            shown = ", ".join(header[:8]) + (", …" if len(header) > 8 else "") if header else "nothing"
            raise SubmissionTimesError(
                f"{path} ({key}), line 1: not a file of submission times: it begins with {shown}; "
                f"the forms read are {'; '.join(FORMS)}"
            )
    return TimesFile(path=path, form=form, key=key, lab=lab, rows=tuple(rows))
