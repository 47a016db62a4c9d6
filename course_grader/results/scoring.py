"""A graded submission's score under the course's points, weights and late policy, as one small record.

Why a record of its own: the CSV, the gradebook export and each student's
feedback page must show the same number with the same reason, so it is
computed once, here (``score``), from the ``GradeResult`` and the ``Course``
alone. Without a course file every test is worth 1 point and nothing is late,
so ``points`` is today's ``total``.

The rules (docs/grading.md, *The course file*):

- a test's points are its weight (``[labs."11.3"].weights``, by number or
  name, default 1), scaled so the lab's tests add up to its ``points`` when
  that is set; a test scored partly earns that part of its points;
- a submission is late by the started days between the lab's ``deadline``
  (plus ``grace_minutes``) and its time (``late.submitted``: the one its
  times file gives, the pack's manifest, Moodle's grading worksheet or
  Canvas's submissions JSON, or the LMS name's ``LATE`` flag, which carries
  no time and costs ``flag_percent``); it loses ``percent_per_day`` per day of the points
  it earned, at most ``max_percent``;
- a student's ``[[extensions]]`` entry for the lab is their deadline; their
  ``[[overrides]]`` entry is their score, whatever the tests and lateness
  gave (``per_student.py``); the explanation says which applied and why.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import message

from ..course.course import NO_COURSE, Course
from ..course.per_student import Extension
from ..course.submission_times import days_late, iso
from ..intake.roster import assignment, read_lms_name
from ..judging.verdicts import GradeResult, TestResult
from ..messages import MESSAGES


class Score(BaseModel):
    """What a submission scores for the course: shown in the CSV, the gradebook and the feedback page."""

    model_config = ConfigDict(frozen=True)

    points: float
    """Earned by the tests, after weights (before any late penalty)."""
    max_points: float
    penalty: float = 0.0
    """Points taken off for lateness."""
    score: float
    """``points - penalty``: what the gradebook gets."""
    late: str = ""
    """``""`` (on time, or no deadline), ``"2 days"``, ``"LATE flag"``."""
    submitted: str = ""
    """When it was submitted (UTC, ISO 8601), when the course knows (the manifest)."""
    explanation: str
    """One line: how ``score`` came about, e.g. ``7/9 tests passed: 15.6/20 points; 2 days late: −20 % → 12.4/20``."""


def _places(value: float) -> float:
    return round(value + 0.0, 2)


def points_per_test(result: GradeResult, course: Course) -> dict[str, float]:
    """Each test's points, by number: its weight, scaled to the lab's ``points`` when set."""
    if result.lab is None:
        return {}
    settings = course.lab(result.lab)

    def weight(test: TestResult) -> float:
        return settings.weights.get(test.number, settings.weights.get(test.name, 1.0))

    weights = {test.number: weight(test) * test.max_score for test in result.tests}
    total = sum(weights.values())
    if settings.points is None or not total:
        return weights
    return {number: settings.points * w / total for number, w in weights.items()}


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def score(result: GradeResult, course: Course = NO_COURSE) -> Score:
    """``result``'s points under ``course``'s weights, and its late penalty; see the module's rules.

    The explanation is in the course's language (``Course.language``); the numbers never depend on it.
    """
    language = course.language_of(result.student)
    if result.lab is None:
        return Score(
            points=0.0,
            max_points=0.0,
            score=0.0,
            explanation=MESSAGES("not graded: no lab (see the notes)", language),
        )
    worth = points_per_test(result, course)
    earned = sum(worth[t.number] * (t.score / t.max_score if t.max_score else 0.0) for t in result.tests)
    points, max_points = _places(earned), _places(sum(worth.values()))
    passed = sum(test.passed for test in result.tests)
    line = MESSAGES("{passed}/{total} tests passed: {points}/{max_points} points", language).format(
        passed=passed, total=len(result.tests), points=_fmt(points), max_points=_fmt(max_points)
    )
    late, percent, why = _lateness(result, course)
    submitted = course.submitted_at.get(result.submission)
    penalty = _places(points * percent / 100)
    if why:
        line += MESSAGES("; ", language) + why
    if penalty:
        line += f" = −{_fmt(penalty)} → {_fmt(points - penalty)}/{_fmt(max_points)}"
    if (override := course.settings.override(result.student, result.lab)) is not None:
        # the override stands for what the tests and lateness gave: its points, no penalty (score = points − penalty
        # holds, which merge checks); the explanation keeps what they gave
        points, penalty = _places(override.score), 0.0
        line += MESSAGES("; ", language)
        line += MESSAGES("score set to {score}/{max_points} by the course file ({reason})", language).format(
            score=_fmt(points), max_points=_fmt(max_points), reason=override.reason
        )
    return Score(
        points=points,
        max_points=max_points,
        penalty=penalty,
        score=_places(points - penalty),
        late=late,
        submitted=iso(submitted) if submitted else "",
        explanation=line,
    )


def _days(days: int) -> str:
    """The CSV's ``late`` value: ``1 day``, ``2 days`` (a value of the grades' own, in English like the columns)."""
    return f"{days} day{'s' * (days != 1)}"


def _lateness(result: GradeResult, course: Course) -> tuple[str, float, str]:
    """How late (``late``), the percent lost, and the phrase saying so; nothing without a deadline or a LATE flag.

    A file handed in to another lab's assignment (its folder, or its lab's LMS
    times file: ``Course.assignment_of``) is late by the stricter of that
    assignment's deadline and the lab's own, or by the one ``[late]
    wrong_assignment`` names: a Lab 11.2 notebook handed in through the 11.3
    assignment a week after 11.2's deadline is a week late, not on time by 11.3's.
    A ``LATE`` flag (``submitted = "file-name"``) costs its percent even where
    the course file gives the lab no deadline: the LMS flagged it by the
    deadline of the assignment it was handed in to. The phrase is in the
    course's language.
    """
    policy = course.settings.late
    assigned = course.assignment_of(result.submission, course.language_of(result.student))
    lab = assigned[0] if assigned is not None else result.lab or ""
    deadlines = _deadlines(result, course, lab)
    if policy.submitted == "none" or (not deadlines and policy.submitted == "manifest"):
        return "", 0.0, ""
    if policy.submitted == "manifest":
        return _by_time(result, course, deadlines, assigned)
    extension = course.settings.extension(result.student, lab)
    through = _through(result, course, assigned, lab, extension)
    return _by_flag(result, course, lab, course.lab(lab).deadline is not None, extension, through)


def _deadlines(result: GradeResult, course: Course, lab: str) -> list[tuple[str, datetime, Extension | None]]:
    """The deadlines a file is late by, each with its lab and the student's extension of it: the assignment's it was
    handed in to and, when that is another lab's, the lab's own too, or only the one ``[late] wrong_assignment`` says."""
    graded = result.lab or lab
    labs = [lab]
    if graded != lab:
        rule = course.settings.late.wrong_assignment
        labs = [lab, graded] if rule == "stricter" else [lab] if rule == "assignment" else [graded]
    found = []
    for each in labs:
        extension = course.settings.extension(result.student, each)
        deadline = extension.deadline if extension is not None else course.lab(each).deadline
        if deadline is not None:
            found.append((each, deadline, extension))
    return found


def _by_flag(
    result: GradeResult, course: Course, lab: str, has_deadline: bool, extension: Extension | None, through: str
) -> tuple[str, float, str]:
    """The lateness an LMS name's ``LATE`` flag gives (``submitted = "file-name"``): no time, the flag's percent."""
    policy, language = course.settings.late, course.language_of(result.student)
    on_time = through + MESSAGES("on time", language) if through else ""
    handed_in = assignment(result.submission)
    parsed = read_lms_name(handed_in.inner if handed_in is not None else result.submission, course.name_patterns)
    if parsed is None or not parsed.late:
        return "", 0.0, on_time
    if extension is not None:  # the LMS flagged it by the deadline it knows, not by this student's own
        said = MESSAGES("the LMS name says LATE, by the deadline before the extension: no late penalty", language)
        return "", 0.0, through + said
    if policy.flag == "lms":
        said = MESSAGES("late (the LMS name says LATE): no penalty here, the LMS's late policy applies", language)
        return "LATE flag", 0.0, through + said
    percent = (
        policy.flag_percent if policy.flag_percent is not None else min(policy.max_percent, policy.percent_per_day)
    )
    if not has_deadline:  # the LMS knows the deadline of the assignment the file went through; its flag says it passed
        through += MESSAGES("no deadline for {lab} here, but ", language).format(
            lab=lab_registry.lab(lab).spoken_label(language)
        )
    said = MESSAGES("late (the LMS name says LATE; how late is unknown): −{percent} %", language)
    return "LATE flag", percent, through + said.format(percent=_fmt(percent))


def _by_time(
    result: GradeResult,
    course: Course,
    deadlines: list[tuple[str, datetime, Extension | None]],
    assigned: tuple[str, str] | None,
) -> tuple[str, float, str]:
    """The lateness a submission's time gives (a manifest's, an LMS's times file's): started days past the deadline,
    the most of each that applies (``_deadlines``)."""
    policy, language = course.settings.late, course.language_of(result.student)
    when = course.submitted_at.get(result.submission)
    lab = assigned[0] if assigned is not None else result.lab or ""
    if when is None:
        named = course.times_file(lab)
        if named:
            said = MESSAGES("not in the submission-time manifest ({file}): no late penalty", language)
            return "", 0.0, said.format(file=named)
        return "", 0.0, MESSAGES("not in the submission-time manifest: no late penalty", language)
    late = [
        (days_late(when, deadline, policy.grace_minutes), each, extension) for each, deadline, extension in deadlines
    ]
    days, chosen, extension = max(late, key=lambda item: item[0])  # the first of equals: the assignment's
    through = _through(result, course, assigned, chosen, extension, len(deadlines) > 1)
    if not days:
        return "", 0.0, through + MESSAGES("on time", language) if through else ""
    percent = min(policy.max_percent, days * policy.percent_per_day)
    rule = MESSAGES("{percent} %/day, at most {max_percent} %", language).format(
        percent=_fmt(policy.percent_per_day), max_percent=_fmt(policy.max_percent)
    )
    phrase = (
        message("{days} day late: −{percent} % ({rule})")
        if days == 1
        else message("{days} days late: −{percent} % ({rule})")
    )
    said = MESSAGES(phrase, language).format(days=days, percent=_fmt(percent), rule=rule)
    return _days(days), percent, through + said


def _through(
    result: GradeResult,
    course: Course,
    assigned: tuple[str, str] | None,
    lab: str,
    extension: Extension | None,
    stricter: bool = False,
) -> str:
    """What the lateness phrase starts with: the assignment the file went through and the deadline it is late by
    (``lab``'s), an extension (or nothing)."""
    language = course.language_of(result.student)
    through = ""
    if assigned is not None and assigned[0] != result.lab:
        said = (
            message(
                "handed in through the {assignment} assignment ({how}), so by the stricter of its deadline and "
                "{lab}'s own, {chosen}'s: "
            )
            if stricter
            else message("handed in through the {assignment} assignment ({how}), so by its deadline: ")
            if lab == assigned[0]
            else message("handed in through the {assignment} assignment ({how}), but by {chosen}'s own deadline: ")
        )
        through = MESSAGES(said, language).format(
            assignment=_mid(lab_registry.lab(assigned[0]).spoken_label(language)),
            how=assigned[1],
            lab=_mid(lab_registry.lab(result.lab or lab).spoken_label(language)),
            chosen=_mid(lab_registry.lab(lab).spoken_label(language)),
        )
    if extension is not None:
        through += MESSAGES("deadline extended to {deadline} ({reason}): ", language).format(
            deadline=extension.deadline.isoformat(), reason=extension.reason
        )
    return through


def _mid(label: str) -> str:
    """A lab's label inside a sentence: ``Lab 11.3``, ``the capstone`` (English capitalises only a sentence's start)."""
    return "the " + label[4:] if label.startswith("The ") else label
