"""The course file (``course.toml``) as written: its keys, their types and limits, each a model that forbids the rest.

Why strict models: a term is graded many times, and a typo must not silently
grade with the default, so an unknown key is an error, and so is a value out
of range (a negative limit, a penalty over 100 %, a deadline without a time
zone, a lab that does not exist, a pattern that does not compile). pydantic
names the key in each error; ``course_file`` adds the file's name and refuses
what a model alone cannot see (weights for tests a lab does not have).
``Course`` (``course.py``) is what grading uses: these settings, resolved.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from course_lib.teaching import i18n, lab_registry

from ..errors import GradingError
from ..judging.secret import names_file, weakness
from ..sandbox.limits import Limits
from .per_student import Decision, Extension, Override, twice


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
    manifest: str | tuple[str, ...] | None = None
    """This lab's submission times (one LMS assignment per lab), relative to the course file: a file of a form
    ``[late] manifest`` takes (or its pages: several files, or a folder of them), read for the files handed in to
    this lab's assignment only (``[late] submitted = "manifest"``)."""

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
    """Where a submission's time comes from: a times file (the manifest), the LMS name's ``LATE`` flag, or nowhere."""
    manifest: str | tuple[str, ...] | None = None
    """The times file, relative to the course file, recognised by its header: the pack's CSV ``file,submitted_at``
    (``file`` the path under the submissions folder), Moodle's grading worksheet, or Canvas's submissions JSON; or
    its pages (a list of files, or a folder of them: the Canvas API answers in pages of 100)."""
    timezone: str | None = None
    """The IANA time zone Moodle's worksheet times are in (``Europe/Berlin``): the Moodle user's, who downloaded it."""
    percent_per_day: Percent = 0
    max_percent: Percent = 100
    grace_minutes: Annotated[float, Field(ge=0)] = 0
    flag_percent: Percent | None = None
    """The penalty for a ``LATE`` flag when no time is known (default: one day's, ``percent_per_day``)."""
    wrong_assignment: Literal["stricter", "assignment", "lab"] = "stricter"
    """The deadline of a file handed in to another lab's assignment: the stricter of that assignment's and the lab's
    own (default), the assignment's alone, or the lab's alone (``scoring``)."""
    flag: Literal["flat", "lms"] = "flat"
    """What a ``LATE`` flag alone does: ``flat``, cost ``flag_percent``; ``lms``, nothing here, since the LMS's own
    late policy deducts (Canvas's usual way: it knows the time); the row's explanation says which applied."""

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(
                    f"no time zone {value!r} (an IANA name, e.g. Europe/Berlin, America/New_York, UTC)"
                ) from None
        return value

    @property
    def zone(self) -> ZoneInfo | None:
        return ZoneInfo(self.timezone) if self.timezone is not None else None


def spoken(value: str) -> str:
    """One of the languages the course speaks, as ``course_lib.teaching.i18n`` names it (``zh_CN`` and ``zh-Hans`` are ``zh``)."""
    try:
        return i18n.parse_language(value, "language")
    except i18n.UnknownLanguageError:
        raise ValueError(f"unknown language {value!r}; the course speaks {', '.join(i18n.LANGUAGES)}") from None


class SectionSettings(_Strict):
    """``[sections."Section B"]``: what one roster section's pages say (issue 45); its students are graded alike."""

    language: str
    """The language of this section's feedback pages, score explanations and messages (``en``, ``zh``)."""

    @field_validator("language")
    @classmethod
    def _spoken(cls, value: str) -> str:
        return spoken(value)


Duplicates = Literal["latest", "earliest", "best"]
NAME_STYLES = ("auto", "canvas", "moodle", "plain")


class CourseSettings(_Strict):
    """The file as written (paths still relative to it); ``Course`` is what grading uses."""

    name: str = ""
    language: str = i18n.DEFAULT
    """What the run's feedback pages, class report and score explanations speak (``en``, ``zh``; issue 32): every
    student's, but those of a section with a language of its own (``sections``)."""
    sections: dict[str, SectionSettings] = {}
    """Per roster section (its ``Section`` column, Canvas's; ``section`` in the pack's roster), a language of its own:
    one run writes Chinese pages for one section and English ones for another (issue 45)."""
    seed: str | None = None
    """The term's secret (``course-grade secret`` writes one), or the name of the file holding it (``term.secret``,
    relative to the course file); a number, a date or a short text is refused (``judging/secret.py``, issue 43)."""
    roster: str | None = None
    names: Literal["auto", "canvas", "moodle", "plain"] = "auto"
    """How LMS download names are read (``roster.py``): Canvas, Moodle, either (``auto``), or folder/file name only."""
    pattern: str | None = None
    """A regular expression for another LMS: named groups ``login``, ``user``, ``name``, ``late``, ``submission``."""
    duplicates: Duplicates = "latest"
    limits: LimitSettings = LimitSettings()
    late: LatePolicy = LatePolicy()
    labs: dict[str, LabSettings] = {}
    extensions: tuple[Extension, ...] = ()
    overrides: tuple[Override, ...] = ()
    decisions: tuple[Decision, ...] = ()

    @model_validator(mode="after")
    def _once_each(self) -> CourseSettings:
        repeated = (
            twice(self.extensions, "extensions")
            + twice(self.overrides, "overrides")
            + twice(self.decisions, "decisions")
        )
        if repeated:
            raise ValueError("; ".join(repeated))
        return self

    def extension(self, student: str, lab: str) -> Extension | None:
        return next((e for e in self.extensions if e.student == student and e.lab == lab), None)

    def override(self, student: str, lab: str) -> Override | None:
        return next((o for o in self.overrides if o.student == student and o.lab == lab), None)

    def decision(self, student: str, lab: str) -> Decision | None:
        return next((d for d in self.decisions if d.student == student and d.lab == lab), None)

    @field_validator("seed", mode="before")
    @classmethod
    def _secret(cls, value: object) -> object:
        """A value that is no file name must be a secret: never a number or a date a person picks."""
        if value is None or (isinstance(value, str) and names_file(value)):
            return value
        if (why := weakness(value)) is not None:
            raise ValueError(
                f'{why}; run course-grade secret term.secret and write seed = "term.secret" (or its value)'
            )
        return value

    @field_validator("language")
    @classmethod
    def _spoken(cls, value: str) -> str:
        return spoken(value)

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
