"""The LMS's times matched to the files graded: each row's id to the files its download names carry.

Moodle's participant id (``Judy Smith_1234567_assignsubmission_file_…``)
and Canvas's user id (``smithjudy_48213_9981299_…``) are read from each file's
name as its student is (``roster.read_lms_name``, inside a lab's folder when
there is one), and a worksheet's row times every file of that participant, a
Canvas row every file of that user. Which files a times file may time:

- a lab's own (``[labs."11.3"] manifest``): the files handed in to that lab,
  by their folder (``lab_11_3/``) or else the lab their name names, since
  Canvas's user id is the same in every assignment;
- ``[late] manifest``: any file, but one assignment's times time one lab, so
  a user whose files are of two labs is refused (name each lab's file);
- Moodle's rows only Moodle download names, Canvas's only Canvas's (a
  ``pattern`` of the course's own may be either).

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

from ..intake.lab_names import lab_in_name
from ..intake.roster import CANVAS, MOODLE, assignment, read_lms_name
from .lms_times import Form, SubmissionTimesError, TimeRow, TimesFile
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


@dataclass(frozen=True)
class Download:
    file: str
    pattern: str
    user: str
    lab: str | None


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
        found = _manifest(source, names, root, strict) if source.form == "manifest" else {}
        for row in source.rows if source.form != "manifest" else ():
            files_of, problem = _by_id(source, row, downloads, root)
            if problem and strict:
                raise SubmissionTimesError(f"{source.at(row)}: {problem}")
            found |= {} if problem else {file: row for file in files_of if file not in found}
        for file, row in found.items():
            if file in timed:
                if strict:
                    raise SubmissionTimesError(
                        f"{source.at(row)}: {file!r} has a time already, from {timed[file].place}"
                    )
                continue
            timed[file] = Timed(row.when, source.form, row.line, source.at(row))
    return timed


def _downloads(files: list[str], patterns: tuple[str, ...]) -> list[Download]:
    """Every file whose name is an LMS download's with an id, and the lab it was handed in to."""
    found = []
    for file in files:
        handed_in = assignment(file)
        parsed = read_lms_name(handed_in.inner if handed_in is not None else file, patterns)
        if parsed is not None and parsed.user:
            lab = handed_in.lab if handed_in is not None else lab_in_name(file)
            found.append(Download(file, parsed.pattern, parsed.user, lab))
    return found


def _by_id(
    source: TimesFile, row: TimeRow, downloads: list[Download], root: str | os.PathLike[str]
) -> tuple[list[str], str]:
    """The files ``row``'s id times, and what is wrong with it (empty: nothing)."""
    own = NAMED_BY[source.form]
    files = [
        d
        for d in downloads
        if d.user == row.key
        and (d.pattern == own or d.pattern not in (MOODLE, CANVAS))  # a course's own pattern: either LMS
        and (source.lab is None or d.lab == source.lab)
    ]
    if not files:
        problem = f"{row.who} matches no submission under {os.fspath(root)} ({DOWNLOAD_NAMES[source.form]}"
        if source.lab is not None:
            label = lab_registry.lab(source.lab).label
            problem += f" handed in to {label}: in a folder {_folder(source.lab)}/, or named for the lab"
        return [], problem + ")"
    labs = sorted({d.lab for d in files if d.lab}, key=list(lab_registry.LABS).index)
    if len(labs) > 1:
        shown = " and ".join(lab_registry.lab(lab).label for lab in labs)
        return [], (
            f"{row.who} has files of {shown}, but one LMS assignment's times are one lab's: "
            f'name each lab\'s file ([labs."{labs[0]}"] manifest = "…")'
        )
    return [d.file for d in files], ""


def _folder(lab: str) -> str:
    return f"lab_{lab.replace('.', '_')}" if lab[0].isdigit() else lab


def _manifest(source: TimesFile, names: list[str], root: str | os.PathLike[str], strict: bool) -> dict[str, TimeRow]:
    """A lab's own pack manifest, matched by path as ``[late] manifest`` is (``manifest.match_manifest``)."""
    matched, lines = match_manifest(
        {row.key: row.when for row in source.rows},
        {row.key: row.line for row in source.rows},
        names,
        root,
        where=f"{source.path} ({source.key})",
        strict=strict,
    )
    by_line = {row.line: row for row in source.rows}
    return {file: by_line[lines[file]] for file in matched}
