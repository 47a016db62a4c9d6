"""The course file a term's CSVs were scored by, for ``merge``: one seed, one score, and who the files are.

Why apart from ``term_merge`` (which joins rows): what a set of CSVs must
agree on is read here from their ``seed`` and ``course`` columns. The stamp
(``course.Stamp``) holds the fingerprint of what scores a row (points,
weights, deadlines, the late policy, the times) and, apart from it, who the
run read the files as (the roster, how LMS names are read): a regrade made
after the roster changed (an alias added, a new export of the class) scores
like the term and is merged, and its rows say who the files are under the new
roster; the rows kept from an earlier CSV are read again under it
(``reattributed``), and one that would now be someone else's is refused
until it is regraded too. A course file whose scores changed still needs
``rescore`` (or a regrade of everything), never a silent mix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..course.course import Course, Stamp
from ..errors import GradingError
from ..intake.roster import Names, attribute, is_attribution_note, load_roster
from .duplicates import Decisions
from .grades_csv import GradesCsvError
from .shard_check import same_lab_maxima

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path("/submissions")
"""Where a CSV's ``file`` paths are read from to tell whose they are: any folder, the paths are under it."""


@dataclass(frozen=True)
class TermCourse:
    """What the joined rows are scored and attributed by: the last CSV's course file."""

    stamp: str
    """The ``course`` cell every joined row gets: the last CSV's."""
    course: Course | None
    """That course file, loaded (``None``: none, or it cannot be read here)."""
    problem: str = ""
    """Why it cannot be used here, when it cannot."""
    names: Names | None = None
    """Who the files are under the last CSV's roster, when an earlier CSV read them under another."""
    other_roster: tuple[int, ...] = ()
    """The CSVs (their index) whose rows were read under another roster than the last one's."""
    said: list[str] = field(default_factory=list)

    @property
    def decisions(self) -> Decisions:
        return self.course.decided if self.course is not None else {}


def term_course(sources: Sequence[str], frames: Sequence[pd.DataFrame]) -> TermCourse:
    """The course the CSVs share; ``GradesCsvError`` names two that differ in seed or score."""
    _one_seed(sources, frames)
    stamps = [[Stamp.read(cell) for cell in frame["course"]] if "course" in frame.columns else [] for frame in frames]
    first: tuple[str, str, str] | None = None
    for path, frame, read in zip(sources, frames, stamps):
        for file, stamp in zip(frame["file"], read):
            first = first or (stamp.fingerprint, path, file)
            if stamp.fingerprint != first[0]:
                raise GradesCsvError(
                    f"{path} was scored by {_course(stamp.fingerprint)} (its row {file!r}), {first[1]} by "
                    f"{_course(first[0])} (its row {first[2]!r}): not one term's grades; a regrade needs the term's "
                    "course file (its weights, points and deadlines; a course file whose scores changed: rescore "
                    "the term's CSV under it first)"
                )
    if any("course" not in frame.columns for frame in frames):  # an older grader's CSV: the labs' points tell
        same_lab_maxima(list(sources), list(frames))
    last = next(
        (frame["course"].iloc[-1] for frame in reversed(frames) if "course" in frame.columns and len(frame)), ""
    )
    term = loaded_course(last)
    latest = Stamp.read(last).identity
    others = tuple(i for i, read in enumerate(stamps) if any(s.identity != latest for s in read))
    if not others:
        return term
    return _under_the_last_roster(term, sources, frames, others)


def _course(fingerprint: str) -> str:
    return "no course file" if fingerprint == "none" else f"the course file of fingerprint {fingerprint}"


def _one_seed(sources: Sequence[str], frames: Sequence[pd.DataFrame]) -> None:
    """Every row drawn from one seed; ``GradesCsvError`` names two CSVs that differ."""
    import pandas as pd

    first: tuple[str, str, str] | None = None
    for path, frame in zip(sources, frames):
        for file, cell in zip(frame["file"], frame["seed"]) if "seed" in frame.columns else ():
            if cell is None or cell is pd.NA:
                continue
            first = first or (str(cell), path, file)
            if str(cell) != first[0]:
                raise GradesCsvError(
                    f"{path} was graded with seed {cell} (its row {file!r}), {first[1]} with {first[0]} (its row "
                    f"{first[2]!r}): not one term's grades; a regrade must draw the term's hidden cases: grade it "
                    f"with the term's course file or --seed {first[0]}"
                )


def loaded_course(stamp: str) -> TermCourse:
    """The course file ``stamp`` names, loaded and checked to be the one that scored (its fingerprint)."""
    from ..course.course_file import load_course

    read = Stamp.read(stamp)
    if not read.path:
        return TermCourse(stamp, None)
    try:
        course = load_course(read.path)
    except GradingError as exc:
        return TermCourse(stamp, None, f" ({exc})")
    if course.fingerprint != read.fingerprint:
        return TermCourse(
            stamp, None, f" (it has changed since: fingerprint {course.fingerprint}, not {read.fingerprint})"
        )
    return TermCourse(stamp, course)


def _under_the_last_roster(
    term: TermCourse, sources: Sequence[str], frames: Sequence[pd.DataFrame], others: tuple[int, ...]
) -> TermCourse:
    """``term`` with the names its last CSV read the files by, to read the earlier CSVs' rows again."""
    course = term.course
    read = Stamp.read(term.stamp)
    if course is None:
        raise GradesCsvError(
            f"{sources[-1]} read the files under another roster than {sources[others[0]]}, and merge reads the "
            f"earlier rows again under the last one's course file, {read.path or 'none'}, which cannot be used "
            f"here{term.problem}"
        )
    roster = load_roster(course.roster_path) if course.roster_path is not None else None
    files = [file for frame in frames for file in frame["file"]]
    names = Names.of(course.settings.names, course.settings.pattern, roster, course.known).with_listing(files)
    if names.digest() != read.identity:
        raise GradesCsvError(
            f"{sources[-1]} read the files under a roster its course file {course.path} does not name (--roster?): "
            "merge cannot tell who the earlier rows' files are under it; name the roster in the course file"
        )
    shown = Path(roster.path).name if roster is not None else "no roster"
    said = [
        f"{sources[i]} was graded under another roster than {sources[-1]} (the course files score alike; they "
        f"differ in who the files are): its rows are read again under {shown}"
        for i in others
    ]
    return TermCourse(term.stamp, course, term.problem, names, others, said)


def reattributed(
    names: Names, file: str, student: str, source: str, notes: Sequence[str], where: str
) -> tuple[str, ...]:
    """``notes`` with who ``file`` is said again under ``names``; refused when it would be another student now."""
    who, how, said = attribute(ROOT / file, ROOT, names)
    if (who, how) != (student, source):
        raise GradesCsvError(
            f"{where}'s row {file!r} is {who} ({how}) under the last CSV's roster, but {student} ({source}) in "
            f"{where}: regrade it under the new roster too (course-grade FOLDER --course … --only {file}), then "
            "merge that CSV last"
        )
    kept = [note for note in notes if not is_attribution_note(note)]
    at = next((i for i, note in enumerate(notes) if is_attribution_note(note)), 0)
    position = len([note for note in notes[:at] if not is_attribution_note(note)])
    return (*kept[:position], *said, *kept[position:])
