"""The LMS's times matched to the files graded: each row's id to the files its download names carry.

Moodle's participant id (``Judy Smith_1234567_assignsubmission_file_…``)
and Canvas's user id (``smithjudy_48213_9981299_…``) are read from each file's
name as its student is (``roster.read_lms_name``, inside a lab's folder when
there is one), and a worksheet's row times every file of that participant, a
Canvas row every file of that user. Which files a times file may time:

- a Canvas submissions JSON that lists attachments (every attempt's, with
  ``submission_history``): the files whose download names carry one of them,
  each at its own attempt's time, whatever lab its name names: those files
  were handed in to that assignment. A user whose files here are none of its
  attachments is refused: it is another assignment's JSON;
- a Moodle worksheet of one lab: every file of its participants (Moodle's
  participant ids are the assignment's own), whatever lab its name names;
- otherwise a lab's own file (``[labs."11.3"] manifest``) times the files
  handed in to that lab, by their folder (``lab_11_3/``) or else the lab
  their name names, since Canvas's user id is the same in every assignment;
- ``[late] manifest``: any file, but one assignment's times time one lab, so
  a user whose files are of two labs is refused (name each lab's file);
- Moodle's rows only Moodle download names, Canvas's only Canvas's (a
  ``pattern`` of the course's own may be either).

Each file timed by a lab's own file was handed in to that lab's assignment
(``Timed.assignment``), which decides its lateness with the lab it is
(``scoring``). Where the file's own time is not known (one time for several
of a user's files: the latest attempt's, a Moodle submission's last change)
``Timed.caveat`` says so, for the row's notes.

A row that times no file, or a file another row already timed, is refused
with the row's file, line and column (``strict``; pages made from some
shards' records leave such a row out), never used on a guess.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import message

from ..intake.lab_names import in_sentence, lab_in_name
from ..intake.reuploads import upload
from ..intake.roster import CANVAS, MOODLE, assignment, read_lms_name
from ..notes import NOTE
from .lms_times import FORM_NAMES, Attempt, Form, SubmissionTimesError, TimeRow, TimesFile
from .manifest import match_manifest

NAMED_BY: dict[str, str] = {"moodle-worksheet": MOODLE, "canvas-submissions": CANVAS}
"""The download-name pattern each LMS form's ids are read from."""
DOWNLOAD_NAMES = {
    "moodle-worksheet": "a Moodle download name (Full Name_1234567_assignsubmission_file_…)",
    "canvas-submissions": "a Canvas download name (login_48213_9981299_…)",
}


@dataclass(frozen=True)
class Timed:
    """A file's time, and the row of the times file that gave it."""

    when: datetime
    form: Form
    line: int
    place: str
    """``Moodle grading worksheet w.csv (late.manifest), line 4, column 8``: what an error about it names."""
    assignment: str | None = None
    """The lab whose own times file timed it: the assignment it was handed in to (``None``: not said)."""
    caveat: str = ""
    """Why the time is not the file's own, when it is not (a note for the row)."""


@dataclass(frozen=True)
class Download:
    file: str
    pattern: str
    user: str
    lab: str | None
    """The lab of the assignment its folder names, else the lab its name names."""
    folder: str | None
    """The lab of the assignment its folder names (``lab_11_3/``), if any."""
    attachment: str
    """The number after the user id of a Canvas name: the attachment's id."""


@dataclass(frozen=True)
class _Found:
    """What one row of a times file says of one file: its time and where, the assignment, a caveat."""

    row: TimeRow | Attempt
    assignment: str | None
    caveat: str = ""


def match_times(
    times: Iterable[TimesFile],
    files: Iterable[str],
    root: str | os.PathLike[str],
    patterns: tuple[str, ...],
    *,
    already: dict[str, Timed],
    strict: bool = True,
) -> dict[str, Timed]:
    """``already`` with each times file's rows matched to ``files`` (paths under ``root``); see the module."""
    names = list(dict.fromkeys(files))
    downloads = _downloads(names, patterns)
    timed = dict(already)
    for source in times:
        if source.form == "manifest":
            found = {file: _Found(row, source.lab) for file, row in _manifest(source, names, root, strict).items()}
        else:
            found, problems = _by_id(source, downloads, root)
            if problems and strict:
                raise SubmissionTimesError(problems[0])
        for file, said in found.items():
            if file in timed:
                if strict:
                    raise SubmissionTimesError(
                        f"{source.at(said.row)}: {file!r} has a time already, from {timed[file].place}"
                    )
                continue
            timed[file] = Timed(
                said.row.when, source.form, said.row.line, source.at(said.row), said.assignment, said.caveat
            )
    return timed


def _downloads(files: list[str], patterns: tuple[str, ...]) -> list[Download]:
    """Every file whose name is an LMS download's with an id, and the lab it was handed in to."""
    found = []
    for file in files:
        handed_in = assignment(file)
        parsed = read_lms_name(handed_in.inner if handed_in is not None else file, patterns)
        if parsed is not None and parsed.user:
            folder = handed_in.lab if handed_in is not None else None
            lab = folder or lab_in_name(file)
            found.append(Download(file, parsed.pattern, parsed.user, lab, folder, parsed.submission))
    return found


def _by_id(
    source: TimesFile, downloads: list[Download], root: str | os.PathLike[str]
) -> tuple[dict[str, _Found], list[str]]:
    """Each file a Moodle or Canvas times file's rows time, and what is wrong with a row (each one, in order)."""
    own = NAMED_BY[source.form]
    read = [d for d in downloads if d.pattern == own or d.pattern not in (MOODLE, CANVAS)]  # a course's own: either
    attachments = {attempt.attachment: attempt for attempt in source.attempts}
    listed = {attempt.user for attempt in source.attempts}
    found: dict[str, _Found] = {}
    problems: list[str] = []
    for row in source.rows:
        theirs = [d for d in read if d.user == row.key]
        if row.key in listed:  # Canvas's attempts: each file at its own attempt's time
            files, problem = _attached(source, row, theirs, attachments, root)
            found |= {d.file: _Found(attachments[d.attachment], source.lab) for d in files}
        else:
            ids_are_the_assignments = source.lab is not None and source.form == "moodle-worksheet"
            files, problem = _of_row(source, row, theirs, root, whole=ids_are_the_assignments)
            caveats = _caveats(source, row, [d.file for d in files])
            found |= {d.file: _Found(row, source.lab, caveats.get(d.file, "")) for d in files}
        if problem:
            problems.append(f"{source.at(row)}: {problem}")
    return found, problems


def _attached(
    source: TimesFile,
    row: TimeRow,
    theirs: list[Download],
    attachments: dict[str, Attempt],
    root: str | os.PathLike[str],
) -> tuple[list[Download], str]:
    """A user's files that are attachments of ``source``'s attempts, and a problem: none is, or a folder disagrees."""
    files = [d for d in theirs if d.attachment in attachments and attachments[d.attachment].user == row.key]
    if not files:
        ids = sorted(a for a, attempt in attachments.items() if attempt.user == row.key)
        another = f" (assignment_id {source.assignment})" if source.assignment else ""
        return [], (
            f"{row.who} matches no submission under {os.fspath(root)}: none of their files here is an attachment "
            f"this file lists for them ({', '.join(ids)}; a Canvas download name carries it after the user id). "
            f"Is it another assignment's submissions JSON{another}? Name each lab's own"
        )
    elsewhere = [d for d in files if source.lab is not None and d.folder is not None and d.folder != source.lab]
    if elsewhere:
        return [], _folder_disagrees(source, elsewhere[0])
    labs = sorted({d.lab for d in files if d.lab}, key=list(lab_registry.LABS).index)
    if source.lab is None and len(labs) > 1:
        return [], _two_labs(row, labs)
    return files, ""


def _of_row(
    source: TimesFile, row: TimeRow, theirs: list[Download], root: str | os.PathLike[str], *, whole: bool
) -> tuple[list[Download], str]:
    """The files one time per user (participant) times, and what is wrong with it (empty: nothing).

    ``whole``: every file of the id is the assignment's (a Moodle participant id of one lab's worksheet), unless
    its folder names another assignment.
    """
    if whole:
        elsewhere = [d for d in theirs if d.folder is not None and d.folder != source.lab]
        if elsewhere:
            return [], _folder_disagrees(source, elsewhere[0])
        files = theirs
    else:
        files = [d for d in theirs if source.lab is None or d.lab == source.lab]
    if not files:
        problem = f"{row.who} matches no submission under {os.fspath(root)} ({DOWNLOAD_NAMES[source.form]}"
        if source.lab is not None:
            label = lab_registry.lab(source.lab).label
            problem += f" handed in to {label}: in a folder {_folder(source.lab)}/, or named for the lab"
        return [], problem + ")"
    labs = sorted({d.lab for d in files if d.lab}, key=list(lab_registry.LABS).index)
    if source.lab is None and len(labs) > 1:
        return [], _two_labs(row, labs)
    return files, ""


def _caveats(source: TimesFile, row: TimeRow, files: list[str]) -> dict[str, str]:
    """Why each of a row's files does not have its own time, when several share it (a note for each row)."""
    if len(files) < 2:
        return {}
    if source.form == "canvas-submissions":
        said = LATEST_ATTEMPT(form=FORM_NAMES[source.form], file=source.path.name, who=row.who)
        return dict.fromkeys(files, said)
    caveats = {}
    for file in files:
        mine = upload(file)
        if mine is None:
            continue
        later = [f for f in files if (u := upload(f)) is not None and u.same == mine.same and u.number > mine.number]
        if later:
            caveats[file] = LAST_CHANGE(
                form=FORM_NAMES[source.form], file=source.path.name, who=row.who, later=repr(later[-1])
            )
    return caveats


LATEST_ATTEMPT = NOTE(
    message(
        "its own time is unknown: the {form} ({file}) gives {who} one time for their files, the latest attempt's; "
        "save it with ?include[]=submission_history for each attempt's"
    )
)
LAST_CHANGE = NOTE(
    message(
        "its own time is unknown: the {form} ({file}) gives {who} one time, the submission's last change; "
        "{later} is a later upload of this file's name, so this one came earlier"
    )
)


def _two_labs(row: TimeRow, labs: list[str]) -> str:
    shown = " and ".join(lab_registry.lab(lab).label for lab in labs)
    return (
        f"{row.who} has files of {shown}, but one LMS assignment's times are one lab's: "
        f'name each lab\'s file ([labs."{labs[0]}"] manifest = "…")'
    )


def _folder_disagrees(source: TimesFile, download: Download) -> str:
    assert source.lab is not None and download.folder is not None
    return (
        f"{download.file!r} is in the folder of {in_sentence(download.folder)}'s assignment, but this file of "
        f"{in_sentence(source.lab)}'s assignment times it: keep each assignment's download in its own folder"
    )


def _folder(lab: str) -> str:
    return f"lab_{lab.replace('.', '_')}" if lab[0].isdigit() else lab


def _manifest(source: TimesFile, names: list[str], root: str | os.PathLike[str], strict: bool) -> dict[str, TimeRow]:
    """A pack manifest (one page at a time), matched by path as ``[late] manifest`` is (``manifest.match_manifest``)."""
    found: dict[str, TimeRow] = {}
    for page in dict.fromkeys(row.path or source.path for row in source.rows):
        rows = [row for row in source.rows if (row.path or source.path) == page]
        matched, lines = match_manifest(
            {row.key: row.when for row in rows},
            {row.key: row.line for row in rows},
            names,
            root,
            where=f"{page} ({source.key})",
            strict=strict,
        )
        by_line = {row.line: row for row in rows}
        found |= {file: by_line[lines[file]] for file in matched}
    return found
