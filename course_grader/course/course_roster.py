"""The course file's entries for one student, checked against the class: none is dropped without a word (issue 43).

An extension, an override or a decision names a student by the roster id
the grades CSV's ``student`` column holds. Before, one naming no student (a
typo, ``jsmiht``; a Canvas user id; a full name) applied to no one: ``rescore``
said "0 changed" and the appeal or the extension was lost. Now each is an
error naming the course file's line, and where the value names a roster
student some other way (an alias, the email, the name) the error says which
id to write. Without a roster, the students are the ones the grades (or the
folder's files) belong to. An override for a lab the student handed nothing
in for still reaches the gradebook (``publish.gradebook``), with its reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..intake.lab_names import in_sentence
from ..intake.roster import Roster
from .course import Course
from .course_settings import CourseFileError
from .manifest import folded, manifest_key
from .per_student import Override

TABLES = {"extensions": "extension", "overrides": "override", "decisions": "decision"}


def unknown_students(course: Course, roster: Roster | None, students: Iterable[str], among: str) -> list[str]:
    """Each ``[[extensions]]``, ``[[overrides]]`` and ``[[decisions]]`` entry naming no student, with its line.

    ``roster``: the class; without one, ``students`` (``among`` says whose: ``the grades in grades.csv``).
    """
    known = {student.id for student in roster.students} if roster is not None else set(students)
    where = f"the roster ({Path(roster.path).name})" if roster is not None else among
    problems = []
    for table, kind in TABLES.items():
        for index, entry in enumerate(getattr(course.settings, table)):
            if entry.student in known:
                continue
            said = f"{course.entry(table, index)}: student {entry.student!r} is not on {where}"
            if roster is not None:
                found, how = roster.find(entry.student)
                if found is not None:
                    said += f"; {how!r} names {found} there: write student = {found!r}"
            problems.append(f"{said}, so this {kind} ({entry.lab}, {entry.reason}) would apply to no one")
    return problems


def check_students(course: Course, roster: Roster | None, students: Iterable[str], among: str) -> None:
    """``unknown_students``, refused as one ``CourseFileError`` naming each entry."""
    if problems := unknown_students(course, roster, students, among):
        raise CourseFileError("; ".join(problems))


def decision_problems(course: Course, rows: dict[str, tuple[str, str | None]]) -> list[str]:
    """Each ``[[decisions]]`` entry whose file is no file of its student and lab (``rows``: file → (student, lab)),
    matched as a manifest's path is (``manifest.folded``: NFC, case aside)."""
    by_path = {folded(manifest_key(file)): file for file in rows}
    problems = []
    for index, decision in enumerate(course.settings.decisions):
        file = by_path.get(folded(manifest_key(decision.counts)))
        if file is None:
            problems.append(f"{course.entry('decisions', index)}: counts = {decision.counts!r} is no file graded here")
        elif rows[file] != (decision.student, decision.lab):
            student, lab = rows[file]
            problems.append(
                f"{course.entry('decisions', index)}: {file!r} is {student}'s {lab or 'file of no lab'}, not "
                f"{decision.student}'s {decision.lab}"
            )
    return problems


def without_submission(course: Course, counted: Iterable[tuple[str, str]]) -> list[Override]:
    """The overrides for a lab their student has no counting row in: the gradebook's cell is the override's."""
    have = set(counted)
    return [override for override in course.settings.overrides if (override.student, override.lab) not in have]


def said_without_submission(override: Override) -> str:
    """The line that says so: ``jsmith, Lab 11.4: no submission; the gradebook gets the course file's override …``."""
    return (
        f"{override.student}, {in_sentence(override.lab)}: no submission; the gradebook gets the course file's "
        f"override, {override.score:g} ({override.reason})"
    )
