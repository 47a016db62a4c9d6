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
import re
import tomllib
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from course_lib.checklist.runner import select
from course_lib.teaching import i18n, lab_registry
from course_lib.teaching.i18n import message
from course_lib.teaching.lab_registry import Lab

from ..intake.lab_names import in_sentence, lab_in_name
from ..intake.roster import KnownId
from ..judging.hidden_cases import hidden_tests
from ..notes import NOTE
from .course import IDENTITY, PRESENTATION, Course
from .course_settings import CourseFileError, CourseSettings
from .lms_times import TimesFile
from .submission_times import iso
from .times_files import named_times, pages, read_times


def _where(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(top level)"


def load_course(path: str | Path) -> Course:
    """The course file at ``path``, validated; ``CourseFileError`` names the file and the key of the first problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
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
    course = Course(settings=settings, path=path.resolve(), entry_lines=entry_lines(text))
    times = [
        read_times(pages(path.resolve().parent, file, key), key, lab, settings.late.zone)
        for key, file, lab in named_times(settings)
    ]
    if wrong := assignment_problems(times):
        raise CourseFileError(f"course file {path}: {'; '.join(wrong)}")
    # [late]'s pack manifest of one file is submitted_at from the start (as before the LMS's forms); the rest wait
    # for the files
    single = isinstance(settings.late.manifest, str)
    pack = times[0] if times and times[0].lab is None and times[0].form == "manifest" and single else None
    return course.model_copy(
        update={
            "submitted_at": {row.key: row.when for row in pack.rows} if pack else {},
            "manifest_lines": {row.key: row.line for row in pack.rows} if pack else {},
            "times": tuple(t for t in times if t is not pack),
            "fingerprint": fingerprint(settings, times, pack),
            "fingerprints_before": (fingerprint(settings, times, pack, spoken=True),),
            "known": known_ids(times),
        }
    )


def fingerprint(
    settings: CourseSettings, times: list[TimesFile], pack: TimesFile | None, *, spoken: bool = False
) -> str:
    """What scores a row, hashed (16 hex digits): the settings but who the files are and what the pages say
    (``fingerprinted``), and every time the times files give (each attempt's too). ``spoken``: as issue 32's grader
    hashed it, its language in it when not English (``Course.fingerprints_before``)."""
    digest = hashlib.sha256(fingerprinted(settings, spoken=spoken).encode())
    for times_file in times:
        if times_file is not pack:
            digest.update(f"\n{times_file.key}\t{times_file.form}".encode())
        for row in sorted(times_file.rows, key=lambda row: row.key):
            digest.update(f"\n{row.key}\t{iso(row.when)}".encode("utf-8", "surrogateescape"))
        for attempt in sorted(times_file.attempts, key=lambda attempt: attempt.attachment):
            digest.update(f"\n{attempt.attachment}\t{attempt.user}\t{iso(attempt.when)}".encode())
    return digest.hexdigest()[:16]


THE_WORKSHEET = NOTE(message("the grading worksheet {file}"))
"""Where a note says a participant's identity came from."""


def known_ids(times: list[TimesFile]) -> tuple[KnownId, ...]:
    """What the worksheets say of each participant id: the full name and identity fields (the first that says)."""
    found: dict[str, KnownId] = {}
    for times_file in times:
        for row in times_file.rows:
            if times_file.form == "moodle-worksheet" and row.identity and row.key not in found:
                source = THE_WORKSHEET(file=(row.path or times_file.path).name)
                found[row.key] = KnownId(user=row.key, name=row.name, identity=row.identity, source=source)
    return tuple(found.values())


def assignment_problems(times: list[TimesFile]) -> list[str]:
    """A lab's times file that is another assignment's: one assignment's (Canvas ``assignment_id``) for two labs, an
    assignment whose name (``include[]=assignment``) or a file whose name names another lab."""
    problems = []
    first: dict[str, TimesFile] = {}
    for times_file in times:
        if times_file.lab is None:
            continue
        lab = in_sentence(times_file.lab)
        if times_file.assignment:
            other = first.setdefault(times_file.assignment, times_file)
            if other is not times_file:
                problems.append(
                    f"key {times_file.key}: {times_file.path.name} holds the submissions of assignment "
                    f"{times_file.assignment}, as {other.key}'s {other.path.name} does: one of them is the other "
                    "lab's file (each lab's times come from its own assignment)"
                )
        titled = title_lab(times_file.title)
        if titled is not None and titled != times_file.lab:
            problems.append(
                f"key {times_file.key}: {times_file.path.name} holds the submissions of the assignment "
                f"{times_file.title!r}, not {lab}'s"
            )
        for page in dict.fromkeys([times_file.path, *(row.path for row in times_file.rows if row.path)]):
            named = lab_in_name(page)
            if named is not None and named != times_file.lab:
                problems.append(f"key {times_file.key}: {page.name} is named for {in_sentence(named)}, not {lab}")
    return problems


_TITLE_LAB = re.compile(r"\blab\s*(\d+)[\s_.-](\d+)|\b(capstone)\b", re.IGNORECASE)


def title_lab(title: str) -> str | None:
    """The lab an LMS assignment's name names (``Lab 11.3 – build_context``, ``The capstone``), if one."""
    match = _TITLE_LAB.search(title)
    if match is None:
        return None
    lab = f"{match.group(1)}.{match.group(2)}" if match.group(1) else "capstone"
    return lab if lab in lab_registry.LABS else None


_ENTRY = re.compile(r"^[ \t]*\[\[[ \t]*(extensions|overrides|decisions)[ \t]*\]\]", re.MULTILINE)


def entry_lines(text: str) -> dict[str, tuple[int, ...]]:
    """The line of each ``[[extensions]]``, ``[[overrides]]`` and ``[[decisions]]`` entry, in order: what a refusal
    of one names."""
    lines: dict[str, list[int]] = {}
    for match in _ENTRY.finditer(text):
        lines.setdefault(match.group(1), []).append(text.count("\n", 0, match.start()) + 1)
    return {table: tuple(found) for table, found in lines.items()}


def fingerprinted(settings: CourseSettings, *, spoken: bool = False) -> str:
    """The settings as the fingerprint hashes them: not who the files are (``IDENTITY``: the roster and how LMS names
    are read), which the stamp's second part records, nor what the pages speak (``PRESENTATION``: ``language``,
    ``sections``), which scores nothing (issue 45).

    So ``course-grade feedback --course course-zh.toml`` says a term's pages again in
    another language without regrading, and a course file whose roster changed scores
    the same (``merge`` takes a regrade made under it). ``spoken``: as issue 32's grader
    hashed it, ``language`` in it when not English, so grades it recorded are still
    this file's; an English course file has one fingerprint either way.
    """
    spoken_language = ("language",) if spoken and settings.language != i18n.DEFAULT else ()
    left_out = {*IDENTITY, *(key for key in PRESENTATION if key not in spoken_language)}
    return settings.model_dump_json(exclude=left_out)


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
