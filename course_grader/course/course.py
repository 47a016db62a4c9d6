"""The course, resolved: one term's settings as grading uses them (paths absolute, the manifest read).

Why a file: a term is graded many times (late work, regrades, a fixed bug), and
every regrade must give the same grades without anyone remembering flags. The
file holds the roster, the term seed (the hidden cases, ``bundle``'s secret),
per-lab limits, points and weights, the late policy and how LMS download names
are read (docs/grading.md, *The course file*). Flags still override it, and
without one everything works as before (``Course()`` is the empty course).

The file as written is ``course_settings``; reading and refusing it is
``course_file`` (``load_course``); its manifest is ``manifest``, whose paths are
matched to the files graded here (``for_submissions``): one that matches none
is an error naming its line. So are the LMS's own times files (Moodle's
grading worksheet, Canvas's submissions JSON: ``times_files``), by the ids
their download names carry (``times_matching``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import i18n, lab_registry

from ..intake.roster import STYLES, KnownId, Names, Roster, assignment
from ..judging.secret import resolved
from ..messages import MESSAGES
from ..sandbox.limits import Limits
from .course_settings import CourseSettings, LabSettings
from .lms_times import FORM_NAMES, Form, TimesFile
from .manifest import match_manifest
from .times_matching import Timed, match_times


class Course(BaseModel):
    """A term's settings, resolved: paths absolute, the manifest read. ``Course()`` is the empty course (today's behaviour)."""

    model_config = ConfigDict(frozen=True)

    settings: CourseSettings = CourseSettings()
    path: Path | None = None
    """The course file, when there is one (its folder anchors the relative paths in it)."""
    submitted_at: dict[str, datetime] = {}
    """The manifest: when each file (its path under the submissions folder) was submitted."""
    manifest_lines: dict[str, int] = {}
    """The manifest line of each ``submitted_at`` key (what an error about it names)."""
    times: tuple[TimesFile, ...] = ()
    """The times files not yet matched to the files graded: every one but a ``[late] manifest`` of the pack's form,
    whose rows are ``submitted_at`` from the start (``for_submissions`` matches them all)."""
    submitted_from: dict[str, Form] = {}
    """Which form of file gave each ``submitted_at`` (``moodle-worksheet``, ``canvas-submissions``); ``manifest``
    when not listed."""
    handed_in: dict[str, str] = {}
    """The lab of the assignment each file was handed in to, where its lab's own times file says (its attachment
    in Canvas's attempts, its participant id in Moodle's worksheet); a folder named for a lab says it too
    (``assignment_of``)."""
    caveats: dict[str, str] = {}
    """Why a file's time is not its own (one time for several of a student's files), for its row's notes."""
    fingerprint: str = ""
    """What scores a row, hashed (SHA-256, 16 hex digits; comments and layout aside): the settings but who the files
    are (``IDENTITY``) and the times files. The grades record it, so ``merge`` and ``feedback`` can tell that shards
    or pages were scored by the same course file. Empty for the empty course."""
    fingerprints_before: tuple[str, ...] = ()
    """The fingerprints an earlier grader recorded for this same file (issue 32's held a non-English ``language``):
    grades stamped with one were scored by it (``scored``)."""
    student_languages: dict[str, str] = {}
    """The language of each roster student whose section has one of its own (``[sections."…"] language``), once a
    run knows the roster (``identified``); every other student's is ``language``."""
    identity: str = ""
    """Who the files are, as the run read them (``Names.digest``: the roster and the LMS names), once a run sets it
    (``identified``): the stamp's second part, so ``merge`` tells a regrade under another roster from another score."""
    known: tuple[KnownId, ...] = ()
    """What the worksheets say of each participant id (its name, ID number, email): who a Moodle name is."""
    entry_lines: dict[str, tuple[int, ...]] = {}
    """The line of each ``[[extensions]]``, ``[[overrides]]`` and ``[[decisions]]`` entry, in order."""

    @property
    def stamp(self) -> str:
        """How a grades CSV records the course file (its ``course`` column): ``<fingerprint>[.<identity>] <path>``,
        or empty."""
        token = f"{self.fingerprint}.{self.identity}" if self.identity else self.fingerprint
        return f"{token} {self.path}" if self.path is not None else ""

    def identified(self, names: Names | None) -> Course:
        """The course as a run under ``names`` uses it: its stamp records who they make the files, and each roster
        student speaks their section's language."""
        if names is None or not self.path:
            return self
        return self.speaking(names.roster).model_copy(update={"identity": names.digest()})

    def speaking(self, roster: Roster | None) -> Course:
        """The course with each student of ``roster`` speaking their section's language (``language_of``)."""
        return self.model_copy(update={"student_languages": self.languages(roster)})

    def languages(self, roster: Roster | None) -> dict[str, str]:
        """Each student of ``roster`` with a language of their own: their row's (the pack's roster's ``language``
        column), else their section's (``[sections."…"]``)."""
        if roster is None:
            return {}
        sections = self.settings.sections
        spoken = {s.id: sections[s.section].language for s in roster.students if s.section in sections}
        return spoken | {s.id: s.language for s in roster.students if s.language}

    def language_of(self, student: str) -> str:
        """What ``student``'s pages and score explanations say: their section's language, else the course's."""
        return self.student_languages.get(student, self.language)

    def scored(self, fingerprint: str) -> bool:
        """Whether grades stamped with ``fingerprint`` were scored by this file (what pages say aside)."""
        return fingerprint in (self.fingerprint, *self.fingerprints_before)

    @property
    def decided(self) -> dict[tuple[str, str], tuple[str, str]]:
        """The ``[[decisions]]``: (student, lab) → (the file that counts, the reason)."""
        return {(d.student, d.lab): (d.counts, d.reason) for d in self.settings.decisions}

    def entry(self, table: str, index: int) -> str:
        """Where a refusal of the ``index``-th entry of ``[[table]]`` points: ``course file F, line 31 ([[overrides]] 2)``."""
        lines = self.entry_lines.get(table, ())
        line = f", line {lines[index]}" if index < len(lines) else ""
        return f"course file {self.path}{line} ([[{table}]] {index + 1})"

    @property
    def language(self) -> str:
        """What the run speaks to its learners and its instructor (the course file's ``language``, else English)."""
        return self.settings.language

    @property
    def secret(self) -> str | None:
        """The term's secret: the course file's ``seed``, or the one in the file it names (``WeakSecret`` if unusable).

        Read only where hidden cases are drawn (grading, ``bundle``): ``report``, ``export`` or ``rescore`` with
        the course file need no secret, so its file can stay with whoever grades."""
        seed = self.settings.seed
        return None if seed is None else resolved(seed, self.path.parent if self.path is not None else Path("."))

    @property
    def manifest_path(self) -> Path | None:
        """``[late] manifest`` when it is one file (``submitted_at`` holds its rows), else ``None``."""
        named = self.settings.late.manifest
        return self._relative(named) if self.settings.late.submitted == "manifest" and isinstance(named, str) else None

    def for_submissions(self, files: Iterable[str], root: str | os.PathLike[str], *, strict: bool = True) -> Course:
        """The course with its manifest's entries matched to the files graded (their paths under ``root``).

        An instructor writes a manifest by hand or from an LMS export: ``./alice/x.ipynb``,
        ``Alice/X.ipynb`` or ``submissions/alice/x.ipynb`` all mean ``alice/x.ipynb``
        (``manifest_key``), so they are matched as that; an entry that matches no
        file, several, or a file another entry already gave a time is a
        ``CourseFileError`` naming the manifest line (``strict``; otherwise such an
        entry is left out, for pages made from only some shards' records). The
        LMS's times files are matched by the ids in the download names, as
        strictly (``times_matching``), and a file two rows give a time is refused.
        """
        if not self.submitted_at and not self.times:
            return self
        files = list(files)
        where = self.manifest_path or "the manifest"
        matched, lines = match_manifest(self.submitted_at, self.manifest_lines, files, root, where=where, strict=strict)
        already = {
            file: Timed(
                when, self.submitted_from.get(file, "manifest"), lines[file], f"manifest {where}, line {lines[file]}"
            )
            for file, when in matched.items()
        }
        timed = match_times(self.times, files, root, self.name_patterns, already=already, strict=strict)
        return self.model_copy(
            update={
                "submitted_at": {file: t.when for file, t in timed.items()},
                "manifest_lines": {file: t.line for file, t in timed.items()},
                "submitted_from": {file: t.form for file, t in timed.items() if t.form != "manifest"},
                "handed_in": {file: t.assignment for file, t in timed.items() if t.assignment is not None},
                "caveats": {file: t.caveat for file, t in timed.items() if t.caveat},
                "times": (),
            }
        )

    def assignment_of(self, file: str, language: str = i18n.DEFAULT) -> tuple[str, str] | None:
        """The lab of the assignment ``file`` was handed in to and what says so in ``language`` (its folder, its
        times file), if anything does."""
        folder = assignment(file)
        if folder is not None:
            return folder.lab, MESSAGES("its folder {folder}/", language).format(folder=folder.folder)
        lab = self.handed_in.get(file)
        if lab is None:
            return None
        form = MESSAGES(FORM_NAMES[self.submitted_from.get(file, "manifest")], language)
        return lab, MESSAGES("its {form}, {file}", language).format(form=form, file=self.times_file(lab))

    @property
    def name_patterns(self) -> tuple[str, ...]:
        """How LMS download names are read (``names``, or the course's own ``pattern``)."""
        return (self.settings.pattern,) if self.settings.pattern else STYLES[self.settings.names]

    def times_file(self, lab: str) -> str:
        """The name of the times file for ``lab``'s submissions (its own, else ``[late] manifest``'s), or empty."""
        named = self.lab(lab).manifest or self.settings.late.manifest
        if not named:
            return ""
        return Path(named).name if isinstance(named, str) else ", ".join(Path(name).name for name in named)

    @property
    def roster_path(self) -> Path | None:
        return self._relative(self.settings.roster)

    def _relative(self, name: str | None) -> Path | None:
        if name is None:
            return None
        folder = self.path.parent if self.path is not None else Path(".")
        return folder / name

    def lab(self, lab: str) -> LabSettings:
        return self.settings.labs.get(lab, LabSettings())

    def limits(self, lab: str | None, base: Limits) -> Limits:
        """``base`` (the defaults, or the flags) under ``[limits]``, under ``[labs."…"]``: the most specific wins."""
        limits = self.settings.limits.over(base)
        return self.lab(lab).over(limits) if lab else limits

    def column(self, lab: str) -> str:
        return self.lab(lab).column or lab_registry.lab(lab).label


IDENTITY = frozenset({"roster", "names", "pattern"})
"""The course file's keys that say who the files are, not what they score: its stamp's second part records them."""
PRESENTATION = frozenset({"language", "sections"})
"""The course file's keys that say what the pages speak, not what they score: no fingerprint holds them (issue 45)."""


@dataclass(frozen=True)
class Stamp:
    """A grades CSV's ``course`` cell read: the fingerprint of what scored the row, who its files were read as, and
    the course file's path (``Course.stamp``; an older grader's has no identity, none has no course file)."""

    fingerprint: str
    identity: str
    path: str

    @classmethod
    def read(cls, cell: str) -> Stamp:
        token, _, path = cell.partition(" ")
        fingerprint, _, identity = token.partition(".")
        return cls(fingerprint or "none", identity, path)


NO_COURSE = Course()
"""No course file: one point per test, nothing late, limits and seed from the flags (a default argument)."""
