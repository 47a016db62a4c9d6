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
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import lab_registry

from ..intake.roster import STYLES
from ..judging.secret import resolved
from ..sandbox.limits import Limits
from .course_settings import CourseSettings, LabSettings
from .lms_times import Form, TimesFile
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
    fingerprint: str = ""
    """The settings and the manifest, hashed (SHA-256, 16 hex digits; comments and layout aside): the grades record
    it, so ``merge`` and ``feedback`` can tell that shards or pages were scored by the same course file. Empty for
    the empty course."""

    @property
    def stamp(self) -> str:
        """How a grades CSV records the course file (its ``course`` column): ``<fingerprint> <path>``, or empty."""
        return f"{self.fingerprint} {self.path}" if self.path is not None else ""

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
        return self._relative(self.settings.late.manifest) if self.settings.late.submitted == "manifest" else None

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
                "times": (),
            }
        )

    @property
    def name_patterns(self) -> tuple[str, ...]:
        """How LMS download names are read (``names``, or the course's own ``pattern``)."""
        return (self.settings.pattern,) if self.settings.pattern else STYLES[self.settings.names]

    def times_file(self, lab: str) -> str:
        """The name of the times file for ``lab``'s submissions (its own, else ``[late] manifest``'s), or empty."""
        named = self.lab(lab).manifest or self.settings.late.manifest
        return Path(named).name if named else ""

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


NO_COURSE = Course()
"""No course file: one point per test, nothing late, limits and seed from the flags (a default argument)."""
