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

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import message

from ..notes import NOTE
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
            return None, NAMES_SEVERAL(name=repr(candidate), count=len(ids), ids=", ".join(ids))
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


class KnownId(BaseModel):
    """What an LMS file of the course says of one of the ids its download names carry (a Moodle participant id):
    the student's name there and the identity fields beside it (``ID number``, ``Email address``)."""

    model_config = ConfigDict(frozen=True)

    user: str
    name: str = ""
    identity: tuple[str, ...] = ()
    source: str = ""
    """Where it says so: ``the grading worksheet lab_11_4-worksheet.csv``."""


class Names(BaseModel):
    """How the batch reads who a file belongs to: the LMS patterns (tried in order) and the roster, if any.

    ``known`` adds what the LMS's other files say of an id (a worksheet's email of a participant), so a name two
    students share is resolved by it; ``shared`` holds the names (``_key``) two ids of one assignment carry in
    the folder, kept apart by their ids where nothing else resolves them.
    """

    model_config = ConfigDict(frozen=True)

    patterns: tuple[str, ...] = ()
    roster: Roster | None = None
    known: tuple[KnownId, ...] = ()
    shared: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        style: str = "auto",
        pattern: str | None = None,
        roster: Roster | None = None,
        known: tuple[KnownId, ...] = (),
    ) -> Names:
        return cls(patterns=(pattern,) if pattern else STYLES[style], roster=roster, known=known)

    def known_id(self, user: str) -> KnownId | None:
        return next((known for known in self.known if known.user == user), None)

    def ambiguous(self, name: str) -> bool:
        """Whether two students carry ``name`` here: two ids of one assignment, or two identities the LMS gives it."""
        identities = {known.identity[:1] for known in self.known if known.identity and _key(known.name) == _key(name)}
        return _key(name) in self.shared or len(identities) > 1

    def with_listing(self, files: Iterable[str]) -> Names:
        """These names, with the names two ids carry in one assignment of ``files`` (paths under the folder)."""
        ids: dict[tuple[str | None, str], set[str]] = {}
        for file in files:
            handed_in = assignment(file)
            parsed = read_lms_name(handed_in.inner if handed_in is not None else file, self.patterns)
            if parsed is not None and parsed.name and parsed.user:
                lab = handed_in.lab if handed_in is not None else lab_in_name(file)
                ids.setdefault((lab, _key(parsed.name)), set()).add(parsed.user)
        return self.model_copy(update={"shared": frozenset(name for (_, name), users in ids.items() if len(users) > 1)})

    def digest(self) -> str:
        """Who these names make each file's (the roster's students and file name, the patterns, the LMS's ids), hashed:
        the ``course`` stamp's second part, so ``merge`` can tell a regrade under another roster (8 hex digits).
        ``shared`` is the folder's, not the roster's, and a student's ``language`` says what their pages speak, not who
        they are: both left out."""
        roster = (
            (
                self.roster.model_dump(exclude={"path": True, "students": {"__all__": {"language"}}}),
                Path(self.roster.path).name,
            )
            if self.roster
            else None
        )
        said = json.dumps(
            [self.patterns, roster, [k.model_dump() for k in self.known], sorted(self.shared)], sort_keys=True
        )
        return hashlib.sha256(said.encode("utf-8", "surrogatepass")).hexdigest()[:8]


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
    name, unless two ids of one assignment carry that name (then the id the
    LMS's files give it, its ID number or email, else the name and the id:
    two students with one name are never one). With a roster, the user id
    (unique), the login, the full name and what the LMS's files say of the id
    (a worksheet's email or ID number, which tells two students with one name
    apart) are tried; a name no pattern reads is looked up by its folder or
    file name (``identify``).
    """
    if names is not None and root is not None:
        handed_in = assignment(submission_name(path, root))
        if handed_in is not None:  # the LMS named the file inside the assignment's folder: read it there
            root = Path(root) / handed_in.folder
    who, source = identify(path, root)
    parsed = lms_name(path, root, names.patterns) if names is not None else None
    if names is None or (parsed is None and names.roster is None):
        return who, source, ()
    if parsed is None:
        return _on_roster(names, [who], source, who)
    kind = "Canvas" if parsed.pattern == CANVAS else "Moodle" if parsed.pattern == MOODLE else "LMS"
    source = f"{kind} name"
    known = names.known_id(parsed.user) if parsed.user else None
    apart = f"{parsed.login or parsed.name}_{parsed.user}" if parsed.user and (parsed.login or parsed.name) else ""
    if names.roster is None:
        if not (parsed.name and names.ambiguous(parsed.name)):
            return parsed.login or parsed.name or parsed.user, source, ()
        if known is not None and known.identity:
            note = TWO_HERE(
                name=repr(parsed.name),
                source=known.source,
                kind=kind,
                user=parsed.user,
                identity=repr(known.identity[0]),
            )
            return known.identity[0], f"{source} ({known.identity[0]}, from {known.source})", (note,)
        note = KEPT_APART(name=repr(parsed.name), kind=kind, ids=apart)
        return apart or parsed.name, source, (note,)
    candidates = [parsed.user, parsed.login, parsed.name, *(known.identity if known is not None else ())]
    return _on_roster(
        names, [c for c in candidates if c], source, apart or parsed.login or parsed.name or parsed.user, parsed, known
    )


def _on_roster(
    names: Names,
    candidates: list[str],
    source: str,
    shown: str,
    parsed: LmsName | None = None,
    known: KnownId | None = None,
) -> tuple[str, str, tuple[str, ...]]:
    """The roster student the candidates name, how, and a note where a name two students share was resolved."""
    roster = names.roster
    assert roster is not None
    found, how = roster.find(*candidates)
    if found is not None:
        if known is None or how not in known.identity:
            return found, f"{source} ({how}) on the roster", ()
        sharing = roster.names().get(_key(parsed.name), ()) if parsed is not None and parsed.name else ()
        notes: tuple[str, ...] = ()
        if len(sharing) > 1:
            said = NAMES_SEVERAL(name=repr(parsed.name), count=len(sharing), ids=", ".join(sharing))  # type: ignore[union-attr]
            notes = (RESOLVED(several=said, source=known.source, user=known.user, identity=repr(how), found=found),)
        return found, f"{source} ({how}, from {known.source}) on the roster", notes
    if _key(shown) in {_key(student.id) for student in roster.students}:
        shown = f"{UNKNOWN}:{shown}"  # never a roster student's id: the gradebook and duplicates go by the id
    said = how if how.startswith("conflict") else UNKNOWN_STUDENT(how=how)
    return shown, f"{UNKNOWN} ({source})", (NO_ROSTER_STUDENT(said=said, roster=Path(roster.path).name),)


UNKNOWN_NOTE_END = "; graded, but no roster student gets this grade"
NO_ROSTER_STUDENT = NOTE(message("{said} ({roster}); graded, but no roster student gets this grade"))
UNKNOWN_STUDENT = NOTE(message("unknown student: {how}"))
EITHER = NOTE(message("{first} or {other}"))
"""The names a file was looked up by (``'49999' or 'doejane'``), as a note says them."""
NOT_ON_ROSTER = NOTE(message("{shown} is not on the roster"))
TWO_HERE = NOTE(
    message(
        "{name} is the name of two students here: {source} gives {kind} id {user} as {identity}, which names this one"
    )
)
KEPT_APART = NOTE(
    message("{name} is the name of two students of one assignment here: kept apart by their {kind} ids ({ids})")
)
RESOLVED = NOTE(message("{several}: {source} gives id {user} as {identity}, which names {found}"))
NAMES_SEVERAL = NOTE(message("{name} names {count} students on the roster ({ids})"))
"""How the note on a row of no roster student ends (``is_attribution_note`` finds it by it)."""


def is_attribution_note(note: str) -> bool:
    """A note ``attribute`` writes (who a file is, under which roster): ``merge`` writes it again under another roster."""
    return (
        note.endswith(UNKNOWN_NOTE_END)
        or (" is the name of two students" in note)
        or (" students on the roster (" in note and " gives id " in note)
    )
