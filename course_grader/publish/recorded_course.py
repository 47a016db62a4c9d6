"""Pages made again from records (``course-grade feedback``) are scored by the course file the grades were.

A grades CSV records the course file each row was scored by (``Course.stamp``,
its ``course`` column); that file is loaded again, and every page's score is
checked against the CSV's, so a page never says "5 of 5" where the gradebook
has 7/10. What the pages speak (``language``, ``[sections]``) scores nothing,
so no fingerprint holds it (issue 45): the pages and the class report
(``recorded_language``) speak what the course file says now, and ``--course
course-zh.toml``, a file that differs only in that, says a term's pages again in
another language without regrading; one that would score otherwise is refused.
Only the ``feedback`` and ``report`` commands import this module, when they run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from course_lib.teaching import i18n

from ..course.course import Course, Stamp
from ..course.course_file import load_course
from ..errors import GradingError
from ..intake.roster import load_roster
from ..judging.verdicts import GradeResult
from ..results.grades_csv import read_frame
from ..results.scoring import score
from ..safe_text import valid
from .page_score import Scorer

UNRECORDED = "?"
"""A grades CSV from before the ``course`` column whose scores show a course file was used."""

RecordedScores = dict[str, tuple[float, str]]
"""A grades CSV's ``score`` per file, with the CSV it was read from."""


class FeedbackCourseError(GradingError):
    """The pages would not show the grades' scores: another course file, none where the grades used one, or a mismatch."""


@dataclass(frozen=True)
class RecordedCourse:
    """How pages made from records are scored and in which language, and a warning when nothing says."""

    scorer: Scorer | None
    """The course file's scoring; ``None``: the grader's own (1 point per passed test)."""
    language: str
    """The run's language (the course file's ``language``; English without a course file)."""
    warning: str = ""
    student_languages: tuple[tuple[str, str], ...] = ()
    """Students whose section speaks another language (the course file's ``[sections."…"]``, its roster's sections)."""

    def language_of(self, student: str) -> str:
        """The language of ``student``'s page: their section's, else ``language``."""
        return dict(self.student_languages).get(student, self.language)


def recorded_course(results: list[GradeResult], grades: list[Path], given: Path | None) -> RecordedCourse:
    """How pages made from records are scored and spoken, and a warning when nothing says which course file the grades used.

    The grades CSVs (``grades``) record the course file each row was scored
    by (``Course.stamp``). That file is loaded again (or ``given``, which must
    be the same file: same fingerprint); grades made without one get the
    grader's own score. Every page's score is checked against the row's
    ``score`` in the CSV first, so a page never says "5 of 5" where the
    gradebook has 7/10. A CSV from before the ``course`` column says only
    whether a course file changed its scores; then ``given`` is needed.
    """
    rows, stamps = recorded_stamps(grades)
    stamp = one_stamp(stamps, given)
    if given is None and not stamp:
        if stamp is None:
            return RecordedCourse(
                None,
                i18n.DEFAULT,
                "no grades CSV beside the records: the pages score 1 point per passed test, no late policy",
            )
        return RecordedCourse(None, i18n.DEFAULT)
    course = stamped_course(stamp, given)
    resolved = course.for_submissions([result.submission for result in results], ".", strict=False)
    resolved = resolved.speaking(load_roster(resolved.roster_path) if resolved.roster_path is not None else None)
    check_scores(results, rows, resolved)
    return RecordedCourse(
        lambda result: score(result, resolved),
        resolved.language,
        student_languages=tuple(sorted(resolved.student_languages.items())),
    )


def recorded_language(grades: Path) -> tuple[str, str]:
    """The language of the report of a grades CSV (its course file's, as the file says it now), and a warning when it
    cannot be known.

    No course file, or a CSV from before the ``course`` column (a grader that spoke
    only English), is English. A course file that cannot be read again, or now
    scores otherwise (its fingerprint: the language is not in it, issue 45), leaves
    the report in English, and the warning says why.
    """
    _, stamps = recorded_stamps([grades])
    named = [stamp for stamp in stamps if stamp not in ("", UNRECORDED)]
    if not named:
        return i18n.DEFAULT, ""
    if len(stamps) > 1:
        return i18n.DEFAULT, f"{grades} names several course files: the report is in English"
    try:
        return stamped_course(named[0], None).language, ""
    except GradingError as exc:
        return i18n.DEFAULT, f"{exc}; the report is in English"


def recorded_stamps(grades: list[Path]) -> tuple[RecordedScores, dict[str, str]]:
    """The CSVs' scores per file, and each course file they name (``Course.stamp``) with the first CSV naming it.

    A CSV from before the ``course`` column names ``UNRECORDED`` when its
    scores show a course file changed them (points, maximum or a penalty), else none (``""``).
    """
    rows: RecordedScores = {}
    stamps: dict[str, str] = {}
    for path in grades:
        frame = read_frame(path)
        if "course" in frame.columns:
            for stamp in frame["course"]:
                stamps.setdefault(stamp, str(path))
        else:
            scored_otherwise = (
                (frame["points"] != frame["total"])
                | (frame["max_points"] != frame["max_score"])
                | (frame["penalty"] != 0)
            )
            stamps.setdefault(UNRECORDED if scored_otherwise.any() else "", str(path))
        rows |= {file: (float(value), str(path)) for file, value in zip(frame["file"], frame["score"])}
    return rows, stamps


def one_stamp(stamps: dict[str, str], given: Path | None) -> str | None:
    """The one course file the grades were scored by (``None``: no CSV), refused when they name several or cannot say."""
    if len(stamps) > 1:
        shown_stamps = "; ".join(f"{stamp or 'no course file'} in {path}" for stamp, path in stamps.items())
        raise FeedbackCourseError(f"the grades were scored by different course files ({shown_stamps})")
    stamp = next(iter(stamps), None)
    if given is None and stamp == UNRECORDED:
        raise FeedbackCourseError(
            f"{stamps[stamp]} was scored by a course file it does not name (an older course-grade wrote it): "
            "give that file with --course FILE"
        )
    return stamp


def stamped_course(stamp: str | None, given: Path | None) -> Course:
    """The course file ``stamp`` names (or ``given``), refused when it is not the one the grades were scored by."""
    read = Stamp.read(stamp or "")
    fingerprint, recorded = read.fingerprint, read.path
    try:
        course = load_course(given if given is not None else recorded)
    except GradingError as exc:
        if given is not None:
            raise
        raise FeedbackCourseError(
            f"the grades were scored by the course file {recorded}, which cannot be used here ({exc}): "
            "give it with --course FILE"
        ) from None
    if stamp not in (None, UNRECORDED) and not course.scored(fingerprint):
        graded = f"the course file {recorded} ({fingerprint})" if stamp else "no course file"
        changed = " has changed since" if given is None else f" ({course.fingerprint}) is not what"
        raise FeedbackCourseError(
            f"{course.path}{changed} the grades were scored by ({graded}) in what scores them, not only in what the "
            "pages say (language, [sections]): the pages would not show the gradebook's scores; regrade, or give "
            "the course file they were scored by with --course (its language and sections may differ)"
        )
    return course


def check_scores(results: list[GradeResult], rows: RecordedScores, resolved: Course) -> None:
    """Every result scores under ``resolved`` what its row in the grades CSV says, or the pages are not written.

    ``resolved`` is the course file with its manifest matched to the results
    (``Course.for_submissions``): the same file, so the same ``path``.
    """
    for result in results:
        row = rows.get(valid(result.submission))
        record = score(result, resolved)
        if row is not None and abs(row[0] - record.score) > 0.005:
            raise FeedbackCourseError(
                f"{row[1]}: {valid(result.submission)!r} scores {row[0]:g} there, but {record.score:g} under "
                f"{resolved.path}: the pages would not show the gradebook's score"
            )
