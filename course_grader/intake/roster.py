"""Who a file belongs to, by the roster: LMS download names read, every submission mapped to one id or unknown.

Why: an LMS download names files its own way (Canvas:
``smithjudy_LATE_48213_9981299_lab_11_3.ipynb``; Moodle:
``Judy Smith_48213_assignsubmission_file_lab_11_3.ipynb``, often as a folder),
and without a roster such a name was counted as a student of its own. The
roster (``id,name,email,aliases``, or the LMS's own export: ``roster_formats``)
says who is in the class; the LMS part of the name is matched against it,
compared as ``_key`` says (case, spacing and Unicode normalisation aside).

The guarantees of ``notebook.identify`` stay: only the instructor's folder
layout and the name the LMS gave the file decide, never the notebook. A
pattern is anchored at the start of the path under the submissions folder, so
a learner who uploads a file named like someone else's download
(``smithjudy_48213_1_lab_11_3.ipynb``) gets their own LMS prefix in front of
it and stays themselves. A name that matches no student, or more than one, is
reported as unknown, never guessed; so is one whose parts (a Canvas user id
and login) name two different students: a conflict, never settled by the
first part. A file in a folder named for a lab alone (``lab_11_3/``) was handed
in through that assignment (``assignment``): its LMS name is read inside it.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import lab_registry

from .identity import identify, submission_name
from .lab_names import begins_with_lab, lab_in_name
from .roster_formats import RosterError as RosterError  # re-exported: their home before the LMS's own exports
from .roster_formats import Student as Student
from .roster_formats import read_students

CANVAS = r"(?P<login>[^_/]+)_(?:(?P<late>LATE)_)?(?P<user>\d+)_(?P<submission>\d+)_[^/]+"
"""Canvas's *Download Submissions*: ``login_[LATE_]userid_submissionid_filename`` (a re-upload ends ``-1``, ``-2``)."""
MOODLE = r"(?P<name>[^/]+?)_(?P<user>\d+)_assignsubmission_(?:file|onlinetext)_(?:/[^/]+|[^/]+)"
"""Moodle's *Download all submissions*: ``Full Name_participantid_assignsubmission_file_filename``, or that as a folder."""
STYLES: dict[str, tuple[str, ...]] = {"canvas": (CANVAS,), "moodle": (MOODLE,), "auto": (CANVAS, MOODLE), "plain": ()}


def _key(text: str) -> str:
    """How names are compared: case, Unicode's two spellings of one letter and runs of spaces or underscores do not matter.

    ``Judy  Smith`` = ``judy smith``, and ``José`` written as ``e`` and a
    combining accent (NFD: a Moodle zip unpacked on a Mac names its folders
    so) = ``José`` with one precomposed letter (NFC). Case folding between two
    normalisations: canonical caseless matching (Unicode, ch. 3.13).
    """
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    return re.sub(r"[\s_]+", " ", folded).strip()


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
        """The id the candidates name, and how; ``None`` with the reason when none, several, or two disagree.

        Every candidate is looked up (a Canvas name gives a user id and a
        login): two that name two different students are a conflict, never
        settled by the first one; a candidate naming several students while
        another names one of them leaves that one.
        """
        names = self.names()
        found = [(candidate, names.get(_key(candidate), ())) for candidate in dict.fromkeys(candidates)]
        single = [(candidate, ids[0]) for candidate, ids in found if len(ids) == 1]
        if len({student for _, student in single}) > 1:
            said = " but ".join(f"{candidate!r} names {student}" for candidate, student in single)
            return None, f"conflict: {said} on the roster"
        if single:
            candidate, student = single[0]
            others = [c for c, ids in found if len(ids) > 1 and student not in ids]
            if others:
                return None, f"conflict: {candidate!r} names {student} but {others[0]!r} names other students"
            return student, candidate
        several = next(((candidate, ids) for candidate, ids in found if len(ids) > 1), None)
        if several is not None:
            candidate, ids = several
            return None, f"{candidate!r} names {len(ids)} students on the roster ({', '.join(ids)})"
        shown = " or ".join(repr(c) for c in dict.fromkeys(candidates))
        return None, f"{shown} is not on the roster"

    def get(self, student: str) -> Student | None:
        return next((s for s in self.students if s.id == student), None)


def load_roster(path: str | Path) -> Roster:
    """The roster at ``path``: the pack's CSV or an LMS export (``roster_formats``); ``RosterError`` says what is wrong."""
    path = Path(path)
    return Roster(students=read_students(path), path=str(path))


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


ASSIGNMENT_FOLDER = re.compile(r"(?:lab[\s_.-]*)?(\d+)[\s_.-](\d+)|(?:the[\s_.-]*)?([a-z]+)", re.IGNORECASE)
"""A folder named for a lab alone (``lab_11_3``, ``Lab 11.3``, ``11.3``, ``capstone``): the assignment it was handed in to."""


class Assignment(BaseModel):
    """The assignment a file was handed in to, as the instructor's folder says: what its lateness is counted by."""

    model_config = ConfigDict(frozen=True)

    lab: str
    folder: str
    """The folder's path under the submissions folder (``lab_11_3``), what the notes name."""
    inner: str
    """The file's path under that folder: what the LMS named it."""


def assignment(where: str) -> Assignment | None:
    """The first folder of ``where`` (a path under the submissions folder) named for a lab alone, if any.

    An LMS download holds one assignment's files; an instructor grading
    several at once keeps each in its own folder (``lab_11_3/…``). A file in
    it was handed in through that assignment, whatever lab its name or
    metadata say, so its deadline is that assignment's (``scoring``).
    """
    parts = where.split("/")
    for position, part in enumerate(parts[:-1]):
        match = ASSIGNMENT_FOLDER.fullmatch(part.strip())
        if match is None:
            continue
        lab = f"{match.group(1)}.{match.group(2)}" if match.group(1) else (match.group(3) or "").lower()
        if lab in lab_registry.LABS:
            return Assignment(lab=lab, folder="/".join(parts[: position + 1]), inner="/".join(parts[position + 1 :]))
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
    handed_in = None
    if names is not None and root is not None:
        handed_in = assignment(submission_name(path, root))
        if handed_in is not None:  # the LMS named the file inside the assignment's folder: read it there
            root = Path(root) / handed_in.folder
    who, source = identify(path, root)
    parsed = lms_name(path, root, names.patterns) if names is not None else None
    who, source, notes = _attributed(who, source, parsed, names)
    named = lab_in_name(path)
    if handed_in is not None and named is not None and named != handed_in.lab:
        notes = (
            *notes,
            f"handed in through the {lab_registry.lab(handed_in.lab).label} assignment (its folder "
            f"{handed_in.folder}/) but its file name says {lab_registry.lab(named).label}: it is late or not by "
            f"{lab_registry.lab(handed_in.lab).label}'s deadline",
        )
    return who, source, notes


def _attributed(who: str, source: str, parsed: LmsName | None, names: Names | None) -> tuple[str, str, tuple[str, ...]]:
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
    if _key(shown) in {_key(student.id) for student in names.roster.students}:
        shown = f"{UNKNOWN}:{shown}"  # never a roster student's id: the gradebook and duplicates go by the id
    said = how if how.startswith("conflict") else f"unknown student: {how}"
    return (
        shown,
        f"{UNKNOWN} ({source})",
        (f"{said} ({Path(names.roster.path).name}); graded, but no roster student gets this grade",),
    )
