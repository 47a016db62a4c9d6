"""The course file (``course.toml``): one term's settings, validated before anything is graded.

Why a file: a term is graded many times (late work, regrades, a fixed bug), and
every regrade must give the same grades without anyone remembering flags. The
file holds the roster, the term seed (the hidden cases, ``bundle``'s secret),
per-lab limits, points and weights, the late policy and how LMS download names
are read (docs/grading.md, *The course file*). Flags still override it, and
without one everything works as before (``Course()`` is the empty course).

Validation is strict (unknown keys are errors: a typo must not silently grade
with the default) and every error names the file and the key.
"""

from __future__ import annotations

import csv
import math
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from course_lib import lab_registry

from .errors import GradingError
from .sandbox import Limits


class CourseFileError(GradingError):
    """The course file (or a file it names) is missing, not TOML, or has a key that is unknown or wrong."""


Positive = Annotated[float, Field(gt=0)]
Percent = Annotated[float, Field(ge=0, le=100)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LimitSettings(_Strict):
    """``--timeout``/``--memory``/``--budget`` for every lab (``[limits]``) or one (``[labs."11.3"]``)."""

    timeout: Positive | None = None
    memory: Annotated[int, Field(gt=0)] | None = None
    budget: Positive | None = None

    def over(self, limits: Limits) -> Limits:
        """``limits`` with the values set here."""
        return Limits(
            cell_timeout=self.timeout or limits.cell_timeout,
            memory_mb=self.memory or limits.memory_mb,
            budget=self.budget or limits.budget,
        )


class LabSettings(LimitSettings):
    """One lab's points, weights, deadline, gradebook column and limits."""

    points: Positive | None = None
    """What the lab is worth; its tests share it by weight. Unset: one point per unit of weight (1 per test)."""
    weights: dict[str, Annotated[float, Field(ge=0)]] = {}
    """A test's share of the points, by number (``"7"``, ``"H1"``) or name; 1 when not listed."""
    deadline: datetime | None = None
    """When the lab is due (TOML date-time with an offset, e.g. ``2026-10-09T23:59:00+02:00``)."""
    column: str | None = None
    """The lab's column name in the exported gradebook (default ``Lab 11.3``, ``The capstone``)."""

    @field_validator("deadline")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError(
                "a deadline needs a time zone offset (e.g. 2026-10-09T23:59:00+02:00 or …Z), "
                "or every machine would read it in its own zone"
            )
        return value


class LatePolicy(_Strict):
    """How late work loses points: a percent of the lab's points per started day late, up to a cap."""

    submitted: Literal["manifest", "file-name", "none"] = "none"
    """Where a submission's time comes from: a manifest CSV (``file,submitted_at``), the LMS name's ``LATE`` flag, or nowhere."""
    manifest: str | None = None
    """The manifest CSV, relative to the course file: ``file`` (the path under the submissions folder), ``submitted_at``."""
    percent_per_day: Percent = 0
    max_percent: Percent = 100
    grace_minutes: Annotated[float, Field(ge=0)] = 0
    flag_percent: Percent | None = None
    """The penalty for a ``LATE`` flag when no time is known (default: one day's, ``percent_per_day``)."""

    @model_validator(mode="after")
    def _manifest_named(self) -> LatePolicy:
        if self.submitted == "manifest" and not self.manifest:
            raise ValueError('submitted = "manifest" needs manifest = "FILE.csv"')
        return self


Duplicates = Literal["latest", "earliest", "best"]
NAME_STYLES = ("auto", "canvas", "moodle", "plain")


class CourseSettings(_Strict):
    """The file as written (paths still relative to it); ``Course`` is what grading uses."""

    name: str = ""
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    roster: str | None = None
    names: Literal["auto", "canvas", "moodle", "plain"] = "auto"
    """How LMS download names are read (``roster.py``): Canvas, Moodle, either (``auto``), or folder/file name only."""
    pattern: str | None = None
    """A regular expression for another LMS: named groups ``login``, ``user``, ``name``, ``late``, ``submission``."""
    duplicates: Duplicates = "latest"
    limits: LimitSettings = LimitSettings()
    late: LatePolicy = LatePolicy()
    labs: dict[str, LabSettings] = {}

    @field_validator("labs")
    @classmethod
    def _known_labs(cls, labs: dict[str, LabSettings]) -> dict[str, LabSettings]:
        unknown = [key for key in labs if key not in lab_registry.LABS]
        if unknown:
            raise ValueError(f"no lab {', '.join(map(repr, unknown))}; the labs are {', '.join(lab_registry.LABS)}")
        return labs

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            import re

            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"not a regular expression ({exc})") from None
            if not {"login", "user", "name"} & set(compiled.groupindex):
                raise ValueError("the pattern needs a named group login, user or name: (?P<login>…)")
        return pattern


class Course(BaseModel):
    """A term's settings, resolved: paths absolute, the manifest read. ``Course()`` is the empty course (today's behaviour)."""

    model_config = ConfigDict(frozen=True)

    settings: CourseSettings = CourseSettings()
    path: Path | None = None
    """The course file, when there is one (its folder anchors the relative paths in it)."""
    submitted_at: dict[str, datetime] = {}
    """The manifest: when each file (its path under the submissions folder) was submitted."""

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


def _where(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(top level)"


def load_course(path: str | Path) -> Course:
    """The course file at ``path``, validated; ``CourseFileError`` names the file and the key of the first problem."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CourseFileError(f"course file {path}: cannot be read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CourseFileError(f"course file {path}: not valid TOML ({exc})") from None
    try:
        settings = CourseSettings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"key {_where(e)}: {e['msg']}" for e in exc.errors())
        raise CourseFileError(f"course file {path}: {problems}") from None
    course = Course(settings=settings, path=path.resolve())
    if settings.late.submitted == "manifest":
        manifest = course._relative(settings.late.manifest)
        assert manifest is not None  # the validator requires it
        course = course.model_copy(update={"submitted_at": read_manifest(manifest)})
    return course


def read_manifest(path: Path) -> dict[str, datetime]:
    """``file,submitted_at`` rows (ISO 8601 with an offset): when each submission arrived, per the LMS."""
    try:
        with path.open(newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    except OSError as exc:
        raise CourseFileError(f"manifest {path} (late.manifest): cannot be read ({exc.strerror or exc})") from None
    times: dict[str, datetime] = {}
    for number, row in enumerate(rows, start=2):
        if "file" not in row or "submitted_at" not in row:
            raise CourseFileError(f"manifest {path}: needs the columns file,submitted_at")
        try:
            when = datetime.fromisoformat(row["submitted_at"].strip().replace("Z", "+00:00"))
        except ValueError:
            raise CourseFileError(
                f"manifest {path}, line {number}: submitted_at {row['submitted_at']!r} is not an ISO 8601 time"
            ) from None
        if when.tzinfo is None:
            raise CourseFileError(
                f"manifest {path}, line {number}: submitted_at {row['submitted_at']!r} has no time zone"
            )
        times[row["file"].strip()] = when
    return times


def days_late(submitted: datetime, deadline: datetime, grace_minutes: float = 0) -> int:
    """Started days past the deadline (and its grace): 1 minute late is one day late, as most syllabi count it."""
    seconds = (submitted - deadline).total_seconds() - 60 * grace_minutes
    return max(0, math.ceil(seconds / 86400)) if seconds > 0 else 0


def iso(when: datetime) -> str:
    """A time as the CSV shows it: UTC, to the microsecond (so every machine writes the same text)."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")
