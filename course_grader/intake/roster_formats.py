"""The roster file in the forms an instructor has it: the pack's own CSV, or the LMS's export as it downloads.

Why: the class list an instructor has is the LMS's, and before, a roster had
to be rewritten by hand as ``id,name,email,aliases`` with every student's
Canvas user id scripted in as an alias, or no Canvas download name matched
(issue 29). Each form is recognised by its header row, never by the file's
name, and read into the same ``Student`` records (docs/grading.md, *The
roster*):

- the pack's own CSV (a column ``id``), as before;
- Canvas's gradebook export (Grades → Export: ``Student, ID, SIS User ID,
  SIS Login ID, Section``, then one column per assignment); its
  ``Points Possible`` row and the Test Student of Student View are no one;
- Moodle's participants download (``First name, Last name``, then the
  site's identity fields: ``ID number``, ``Email address``, …) and its
  grades export (Grades → Export → Plain text file: the same names and
  ``ID number, Institution, Department, Email address``, then the grade
  items), with a comma, semicolon or tab between cells.

Which column becomes the roster id is the one the gradebook export writes
back (``publish.gradebook``): Canvas's ``SIS User ID`` and Moodle's ``ID
number``, so a round trip through the LMS lands on the same rows. The Canvas
user id (``ID``) becomes an alias, since Canvas's download names carry it.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import i18n

from ..errors import GradingError
from ..files import read_instructor_text


class RosterError(GradingError):
    """The roster file is missing, malformed, or gives one name to two students."""


class Student(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    name: str = ""
    email: str = ""
    aliases: tuple[str, ...] = ()
    section: str = ""
    language: str = ""
    """The pack's roster's optional ``language`` column: this student's pages' language, over their section's."""


PACK = "the pack's roster (id,name,email,aliases)"
CANVAS = "Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID, Section, …)"
MOODLE = "Moodle's participants or grades export (First name, Last name, ID number, Email address, …)"
DELIMITERS = (",", ";", "\t")
"""Moodle's grades export lets the instructor choose the separator; a spreadsheet saves with ``;`` in some locales."""
CANVAS_NO_ONE = frozenset({"points possible", "student, test", "test student"})
"""Rows of Canvas's export that are no student: the maximum points, and Student View's Test Student."""

Row = dict[str, str]
Reader = Callable[[Row], Student | None]


def read_students(path: Path) -> tuple[Student, ...]:
    """The students of the roster at ``path``, in file order, whichever form it has; ``RosterError`` says what is wrong."""
    resave = "save it again as CSV UTF-8, or download it again from the LMS"
    text = read_instructor_text(path, f"roster {path}", RosterError, resave)
    first: list[str] | None = None
    for delimiter in DELIMITERS:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
        header = [cell.strip() for cell in rows[0]] if rows else []
        first = header if first is None else first
        reader = _reader(header, path)
        if reader is not None:
            return _students(path, [dict(zip(header, row)) for row in rows[1:] if row], reader)
    found = ", ".join(first or []) or "nothing"
    raise RosterError(
        f"roster {path}: needs a header with at least the column id (id,name,email,aliases), or the header "
        f"of {CANVAS} or of {MOODLE}; its header has {found}"
    )


def _reader(header: Sequence[str], path: Path) -> Reader | None:
    """How rows under ``header`` become students, or ``None`` when it is no form this module reads."""
    columns = set(header)
    if "id" in columns:
        return _pack
    if {"Student", "ID"} <= columns and columns & {"SIS User ID", "SIS Login ID", "Section"}:
        return _canvas
    if {"First name", "Last name"} <= columns and columns & {"ID number", "Email address", "Username"}:
        return _moodle
    return None


def _students(path: Path, rows: list[Row], reader: Reader) -> tuple[Student, ...]:
    students: list[Student] = []
    for number, row in enumerate(rows, start=2):
        cells = {key: (value or "").strip() for key, value in row.items() if key is not None}
        try:
            student = reader(cells)
        except RosterError as exc:
            raise RosterError(f"roster {path}, line {number}: {exc}") from None
        if student is None:
            continue
        if any(s.id == student.id for s in students):
            raise RosterError(f"roster {path}, line {number}: the id {student.id!r} is there twice")
        students.append(student)
    return tuple(students)


def _pack(row: Row) -> Student:
    """``id,name,email,aliases`` (aliases ``;``-separated; an optional ``section`` and ``language``)."""
    if not row.get("id"):
        raise RosterError("no id")
    aliases = tuple(a.strip() for a in row.get("aliases", "").split(";") if a.strip())
    language = row.get("language", "")
    try:
        language = i18n.parse_language(language, "language") if language else ""
    except i18n.UnknownLanguageError:
        raise RosterError(
            f"column language: unknown language {language!r}; the course speaks {', '.join(i18n.LANGUAGES)}"
        ) from None
    return Student(
        id=row["id"],
        name=row.get("name", ""),
        email=row.get("email", ""),
        aliases=aliases,
        section=row.get("section", ""),
        language=language,
    )


def _canvas(row: Row) -> Student | None:
    """A student of Canvas's gradebook export: id the SIS User ID (else the SIS Login ID, else the Canvas user id).

    Aliases: the Canvas user id (``ID``, what a download name carries), the
    SIS Login ID when it is no email, and the sortable name as a download name
    writes it (``Smith, Judith`` → ``smithjudith``).
    """
    sortable = row.get("Student", "")
    canvas_id, sis_id, login = row.get("ID", ""), row.get("SIS User ID", ""), row.get("SIS Login ID", "")
    if unicodedata.normalize("NFC", sortable).casefold() in CANVAS_NO_ONE or not (sortable or canvas_id):
        return None  # Points Possible, the Test Student, a posting-policy row
    student_id = sis_id or login or canvas_id
    if not student_id:
        raise RosterError(f"{sortable!r} has no SIS User ID, SIS Login ID or ID")
    last, comma, given = sortable.partition(", ")
    name = f"{given} {last}" if comma and ", " not in given else sortable
    download = "".join(ch for ch in unicodedata.normalize("NFC", sortable) if ch.isalnum()).casefold()
    email = login if "@" in login else ""
    aliases = [canvas_id, "" if email else login, download]
    return Student(
        id=student_id,
        name=name,
        email=email,
        aliases=tuple(alias for alias in dict.fromkeys(aliases) if alias and alias != student_id),
        section=row.get("Section", ""),
    )


def _moodle(row: Row) -> Student | None:
    """A participant of Moodle's exports: id the ID number (else the username, else the email), name as Moodle shows it."""
    if not any(row.values()):
        return None
    idnumber, username, email = row.get("ID number", ""), row.get("Username", ""), row.get("Email address", "")
    name = f"{row.get('First name', '')} {row.get('Last name', '')}".strip()
    student_id = idnumber or username or email
    if not student_id:
        raise RosterError(f"{name!r} has no ID number, Username or Email address")
    return Student(
        id=student_id,
        name=name,
        email=email,
        aliases=tuple(alias for alias in (username,) if alias and alias != student_id),
    )
