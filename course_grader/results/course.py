"""The course file (``course.toml``): one term's settings, validated before anything is graded.

Why a file: a term is graded many times (late work, regrades, a fixed bug), and
every regrade must give the same grades without anyone remembering flags. The
file holds the roster, the term seed (the hidden cases, ``bundle``'s secret),
per-lab limits, points and weights, the late policy and how LMS download names
are read (docs/grading.md, *The course file*). Flags still override it, and
without one everything works as before (``Course()`` is the empty course).

Validation is strict (unknown keys are errors: a typo must not silently grade
with the default; so are weights for tests a lab does not have, all-zero
weights and a test weighted twice) and every error names the file and the key.
The manifest's paths are matched to the files graded (``for_submissions``): one
that matches none is an error naming its line.
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
import tomllib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from course_lib import lab_registry

from ..errors import GradingError
from ..sandbox.kernel import Limits


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
    manifest_lines: dict[str, int] = {}
    """The manifest line of each ``submitted_at`` key (what an error about it names)."""
    fingerprint: str = ""
    """The settings and the manifest, hashed (SHA-256, 16 hex digits; comments and layout aside): the grades record
    it, so ``merge`` and ``feedback`` can tell that shards or pages were scored by the same course file. Empty for
    the empty course."""

    @property
    def stamp(self) -> str:
        """How a grades CSV records the course file (its ``course`` column): ``<fingerprint> <path>``, or empty."""
        return f"{self.fingerprint} {self.path}" if self.path is not None else ""

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
        entry is left out, for pages made from only some shards' records).
        """
        if not self.submitted_at:
            return self
        names = list(dict.fromkeys(files))
        exact = set(names)
        folded: dict[str, list[str]] = {}
        for name in names:
            folded.setdefault(name.casefold(), []).append(name)
        prefixes = _root_prefixes(root)
        matched: dict[str, datetime] = {}
        lines: dict[str, int] = {}
        where = self.manifest_path or "the manifest"
        for entry, when in self.submitted_at.items():
            line = self.manifest_lines.get(entry, 0)
            found = _match_entry(entry, exact, folded, prefixes, loose=not strict)
            problem = ""
            if isinstance(found, str) and found in matched:
                problem = (
                    f"{entry!r} names {found!r}, which line {lines[found]} ({_entry_at(self, lines[found])!r}) "
                    "already gives a time"
                )
            elif isinstance(found, list):
                problem = (
                    f"{entry!r} matches no submission under {os.fspath(root)}"
                    if not found
                    else f"{entry!r} matches {len(found)} submissions ({', '.join(found)}): write the path exactly"
                )
            if problem:
                if strict:
                    raise CourseFileError(f"manifest {where}, line {line}: {problem}")
                continue
            assert isinstance(found, str)
            matched[found], lines[found] = when, line
        return self.model_copy(update={"submitted_at": matched, "manifest_lines": lines})

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


def _entry_at(course: Course, line: int) -> str:
    return next((entry for entry, at in course.manifest_lines.items() if at == line), "")


def manifest_key(entry: str) -> str:
    """A manifest path as a path under the submissions folder: ``/`` separators, no ``./``, no doubled ``/``."""
    parts = [part for part in entry.strip().replace("\\", "/").split("/") if part not in ("", ".")]
    return "/".join(parts)


def _root_prefixes(root: str | os.PathLike[str]) -> tuple[str, ...]:
    """How a manifest may write the submissions folder in front of a path: as given, absolute, or by its name."""
    given = manifest_key(os.fspath(root))
    absolute = manifest_key(os.path.abspath(root))
    return tuple(dict.fromkeys(p for p in (given, absolute, PurePosixPath(given).name) if p))


def _match_entry(
    entry: str, exact: set[str], folded: dict[str, list[str]], prefixes: tuple[str, ...], *, loose: bool = False
) -> str | list[str]:
    """The one file ``entry`` names, else the files it could name (none, or several in another letter case).

    ``loose`` (no submissions folder known, e.g. pages from records): a path with any
    folder in front of exactly one file's path names that file.
    """
    key = manifest_key(entry)
    forms = [entry.strip(), key]
    for prefix in prefixes:
        if key.casefold().startswith(prefix.casefold() + "/"):
            forms.append(key[len(prefix) + 1 :])
    for form in forms:
        if form in exact:
            return form
    for form in forms:
        candidates = folded.get(form.casefold(), [])
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            return candidates
    if loose:
        ends = [name for name in exact if key.casefold().endswith("/" + name.casefold())]
        return ends[0] if len(ends) == 1 else ends
    return []


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
    wrong_weights = weight_problems(settings)
    if wrong_weights:
        raise CourseFileError(f"course file {path}: {'; '.join(wrong_weights)}")
    course = Course(settings=settings, path=path.resolve())
    rows: list[tuple[int, str, datetime]] = []
    if course.manifest_path is not None:
        rows = manifest_rows(course.manifest_path)
    digest = hashlib.sha256(settings.model_dump_json().encode())
    for _, file, when in sorted(rows, key=lambda row: row[1]):
        digest.update(f"\n{file}\t{iso(when)}".encode("utf-8", "surrogateescape"))
    return course.model_copy(
        update={
            "submitted_at": {file: when for _, file, when in rows},
            "manifest_lines": {file: line for line, file, _ in rows},
            "fingerprint": digest.hexdigest()[:16],
        }
    )


def lab_tests(lab: str) -> tuple[tuple[str, str], ...]:
    """Every test of ``lab`` as (number, name): its checklist tests, then its hidden ones (``H1``, …)."""
    from course_lib.checklist.runner import select

    from ..judging.hidden_cases import hidden_tests

    checklist = tuple((str(case.number), case.name) for case in select(lab))
    return checklist + tuple((f"H{index}", test.name) for index, test in enumerate(hidden_tests(lab), start=1))


def weight_problems(settings: CourseSettings) -> list[str]:
    """What is wrong with the labs' ``weights``, each naming its key.

    A weight for a test the lab does not have would be ignored (a typo
    grading with the default); all weights 0 would give everyone 0 of 0; a
    test weighted by its number and by its name would leave one of the two
    unused. Each is refused instead.
    """
    problems: list[str] = []
    for lab, lab_settings in settings.labs.items():
        weights = lab_settings.weights
        if not weights:
            continue
        tests = lab_tests(lab)
        label = lab_registry.lab(lab).label
        before = len(problems)
        known = {part for test in tests for part in test}
        for key in weights:
            if key not in known:
                problems.append(
                    f"key labs.{lab}.weights.{key}: {label} has no test {key!r} "
                    f"(its tests: {', '.join(number for number, _ in tests)}, by number or name)"
                )
        for number, name in tests:
            if number in weights and name in weights and number != name:
                problems.append(
                    f"key labs.{lab}.weights.{number}: test {number} is weighted twice, as {number!r} "
                    f"({weights[number]:g}) and by its name {name!r} ({weights[name]:g}); keep one"
                )
        if len(problems) == before and all(weights.get(number, weights.get(name, 1.0)) == 0 for number, name in tests):
            problems.append(
                f"key labs.{lab}.weights: every test of {label} weighs 0, so nobody could earn a point; "
                "give a test a weight above 0"
            )
    return problems


def read_manifest(path: Path) -> dict[str, datetime]:
    """``file,submitted_at`` rows (ISO 8601 with an offset): when each submission arrived, per the LMS."""
    return {file: when for _, file, when in manifest_rows(path)}


def manifest_rows(path: Path) -> list[tuple[int, str, datetime]]:
    """``read_manifest``'s rows with their line numbers; a file given twice is an error naming both lines."""
    try:
        with path.open(newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    except OSError as exc:
        raise CourseFileError(f"manifest {path} (late.manifest): cannot be read ({exc.strerror or exc})") from None
    found: list[tuple[int, str, datetime]] = []
    lines: dict[str, int] = {}
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
        name = row["file"].strip()
        if not name:
            raise CourseFileError(f"manifest {path}, line {number}: no file")
        if name in lines:
            raise CourseFileError(f"manifest {path}, line {number}: {name!r} is there twice (also line {lines[name]})")
        lines[name] = number
        found.append((number, name, when))
    return found


def days_late(submitted: datetime, deadline: datetime, grace_minutes: float = 0) -> int:
    """Started days past the deadline (and its grace): 1 minute late is one day late, as most syllabi count it."""
    seconds = (submitted - deadline).total_seconds() - 60 * grace_minutes
    return max(0, math.ceil(seconds / 86400)) if seconds > 0 else 0


def iso(when: datetime) -> str:
    """A time as the CSV shows it: UTC, to the microsecond (so every machine writes the same text)."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")
