"""What the grader reads from a notebook: its lab, the learner's exercise cells, the lab's setup.

Only cells tagged ``exercise`` come from the submission (docs/grading.md).
The setup (imports and the lab's own definitions before the first exercise) is
taken from the course's copy of the lab, so a learner who deletes or edits it,
or edits the checklist cell, changes nothing the grader runs. Stored outputs
are never read.

A submitted file is hostile, its name and metadata included: only a regular
file of at most ``MAX_NOTEBOOK_MB`` is read (never through a link, never a
FIFO or device), who it belongs to comes from where the instructor put it,
and where its file name and its metadata disagree on the lab, the file name
decides and a note says so.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.warnings import MissingIDFieldWarning

from course_lib import lab_registry

from ..checkout import CHECKOUT
from ..errors import NotALabNotebook, NotARegularFile, SubmissionTooLarge, TemplateNotFound

LAB_FUNCTIONS: dict[str, tuple[str, ...]] = {lab.id: lab.functions for lab in lab_registry.LABS.values()}
"""The function(s) each lab asks for (from the registry, ``course_lib.lab_registry``)."""

EXERCISE_TAG = "exercise"
CHECKLIST_TAG = "checklist"
LABS_ENVIRONMENT = "COURSE_GRADE_LABS"
_FILE_LAB = re.compile(r"lab[_-]?(\d+)[_.-](\d+)(?!\d)", re.IGNORECASE)


MAX_NOTEBOOK_MB = 20
MAX_NOTEBOOK_BYTES = MAX_NOTEBOOK_MB * 2**20
"""The largest submitted file the grader reads; a lab notebook with outputs is well under 1 MB."""


@dataclass(frozen=True)
class Submission:
    path: Path
    lab: str
    exercise_sources: tuple[str, ...]
    notebook: NotebookNode
    notes: tuple[str, ...] = ()
    """What the file claims that the grader did not follow (a lab its metadata names but its file name does not)."""


def not_regular(path: str | Path, status: os.stat_result) -> str | None:
    """What ``path`` is instead of a regular file, from its ``lstat`` (links are described, not followed)."""
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        try:
            return f"a symbolic link (to {os.readlink(path)})"
        except OSError:
            return "a symbolic link"
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((what for test, what in kinds if test(mode)), "not a regular file")


def refusal(path: str | Path, what: str) -> str:
    """The note for a file that is not graded because of what it is (``not_regular``)."""
    return f"{Path(path).name} is {what}: only regular files are graded, and links are never followed"


def _too_large(path: str | Path, size: int, limit: int) -> SubmissionTooLarge:
    return SubmissionTooLarge(
        f"{Path(path).name}: a file of {size / 2**20:.1f} MB exceeds the "
        f"{limit / 2**20:g} MB limit for a notebook; it was not read"
    )


_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular_file(path: str | Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; never follows or opens anything else.

    ``lstat`` decides before anything is opened (a FIFO would block, a device
    may act on open); the open itself refuses a link (``O_NOFOLLOW``) and
    cannot block (``O_NONBLOCK``), and ``fstat`` checks the file opened is
    still a regular file, so a file swapped for a link in between is refused too.
    """
    try:
        status = os.lstat(path)
        what = not_regular(path, status)
        if what:
            raise NotARegularFile(refusal(path, what))
        if status.st_size > limit:
            raise _too_large(path, status.st_size, limit)
        try:
            handle = os.open(path, _OPEN_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise NotARegularFile(refusal(path, "a symbolic link")) from None
            raise
        with os.fdopen(handle, "rb") as file:
            opened = os.fstat(file.fileno())
            what = not_regular(path, opened) if not stat.S_ISLNK(opened.st_mode) else "a symbolic link"
            if what:
                raise NotARegularFile(refusal(path, what))
            data = file.read(limit + 1)  # a file that grew after fstat is still not read past the limit
    except OSError as exc:
        raise NotALabNotebook(
            f"{Path(path).name} could not be read ({type(exc).__name__}: {exc.strerror or exc})"
        ) from None
    if len(data) > limit:
        raise _too_large(path, len(data), limit)
    return data


def read_notebook(path: str | Path) -> NotebookNode:
    """The submitted notebook, or ``NotALabNotebook`` (``NotARegularFile``, ``SubmissionTooLarge``) saying why not."""
    data = read_regular_file(path)
    try:
        with warnings.catch_warnings():  # an older notebook's cells have no ids: the grader never uses them, nor should a batch's output say so per file
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            return nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception as exc:  # noqa: BLE001 - invalid UTF-8 or JSON, wrong schema, nesting too deep
        what = what_it_is(data)
        detail = (
            f"{what}, not a Jupyter notebook"
            if what
            else f"not a readable Jupyter notebook ({type(exc).__name__}: {str(exc)[:300]})"
        )
        raise NotALabNotebook(
            f"{Path(path).name} is {detail}; nothing in it was graded: "
            "ask for the notebook itself (File → Download in Jupyter, .ipynb)"
        ) from None


_KINDS: tuple[tuple[tuple[bytes, ...], str], ...] = (
    ((b"<!doctype html", b"<html", b"<head", b"<body"), "an HTML page (a web page saved under the notebook's name)"),
    ((b"pk\x03\x04",), "a ZIP archive"),
    ((b"%pdf",), "a PDF document"),
    ((b"{\\rtf",), "an RTF document"),
)


def what_it_is(data: bytes) -> str | None:
    """What a file that is not a notebook is, from its first bytes: an empty file, an HTML page, a ZIP, a PDF.

    The 0-byte upload and the browser's *Save page as* are the common ways a
    zero arrives with no notebook in it (docs/grading.md, statuses); the note
    says which, so the learner knows what to hand in instead.
    """
    if not data:
        return "an empty file (0 bytes)"
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if not head:
        return f"a file of {len(data)} blank bytes"
    for starts, what in _KINDS:
        if head.startswith(starts) or (what.startswith("an HTML") and b"<html" in head):
            return what
    return None


def lab_in_name(path: str | Path) -> str | None:
    """The lab a file name names: ``lab_11_3_….ipynb``, ``Lab-11.5.ipynb``, a lab notebook's own name, ``…capstone…``."""
    name = Path(path).name
    match = _FILE_LAB.search(name)
    if match and f"{match.group(1)}.{match.group(2)}" in lab_registry.LABS:
        return f"{match.group(1)}.{match.group(2)}"
    for entry in lab_registry.LABS.values():
        if entry.notebook in name or (
            not entry.id[0].isdigit() and re.search(rf"(?<![a-z]){entry.id}(?![a-z])", name, re.I)
        ):
            return entry.id
    return None


def begins_with_lab(name: str) -> bool:
    """A file name that starts with its lab (``lab_11_3_build_context.ipynb``, ``Lab-11.3.ipynb``, ``02_lifecycle_capstone…``).

    Such a file is the lab's notebook under its own name, handed in as it is: an
    LMS download name starts with the student (Canvas's ``login_userid_…``), so
    none of its patterns is read from it (``lab_11_3`` is not login ``lab``, user ``11``).
    """
    match = _FILE_LAB.match(name)
    if match and f"{match.group(1)}.{match.group(2)}" in lab_registry.LABS:
        return True
    return any(name.startswith(entry.notebook) for entry in lab_registry.LABS.values())


def lab_in_metadata(notebook: NotebookNode) -> str | None:
    """The lab ``metadata.course.lab`` names ("11.3", "Lab 11.3" and 3 name the same lab), if any."""
    course = notebook.get("metadata", {}).get("course", {})
    if isinstance(course, dict) and course.get("lab") is not None:
        try:
            return lab_registry.lab(course["lab"]).id
        except ValueError:
            return None
    return None


def lab_of(notebook: NotebookNode, path: str | Path | None = None) -> str:
    """The lab the file name names, else the one ``metadata.course.lab`` names.

    The file name comes first: it is what the instructor's folder or LMS
    download shows, while the metadata is whatever the learner's copy says
    (``lab_conflict`` notes a disagreement).
    """
    lab = (lab_in_name(path) if path is not None else None) or lab_in_metadata(notebook)
    if lab is None:
        where = f"{Path(path).name}: " if path is not None else ""
        raise NotALabNotebook(f"{where}no lab in its file name or the notebook's metadata (course.lab)")
    return lab


def lab_conflict(notebook: NotebookNode, path: str | Path, graded: str) -> str | None:
    """A note when the file name and ``metadata.course.lab`` name different labs, saying which one was graded."""
    named, claimed = lab_in_name(path), lab_in_metadata(notebook)
    if named is None or claimed is None or named == claimed:
        return None
    decided = "the file name decides" if graded == named else "the lab this autograder grades"
    return (
        f"the file name says {lab_registry.lab(named).label} but the notebook's metadata (course.lab) says "
        f"{lab_registry.lab(claimed).label}: graded as {lab_registry.lab(graded).label} ({decided})"
    )


def tags(cell: NotebookNode) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []) or [])


def exercise_sources(notebook: NotebookNode) -> tuple[str, ...]:
    """The learner's code: every code cell tagged ``exercise``, in notebook order."""
    return tuple(
        cell.source
        for cell in notebook.cells
        if cell.cell_type == "code" and EXERCISE_TAG in tags(cell) and CHECKLIST_TAG not in tags(cell)
    )


def read_submission(path: str | Path, *, expected_lab: str | None = None) -> Submission:
    """The submission's lab and exercise cells (``lab_of``).

    ``expected_lab`` (an autograder's lab, or ``--lab``) is graded when the
    file name or the metadata names it, or when neither names a lab; a
    notebook that names only other labs is refused.
    """
    notebook = read_notebook(path)
    named = {lab for lab in (lab_in_name(path), lab_in_metadata(notebook)) if lab}
    if expected_lab is not None and (expected_lab in named or not named):
        lab = expected_lab
    else:
        lab = lab_of(notebook, path)
    if expected_lab is not None and lab != expected_lab:
        raise NotALabNotebook(f"{Path(path).name} is Lab {lab}, but this autograder grades Lab {expected_lab}")
    note = lab_conflict(notebook, path, lab)
    return Submission(Path(path), lab, exercise_sources(notebook), notebook, (note,) if note else ())


def setup_sources(template: NotebookNode) -> tuple[str, ...]:
    """The lab's own code cells before its first exercise: imports and the example it builds on."""
    sources: list[str] = []
    for cell in template.cells:
        if cell.cell_type != "code":
            continue
        if EXERCISE_TAG in tags(cell):
            break
        if CHECKLIST_TAG not in tags(cell):
            sources.append(cell.source)
    return tuple(sources)


def template_dirs(labs_dir: str | Path | None = None) -> list[Path]:
    """Where the course's lab notebooks may be: the option, ``$COURSE_GRADE_LABS``, ``./labs``, the checkout."""
    checkout = CHECKOUT
    folders = sorted({lab.folder for lab in lab_registry.LABS.values()})
    candidates = [
        labs_dir,
        os.environ.get(LABS_ENVIRONMENT),
        *(Path.cwd() / f for f in folders),
        *(checkout / f for f in folders),
    ]
    found: list[Path] = []
    for candidate in candidates:
        if not candidate:
            continue
        for folder in (Path(candidate), Path(candidate) / "solutions"):
            if folder.is_dir() and folder.resolve() not in found:
                found.append(folder.resolve())
    return found


def find_template(lab: str, labs_dir: str | Path | None = None) -> NotebookNode:
    """The course's notebook for ``lab``: the learner version when present, else the solution."""
    searched = template_dirs(labs_dir)
    for folder in searched:
        for path in sorted(folder.glob("*.ipynb")):
            try:
                notebook = nbformat.read(os.fspath(path), as_version=4)  # the course's own copy: links allowed
            except Exception:  # noqa: BLE001 - not a notebook: not the lab's template either
                continue
            if lab_in_metadata(notebook) == lab or (lab_in_metadata(notebook) is None and lab_in_name(path) == lab):
                return notebook
    raise TemplateNotFound(
        f"no notebook for Lab {lab} in {', '.join(map(str, searched)) or 'any labs folder'}; "
        f"pass --labs DIR or set {LABS_ENVIRONMENT}"
    )


def lab_named(path: str | Path) -> str | None:
    """The lab a submission will be graded as, if its file name or metadata says (``None`` for a file that is no notebook)."""
    named = lab_in_name(path)
    if named is not None:
        return named
    try:
        return lab_in_metadata(read_notebook(path))
    except NotALabNotebook:
        return None


def missing_templates(labs: Iterable[str], labs_dir: str | Path | None = None) -> str | None:
    """Why the course's notebooks for ``labs`` cannot be found, or ``None``: a set-up error, found before grading.

    Without them no submission can be graded (each lab's setup cells come from
    them), so every row would be an ``error`` 0: a plain ``pip install`` ships no
    ``labs/``, and a TA may run the command outside the checkout.
    """
    missing = []
    for lab in dict.fromkeys(labs):
        try:
            find_template(lab, labs_dir)
        except TemplateNotFound:
            missing.append(lab_registry.lab(lab).label)
    if not missing:
        return None
    searched = ", ".join(map(str, template_dirs(labs_dir)))
    where = (
        f"in {searched}"
        if searched
        else "anywhere: no labs folder exists (--labs, $COURSE_GRADE_LABS, ./labs, the checkout's labs/; a plain pip install ships none)"
    )
    return (
        f"the course's notebook for {', '.join(missing)} is not found {where}; nothing was graded. "
        f"Pass --labs DIR (the course's labs/ folder, e.g. from a clone of the course) or set {LABS_ENVIRONMENT}=DIR"
    )


_LAB_SUFFIX = re.compile(r"[\s_.-]*lab[\s_-]*\d+[\s_.-]*\d+(?!\d).*$", re.IGNORECASE)
_NOTEBOOK_SUFFIX = re.compile(
    "[\\s_.-]*(?:"
    + "|".join(
        [
            *(re.escape(entry.notebook) for entry in lab_registry.LABS.values()),
            *(
                rf"(?:lab[\s_-]*)?{entry.id}(?![a-z])"
                for entry in lab_registry.LABS.values()
                if not entry.id[0].isdigit()
            ),
        ]
    )
    + ").*$",
    re.IGNORECASE,
)
"""A lab's notebook name or a named lab (``…_lab_capstone``, ``…_capstone_v2``): not part of the student's name."""


def identify(path: str | Path, root: str | Path | None = None) -> tuple[str, str]:
    """Who submitted ``path``, and how that was decided: by where the instructor put it, never by the notebook.

    In order: the first folder under ``root`` (``DIR/alice/lab.ipynb``), the
    file name without its lab part (``alice_lab_11_3_build_context.ipynb``,
    ``carol_02_lifecycle_capstone.ipynb``), else the folder holding the file.
    The notebook's ``metadata.course.student`` is the learner's to edit, so it
    never decides; ``claimed_student`` notes when it names someone else.
    Paths are compared as written, never resolved through links.
    """
    path = Path(path)
    if root is not None:
        try:
            relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
        except ValueError:
            relative = Path(path.name)
        if len(relative.parts) > 1:
            return relative.parts[0], "folder"
    stem = _NOTEBOOK_SUFFIX.sub("", _LAB_SUFFIX.sub("", path.stem))
    if stem and lab_registry.lab_of_notebook(path.stem) is None:
        return stem, "file name"
    return Path(os.path.abspath(path)).parent.name or path.stem, "containing folder"


def claimed_student(notebook: NotebookNode, student: str) -> str | None:
    """A note when ``metadata.course.student`` names someone other than ``student`` (it is not followed)."""
    course = notebook.get("metadata", {}).get("course", {})
    named = course.get("student") if isinstance(course, dict) else None
    if not isinstance(named, str) or not named.strip() or named.strip() == student:
        return None
    return (
        f"the notebook's metadata (course.student) names {named.strip()[:80]!r}, but the file is graded as "
        f"{student}'s: its folder or file name decides who it belongs to, never the notebook"
    )


def submission_name(path: str | Path, root: str | Path | None = None) -> str:
    """How results name the file: its path under ``root`` (``alice/lab.ipynb``), else its name."""
    if root is not None:
        try:
            return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            pass
    return Path(path).name


def student_id(path: str | Path, root: str | Path | None = None) -> str:
    """The student's id alone (see ``identify``)."""
    return identify(path, root)[0]
