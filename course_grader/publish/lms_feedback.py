"""Feedback the LMS takes back: the pages in one zip per assignment, each named as that student's download was named.

Canvas (an assignment's *Re-Upload Submissions*) and Moodle (*View all
submissions → Upload multiple feedback files in a zip*) attach each file of a
zip to the submission their own download named it after, one assignment at a
time, so the instructor uploads one file per assignment instead of a page per
student: ``feedback-canvas-lab_11_3.zip`` goes to the Lab 11.3 assignment's
upload page. A page goes to the assignment its file was handed in to
(``GradeResult.handed_in``: its folder or its lab's times file said), else
to its lab's:

- ``canvas``: ``login_[LATE_]userid_submissionid_feedback_lab_11_3.html``, the
  download's prefix (``intake.roster.CANVAS``) kept, so Canvas finds the
  submission by its user id;
- ``moodle``: ``Full Name_participantid_assignsubmission_file_/feedback_lab_11_3.html``,
  in the download's folder (``intake.roster.MOODLE``), which Moodle matches by
  the participant id.

The name is rebuilt from what the download name says, never copied: a
learner chose the rest of it, and no entry may name a path outside its own
folder. A page whose submission was not named by that LMS (renamed, or
graded from elsewhere) stays out of the zip, and the command names it.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from course_lib.teaching import lab_registry

from ..intake.roster import CANVAS, MOODLE, assignment, read_lms_name
from ..judging.verdicts import GradeResult
from .page_names import lab_suffix

Lms = Literal["canvas", "moodle"]
LMS_NAMES: tuple[Lms, ...] = ("canvas", "moodle")
UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]+")
"""What a zip entry's part may not hold: separators, controls, and what Windows refuses (the instructor may unzip it there)."""


def zip_name(lms: Lms, lab: str | None = None) -> str:
    """``feedback-canvas-lab_11_3.zip``: the zip of one assignment's pages (``feedback-canvas.zip``: no lab)."""
    return f"feedback-{lms}-{lab_suffix(lab)}.zip" if lab is not None else f"feedback-{lms}.zip"


def handed_in_to(result: GradeResult) -> str | None:
    """The lab of the assignment whose upload page takes ``result``'s page: where it was handed in, else its lab."""
    if result.handed_in:
        return result.handed_in
    folder = assignment(result.submission)
    return folder.lab if folder is not None else result.lab


def entry_name(result: GradeResult, lms: Lms) -> str | None:
    """The zip entry of ``result``'s page, as ``lms`` names its download; ``None`` if the download was not named so."""
    handed_in = assignment(result.submission)
    where = handed_in.inner if handed_in is not None else result.submission
    name = read_lms_name(where, (CANVAS if lms == "canvas" else MOODLE,))
    if name is None:
        return None
    page = f"feedback_{lab_suffix(result.lab)}.html"
    if lms == "canvas":
        login = UNSAFE.sub("_", name.login).strip(". ")
        return f"{login}_{'LATE_' if name.late else ''}{name.user}_{name.submission}_{page}" if login else None
    full_name = UNSAFE.sub("_", name.name).strip(". ")
    return f"{full_name}_{name.user}_assignsubmission_file_/{page}" if full_name else None


def write_lms_zips(
    pages: Iterable[tuple[GradeResult, Path]], folder: Path, lms: Lms
) -> tuple[list[tuple[Path, str | None, int]], list[str]]:
    """One zip per assignment of the pages whose download ``lms`` named (``zip_name``), each with its lab and how many
    pages, and the submissions left out. A zip of this LMS no page goes to any more (an earlier run's) is removed."""
    by_assignment: dict[str | None, dict[str, Path]] = {}
    left_out: list[str] = []
    for result, page in pages:
        name = entry_name(result, lms)
        entries = by_assignment.setdefault(handed_in_to(result), {})
        if name is None or name in entries:
            left_out.append(result.submission)
        else:
            entries[name] = page
    written = []
    order = list(lab_registry.LABS)
    for lab, entries in sorted(
        by_assignment.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)
    ):
        if entries:
            written.append((_zipped(entries, folder / zip_name(lms, lab)), lab, len(entries)))
    for stale in folder.glob(f"feedback-{lms}*.zip"):
        if stale not in {path for path, _, _ in written}:
            stale.unlink()
    return written, left_out


def _zipped(entries: dict[str, Path], path: Path) -> Path:
    partial = path.with_name(f".{path.name}.part")  # renamed when whole: an upload never takes half a zip
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, page in sorted(entries.items()):
            archive.write(page, name)
    os.replace(partial, path)
    return path
