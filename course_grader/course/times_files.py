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

A key may name one file, several (``manifest = ["page-1.json", "page-2.json"]``:
the Canvas API answers a large course in pages of 100) or a folder of them
(every file in it, by name): the pages are read as one file of one form, and
a student in two pages is refused as two rows in one file are.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from zoneinfo import ZoneInfo

from ..files import read_instructor_text
from .canvas_submissions import is_canvas_json, read_submissions
from .course_settings import CourseSettings
from .lms_times import FORM_NAMES, Form, SubmissionTimesError, TimeRow, TimesFile, where
from .manifest import manifest_rows
from .moodle_worksheet import IDENTIFIER, MODIFIED, is_worksheet, read_worksheet

FORMS = (
    "the pack's manifest (file,submitted_at)",
    f"Moodle's grading worksheet ({IDENTIFIER}, Full name, …, {MODIFIED}, …)",
    "Canvas's submissions JSON (a list of objects with user_id and submitted_at)",
)


def named_times(settings: CourseSettings) -> list[tuple[str, str | tuple[str, ...], str | None]]:
    """Every times file the course file names, as (key, file(s) as written, lab): ``[late]``'s first, then by lab."""
    if settings.late.submitted != "manifest":
        return []
    named: list[tuple[str, str | tuple[str, ...] | None, str | None]] = [
        ("late.manifest", settings.late.manifest, None)
    ]
    named += [(f"labs.{lab}.manifest", lab_settings.manifest, lab) for lab, lab_settings in settings.labs.items()]
    return [(key, file, lab) for key, file, lab in named if file]


def pages(folder: Path, named: str | tuple[str, ...], key: str) -> list[Path]:
    """The files ``named`` (relative to ``folder``): one, each of several, or every file of a folder, by name."""
    found: list[Path] = []
    for name in (named,) if isinstance(named, str) else named:
        path = folder / name
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not inside:
                raise SubmissionTimesError(f"{path} ({key}): a folder of times files, but it holds none")
            found += inside
        else:
            found.append(path)
    return found


def read_times(paths: list[Path], key: str, lab: str | None, zone: ZoneInfo | None) -> TimesFile:
    """The times file in ``paths`` (its pages, named by the course file's ``key``), each read in the form it shows."""
    read = [_read_page(path, key, zone) for path in paths]
    forms = {page.form for page in read}
    if len(forms) > 1:
        shown = "; ".join(f"{page.path.name}: {FORM_NAMES[page.form]}" for page in read)
        raise SubmissionTimesError(f"{key}: its pages are of different forms ({shown}); one form per key")
    assignments = {page.assignment for page in read if page.assignment}
    if len(assignments) > 1:
        shown = "; ".join(f"{page.path.name}: assignment {page.assignment}" for page in read if page.assignment)
        raise SubmissionTimesError(f"{key}: its pages are of different assignments ({shown}); one assignment per key")
    seen: dict[str, TimeRow] = {}
    for page in read:
        for row in page.rows:
            if row.key in seen:
                first = seen[row.key]
                raise SubmissionTimesError(
                    f"{page.at(row)}: {row.who} has a row already ({first.path}, line {first.line}); "
                    "one row per student: which time is theirs cannot be guessed"
                )
            seen.setdefault(row.key, row)
    return TimesFile(
        path=paths[0],
        form=read[0].form,
        key=key,
        lab=lab,
        rows=tuple(row for page in read for row in page.rows),
        attempts=tuple(attempt for page in read for attempt in page.attempts),
        assignment=next(iter(assignments), ""),
        title=next((page.title for page in read if page.title), ""),
    )


def _read_page(path: Path, key: str, zone: ZoneInfo | None) -> TimesFile:
    """One file of times, read in the form its first line shows (its rows keep ``path`` as their page)."""
    resave = "download it again from the LMS, or save it as CSV UTF-8"
    text = read_instructor_text(path, f"{path} ({key})", SubmissionTimesError, resave)
    form: Form
    if is_canvas_json(text):
        form = "canvas-submissions"
        read = read_submissions(text, where(form, path, key), path)
        return TimesFile(
            path=path,
            form=form,
            key=key,
            rows=tuple(read.rows),
            attempts=tuple(read.attempts),
            assignment=read.assignment,
            title=read.title,
        )
    header = [cell.strip() for cell in next(csv.reader(io.StringIO(text, newline="")), [])]
    if "file" in header and "submitted_at" in header:
        column = header.index("file") + 1
        rows = [
            TimeRow(key=file, when=when, line=line, column=column, who=repr(file), path=path)
            for line, file, when in manifest_rows(path)
        ]
        return TimesFile(path=path, form="manifest", key=key, rows=tuple(rows))
    if is_worksheet(header):
        form = "moodle-worksheet"
        return TimesFile(
            path=path, form=form, key=key, rows=tuple(read_worksheet(text, where(form, path, key), zone, path))
        )
    shown = ", ".join(header[:8]) + (", …" if len(header) > 8 else "") if header else "nothing"
    raise SubmissionTimesError(
        f"{path} ({key}), line 1: not a file of submission times: it begins with {shown}; "
        f"the forms read are {'; '.join(FORMS)}"
    )
