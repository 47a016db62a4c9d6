"""Who a file belongs to, by the roster: LMS download names read, every submission mapped to one id or unknown.

Why: an LMS download names files its own way (Canvas:
``smithjudy_LATE_48213_9981299_lab_11_3.ipynb``; Moodle:
``Judy Smith_48213_assignsubmission_file_lab_11_3.ipynb``, often as a folder),
and without a roster such a name was counted as a student of its own. The
roster (``id,name,email,aliases``) says who is in the class; the LMS part of
the name is matched against it.

The guarantees of ``notebook.identify`` stay: only the instructor's folder
layout and the name the LMS gave the file decide, never the notebook. A
pattern is anchored at the start of the path under the submissions folder, so
a learner who uploads a file named like someone else's download
(``smithjudy_48213_1_lab_11_3.ipynb``) gets their own LMS prefix in front of
it and stays themselves. A name that matches no student, or more than one, is
reported as unknown, never guessed.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .errors import GradingError
from .notebook import begins_with_lab, identify, submission_name


class RosterError(GradingError):
    """The roster file is missing, malformed, or gives one name to two students."""


CANVAS = r"(?P<login>[^_/]+)_(?:(?P<late>LATE)_)?(?P<user>\d+)_(?P<submission>\d+)_[^/]+"
"""Canvas's *Download Submissions*: ``login_[LATE_]userid_submissionid_filename`` (a re-upload ends ``-1``, ``-2``)."""
MOODLE = r"(?P<name>[^/]+?)_(?P<user>\d+)_assignsubmission_(?:file|onlinetext)_(?:/[^/]+|[^/]+)"
"""Moodle's *Download all submissions*: ``Full Name_participantid_assignsubmission_file_filename``, or that as a folder."""
STYLES: dict[str, tuple[str, ...]] = {"canvas": (CANVAS,), "moodle": (MOODLE,), "auto": (CANVAS, MOODLE), "plain": ()}


class Student(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    name: str = ""
    email: str = ""
    aliases: tuple[str, ...] = ()
    section: str = ""


def _key(text: str) -> str:
    """How names are compared: case and runs of spaces or underscores do not matter (``Judy  Smith`` = ``judy smith``)."""
    return re.sub(r"[\s_]+", " ", text).strip().casefold()


class Roster(BaseModel):
    """The class, in roster order, and every name that points to a student."""

    model_config = ConfigDict(frozen=True)

    students: tuple[Student, ...]
    path: str = ""

    def names(self) -> dict[str, tuple[str, ...]]:
        """Each compared name → the ids it names (two ids: that name is ambiguous and decides nothing)."""
        found: dict[str, list[str]] = {}
        for student in self.students:
            local = student.email.split("@")[0] if "@" in student.email else ""
            for name in {student.id, student.name, student.email, local, *student.aliases} - {""}:
                ids = found.setdefault(_key(name), [])
                if student.id not in ids:
                    ids.append(student.id)
        return {name: tuple(ids) for name, ids in found.items()}

    def find(self, *candidates: str) -> tuple[str | None, str]:
        """The id the first candidate naming anyone names, and how; ``None`` with the reason when none or several."""
        names = self.names()
        for candidate in candidates:
            ids = names.get(_key(candidate), ())
            if len(ids) == 1:
                return ids[0], candidate
            if len(ids) > 1:
                return None, f"{candidate!r} names {len(ids)} students on the roster ({', '.join(ids)})"
        shown = " or ".join(repr(c) for c in dict.fromkeys(candidates))
        return None, f"{shown} is not on the roster"

    def get(self, student: str) -> Student | None:
        return next((s for s in self.students if s.id == student), None)


def load_roster(path: str | Path) -> Roster:
    """``id,name,email,aliases`` (aliases ``;``-separated; an optional ``section``); ``RosterError`` says what is wrong."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:
            reader = csv.DictReader(file)
            rows = list(reader)
            header = reader.fieldnames or []
    except OSError as exc:
        raise RosterError(f"roster {path}: cannot be read ({exc.strerror or exc})") from None
    if "id" not in header:
        raise RosterError(f"roster {path}: needs a header with at least the column id (id,name,email,aliases)")
    students: list[Student] = []
    for number, row in enumerate(rows, start=2):
        student_id = (row.get("id") or "").strip()
        if not student_id:
            raise RosterError(f"roster {path}, line {number}: no id")
        if any(s.id == student_id for s in students):
            raise RosterError(f"roster {path}, line {number}: the id {student_id!r} is there twice")
        aliases = tuple(a.strip() for a in (row.get("aliases") or "").split(";") if a.strip())
        students.append(
            Student(
                id=student_id,
                name=(row.get("name") or "").strip(),
                email=(row.get("email") or "").strip(),
                aliases=aliases,
                section=(row.get("section") or "").strip(),
            )
        )
    return Roster(students=tuple(students), path=str(path))


class LmsName(BaseModel):
    """What an LMS download name says (the groups its pattern matched)."""

    model_config = ConfigDict(frozen=True)

    pattern: str
    login: str = ""
    user: str = ""
    name: str = ""
    late: bool = False
    submission: str = ""


class Names(BaseModel):
    """How the batch reads who a file belongs to: the LMS patterns (tried in order) and the roster, if any."""

    model_config = ConfigDict(frozen=True)

    patterns: tuple[str, ...] = ()
    roster: Roster | None = None

    @classmethod
    def of(cls, style: str = "auto", pattern: str | None = None, roster: Roster | None = None) -> Names:
        return cls(patterns=(pattern,) if pattern else STYLES[style], roster=roster)


def lms_name(path: str | Path, root: str | Path | None, patterns: tuple[str, ...]) -> LmsName | None:
    """The first pattern that matches the start of ``path`` under ``root``, read; ``None`` when none does."""
    return read_lms_name(submission_name(path, root), patterns)


def read_lms_name(where: str, patterns: tuple[str, ...]) -> LmsName | None:
    """``lms_name`` of a path already relative to the submissions folder (a CSV's ``file``)."""
    if begins_with_lab(where.split("/", 1)[0]):
        return None  # a lab notebook under its own name is not a download name (notebook.begins_with_lab)
    for pattern in patterns:
        match = re.match(pattern, where)
        if match:
            groups = {k: v for k, v in match.groupdict().items() if v is not None}
            return LmsName(
                pattern=pattern,
                login=groups.get("login", ""),
                user=groups.get("user", ""),
                name=groups.get("name", ""),
                late=bool(groups.get("late")),
                submission=groups.get("submission", ""),
            )
    return None


UNKNOWN = "unknown"
"""``student_from`` starts with this for a submission that names no roster student (and a note says why)."""


def attribute(path: str | Path, root: str | Path | None, names: Names | None) -> tuple[str, str, tuple[str, ...]]:
    """Who ``path`` belongs to, how that was decided, and notes: by its LMS name and the roster, else ``identify``.

    Without a roster an LMS name still gives the student: its login or full
    name (two Judy Smiths then share one, and their files are flagged as
    duplicates, never merged silently). With a roster, the user id (unique),
    the login and the full name are tried in that order; a name no pattern
    reads is looked up by its folder or file name (``identify``).
    """
    who, source = identify(path, root)
    parsed = lms_name(path, root, names.patterns) if names is not None else None
    if names is None or (parsed is None and names.roster is None):
        return who, source, ()
    if parsed is not None:
        kind = "Canvas" if parsed.pattern == CANVAS else "Moodle" if parsed.pattern == MOODLE else "LMS"
        candidates = [c for c in (parsed.user, parsed.login, parsed.name) if c]
        source = f"{kind} name"
        if names.roster is None:
            return parsed.login or parsed.name or parsed.user, source, ()
    else:
        candidates = [who]
    assert names.roster is not None
    found, how = names.roster.find(*candidates)
    if found is not None:
        return found, f"{source} ({how}) on the roster", ()
    shown = candidates[0] if parsed is None else (parsed.login or parsed.name or parsed.user)
    return (
        shown,
        f"{UNKNOWN} ({source})",
        (f"unknown student: {how} ({Path(names.roster.path).name}); graded, but no roster student gets this grade",),
    )
