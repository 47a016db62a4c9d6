"""Loading the course file (``course.toml``) and refusing bad input before anything is graded.

Validation is strict (unknown keys are errors: a typo must not silently grade
with the default; so are weights for tests a lab does not have, all-zero
weights and a test weighted twice) and every error names the file and the key
(docs/grading.md, *The course file*). What the keys may hold is
``course_settings``; the times files a late policy names are read here too
(``times_files``: the pack's manifest, Moodle's grading worksheet, Canvas's
submissions JSON), and the whole is fingerprinted, so the grades can say
which course file scored them.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from course_lib.checklist.runner import select
from course_lib.teaching import i18n, lab_registry
from course_lib.teaching.lab_registry import Lab

from ..judging.hidden_cases import hidden_tests
from .course import Course
from .course_settings import CourseFileError, CourseSettings
from .submission_times import iso
from .times_files import named_times, read_times


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
    wrong = weight_problems(settings) + override_problems(settings) + late_problems(settings)
    if wrong:
        raise CourseFileError(f"course file {path}: {'; '.join(wrong)}")
    course = Course(settings=settings, path=path.resolve())
    times = [
        read_times(path.resolve().parent / file, key, lab, settings.late.zone)
        for key, file, lab in named_times(settings)
    ]
    # [late]'s pack manifest is submitted_at from the start (as before the LMS's forms); the rest wait for the files
    pack = times[0] if times and times[0].lab is None and times[0].form == "manifest" else None
    digest = hashlib.sha256(fingerprinted(settings).encode())
    for times_file in times:
        rows = sorted(times_file.rows, key=lambda row: row.key)
        if times_file is not pack:
            digest.update(f"\n{times_file.key}\t{times_file.form}".encode())
        for row in rows:
            digest.update(f"\n{row.key}\t{iso(row.when)}".encode("utf-8", "surrogateescape"))
    return course.model_copy(
        update={
            "submitted_at": {row.key: row.when for row in pack.rows} if pack else {},
            "manifest_lines": {row.key: row.line for row in pack.rows} if pack else {},
            "times": tuple(t for t in times if t is not pack),
            "fingerprint": digest.hexdigest()[:16],
        }
    )


def fingerprinted(settings: CourseSettings) -> str:
    """The settings as the fingerprint hashes them: ``language`` only when it is not English.

    The run's language is recorded where its settings are (the grades' ``course``
    column holds the fingerprint), so ``feedback`` and ``report`` speak it again and a
    file whose language changed since grading is not the one the grades were made by;
    an English course file keeps the fingerprint it had before the key existed.
    """
    return settings.model_dump_json(exclude={"language"} if settings.language == i18n.DEFAULT else None)


def late_problems(settings: CourseSettings) -> list[str]:
    """A times file asked for and none named, or one named where no time is read from a file (it would be ignored)."""
    late = settings.late
    per_lab = [lab for lab, lab_settings in settings.labs.items() if lab_settings.manifest]
    if late.submitted == "manifest" and not late.manifest and not per_lab:
        return [
            'key late: submitted = "manifest" needs manifest = "FILE" (every lab\'s times), '
            'or a lab\'s own ([labs."11.3"] manifest = "FILE")'
        ]
    return [
        f'key labs.{lab}.manifest: a times file is read only with [late] submitted = "manifest" '
        f"(it is {late.submitted!r})"
        for lab in per_lab
        if late.submitted != "manifest"
    ]


def lab_tests(lab: Lab) -> tuple[tuple[str, str], ...]:
    """Every test of ``lab`` as (number, name): its checklist tests, then its hidden ones (``H1``, …)."""
    checklist = tuple((str(case.number), case.name) for case in select(lab.id))
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
        entry = lab_registry.lab(lab)  # the course file's key, read as the registry's entry
        tests = lab_tests(entry)
        label = entry.label
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


def override_problems(settings: CourseSettings) -> list[str]:
    """The overrides over their lab's ``points`` (where the course file sets them): no score is out of more."""
    problems = []
    for override in settings.overrides:
        points = settings.labs[override.lab].points if override.lab in settings.labs else None
        if points is not None and override.score > points:
            problems.append(
                f"overrides: {override.student}'s score for {override.lab} is {override.score:g}, "
                f"over the lab's {points:g} points"
            )
    return problems
