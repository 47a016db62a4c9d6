"""A feedback page per student and lab: every test, its message and counterexample, the rules, the score.

``course-grade FOLDER --feedback DIR`` writes one page per student and lab from
a batch, and ``course-grade SUBMISSION.ipynb --feedback DIR`` the page of one
notebook; both go through ``render_page`` (docs/grading.md, *Feedback for every
student*). A page is meant to be handed to its learner: self-contained (no
outside files, no script), safe to open (everything taken from the submission
is escaped and bounded, ``safe_text``), and it shows hidden tests, so it is for
after grades are published. It never shows the hidden cases' seed: a term that
keeps one seed would otherwise give away the cases of labs still to come.

The score is a small record (``ScoreRecord``: points, max_points, penalty,
score and a one-line explanation). Without one, a page scores 1 point per
passed test and no penalty (``points_per_test``); a course file's weights and
late policy come in as a ``Scorer`` that makes the record for each result.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from course_lib import lab_registry

from ..checkout import CHECKOUT
from ..errors import GradingError
from ..files import write_atomically
from ..judging.citations import in_rule_order, rule_href, rule_text, rules_cited
from ..judging.practice import COUNTEREXAMPLE
from ..judging.verdicts import GradeResult, TestResult
from ..results.similarity import is_similarity_note
from ..safe_text import shown, valid
from .pages import render

MESSAGE_LIMIT = 4_000
"""Characters of a test's message shown (a learner's exception may quote megabytes)."""
COUNTEREXAMPLE_LIMIT = 6_000
NOTE_LIMIT = 2_000
NAME_LIMIT = 200
"""Characters of a student id or a file name shown."""
STEM_LIMIT = 64
"""Characters of a student id kept in a page's file name."""

STATUS_MEANING = {
    "ok": "your functions were found and every test ran",
    "timeout": "a cell or a test ran out of time; see the notes",
    "error": "the notebook could not be graded normally; see the notes",
    "missing-function": "your cells ran, but a function the lab asks for is not defined; see the notes",
}
"""What a submission's status means, in the learner's words (the instructor's table: docs/grading.md)."""


class ScoreRecord(Protocol):
    """A submission's score after weights and late policy, as a page shows it."""

    @property
    def points(self) -> float: ...

    @property
    def max_points(self) -> float: ...

    @property
    def penalty(self) -> float: ...

    @property
    def score(self) -> float: ...

    @property
    def explanation(self) -> str: ...


Scorer = Callable[[GradeResult], ScoreRecord]


@dataclass(frozen=True)
class PointsPerTest:
    """The grader's own scoring: every test worth 1 point, no late policy."""

    points: float
    max_points: float
    penalty: float
    score: float
    explanation: str


def points_per_test(result: GradeResult) -> PointsPerTest:
    passed = sum(test.passed for test in result.tests)
    return PointsPerTest(
        points=result.score,
        max_points=result.max_score,
        penalty=0.0,
        score=result.score,
        explanation=f"1 point per passed test ({passed} of {len(result.tests)} passed); no late policy",
    )


@dataclass(frozen=True)
class RuleView:
    id: str
    href: str
    text: str


@dataclass(frozen=True)
class TestView:
    __test__ = False  # not a pytest class

    number: str
    name: str
    hidden: bool
    passed: bool
    score: float
    max_score: float
    message: str
    counterexample: str
    rules: tuple[RuleView, ...]


def split_output(output: str) -> tuple[str, str]:
    """A test's output as (message, counterexample): a hidden test's counterexample follows on its own line."""
    marker = f"\n{COUNTEREXAMPLE}"
    at = output.find(marker)
    return (output, "") if at < 0 else (output[:at], output[at + 1 :])


def _rule(rule_id: str, rules_base: str) -> RuleView:
    return RuleView(rule_id, rule_href(rule_id, rules_base), rule_text(rule_id))


def view_of_test(test: TestResult, rules_base: str) -> TestView:
    message, counterexample = split_output(test.output)
    return TestView(
        number=shown(test.number, 20),
        name=shown(test.name, NAME_LIMIT),
        hidden=test.hidden,
        passed=test.passed,
        score=test.score,
        max_score=test.max_score,
        message=shown(message, MESSAGE_LIMIT),
        counterexample=shown(counterexample, COUNTEREXAMPLE_LIMIT),
        rules=tuple(_rule(rule_id, rules_base) for rule_id in rules_cited(test.lab, test.number, test.name)),
    )


def lab_heading(lab: str | None) -> str:
    if lab in lab_registry.LABS:
        entry = lab_registry.lab(lab)
        return f"{entry.label} · {entry.title}"
    return "not a lab notebook"


def render_page(result: GradeResult, *, score: ScoreRecord | None = None, rules_base: str = "rules.md") -> str:
    """The feedback page of one graded submission, as a complete HTML document."""
    tests = [view_of_test(test, rules_base) for test in result.tests]
    cited = in_rule_order([rule.id for test in tests for rule in test.rules])
    return render(
        "feedback.html.j2",
        student=shown(result.student, NAME_LIMIT),
        submission=shown(result.submission, NAME_LIMIT),
        lab=lab_heading(result.lab),
        status=result.status,
        status_meaning=STATUS_MEANING.get(result.status, ""),
        notes=[
            shown(note, NOTE_LIMIT) for note in result.notes if not is_similarity_note(note)
        ],  # names others: the CSV's
        checklist=[test for test in tests if not test.hidden],
        hidden=[test for test in tests if test.hidden],
        passed=sum(test.passed for test in tests),
        score=score or points_per_test(result),
        rules=[_rule(rule_id, rules_base) for rule_id in cited],
        seconds=result.execution_time,
    )


SAFE_STEM = re.compile(r"[^A-Za-z0-9._-]+")


def _stem(student: str) -> str:
    """A file name for a student id: its safe characters, plus a hash of the id if anything had to change."""
    stem = SAFE_STEM.sub("_", student).strip("._-")[:STEM_LIMIT] or "student"
    if stem == student:
        return stem
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{stem}~{digest}"  # "~" is never in a plain stem: no id can name another one's page


def page_names(students: Iterable[str]) -> dict[str, str]:
    """A distinct file-name stem per student id, also where case does not count (macOS, Windows).

    ``Alice`` and ``alice`` are two students: the first in sorted order keeps
    its plain name, the other gets its hashed one.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for student in sorted(set(students)):
        stem = _stem(student)
        if stem.casefold() in taken:
            digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:10]
            stem = f"{stem}~{digest}"
        taken.add(stem.casefold())
        names[student] = stem
    return names


def lab_suffix(lab: str | None) -> str:
    if lab is None:
        return "not_graded"
    return "capstone" if lab == "capstone" else f"lab_{lab.replace('.', '_')}"


def counting(results: Iterable[GradeResult]) -> dict[tuple[str, str | None], GradeResult]:
    """The result each page shows, per (student, lab): the one that counts (``counts``), else the last.

    A duplicate that does not count gets no page of its own; the counting one's
    notes name it (``batch.flag_duplicates``).
    """
    groups: dict[tuple[str, str | None], list[GradeResult]] = defaultdict(list)
    for result in results:
        groups[(result.student, result.lab)].append(result)
    return {key: next((r for r in reversed(group) if r.counts), group[-1]) for key, group in groups.items()}


def default_rules_base(folder: Path) -> str:
    """The checkout's docs/rules.md, relative to the feedback folder; ``rules.md`` when there is no checkout."""
    rules = CHECKOUT / "docs" / "rules.md"
    if not rules.is_file():
        return "rules.md"
    return Path(os.path.relpath(rules, folder.resolve())).as_posix()


def write_feedback(
    results: Iterable[GradeResult],
    folder: str | os.PathLike[str],
    *,
    scorer: Scorer | None = None,
    rules_base: str | None = None,
) -> list[Path]:
    """A page per student and lab in ``folder`` (made if missing), and ``index.html`` listing them (for the instructor).

    Pages are named ``<student>_lab_11_3.html`` (``_capstone``, or
    ``_not_graded`` for a file that is not a lab notebook); ``page_names``
    keeps a hostile student id from naming a path or another student's page.
    Returns the pages written, index last.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    base = rules_base if rules_base is not None else default_rules_base(folder)
    shown_results = counting(results)
    names = page_names(student for student, _ in shown_results)
    order = list(lab_registry.LABS)
    written: list[Path] = []
    rows = []
    for (student, lab), result in sorted(
        shown_results.items(),
        key=lambda item: (item[0][0], order.index(item[0][1]) if item[0][1] in order else len(order)),
    ):
        score = scorer(result) if scorer else points_per_test(result)
        path = folder / f"{names[student]}_{lab_suffix(lab)}.html"
        write_atomically(path, render_page(result, score=score, rules_base=base))
        written.append(path)
        rows.append(
            {
                "student": shown(student, NAME_LIMIT),
                "lab": lab_heading(lab),
                "status": result.status,
                "score": score,
                "href": path.name,
            }
        )
    index = folder / "index.html"
    write_atomically(index, render("feedback_index.html.j2", rows=rows))
    return [*written, index]


def main(argv: list[str]) -> int:
    """``course-grade feedback grades.jsonl -o DIR``: the pages again from a batch's records, without regrading.

    For shards (their ``.jsonl`` files joined: every page and one index). The
    score on each page is the one the grades CSV holds: the course file the
    grades were scored by (their ``course`` column) is used again, and a page
    is never written under another one (``recorded_course``).
    """
    import argparse

    from ..results.records import counted_files, read_records, with_counts

    parser = argparse.ArgumentParser(
        prog="course-grade feedback", description="Write the feedback pages of graded results (docs/grading.md)."
    )
    parser.add_argument("records", type=Path, nargs="+", help="grades.jsonl files (one per shard, or the batch's)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="the folder for the pages")
    parser.add_argument(
        "--rules-url",
        metavar="BASE",
        help="where the pages link a rule to (BASE#r19; default: the checkout's docs/rules.md, relative)",
    )
    parser.add_argument(
        "--grades",
        type=Path,
        metavar="CSV",
        help="the (merged) grades CSV: which of a student's duplicates counts, decided across shards "
        "(default: each records file's own CSV beside it, grades.jsonl → grades.csv)",
    )
    parser.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the course file the grades were scored by (default: the one the grades CSV records); "
        "another one is refused",
    )
    arguments = parser.parse_args(argv)
    try:
        results = [result for path in arguments.records for result in read_records(path)]
        if arguments.grades:
            results = with_counts(results, counted_files(arguments.grades))
        grades = [arguments.grades] if arguments.grades else [p.with_suffix(".csv") for p in arguments.records]
        scorer, warning = recorded_scorer(results, [path for path in grades if path.is_file()], arguments.course)
    except (OSError, GradingError) as exc:
        parser.error(str(exc))
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    pages = write_feedback(results, arguments.output, scorer=scorer, rules_base=arguments.rules_url)
    print(f"wrote {len(pages) - 1} feedback pages to {arguments.output} (list: {pages[-1]})")
    return 0


class FeedbackCourseError(GradingError):
    """The pages would not show the grades' scores: another course file, none where the grades used one, or a mismatch."""


def recorded_scorer(results: list[GradeResult], grades: list[Path], given: Path | None) -> tuple[Scorer | None, str]:
    """How pages made from records are scored, and a warning when nothing says which course file the grades used.

    The grades CSVs (``grades``) record the course file each row was scored
    by (``Course.stamp``). That file is loaded again (or ``given``, which must
    be the same file: same fingerprint); grades made without one get the
    grader's own score. Every page's score is checked against the row's
    ``score`` in the CSV first, so a page never says "5 of 5" where the
    gradebook has 7/10. A CSV from before the ``course`` column says only
    whether a course file changed its scores; then ``given`` is needed.
    """
    from ..results.course_file import load_course
    from ..results.grades_csv import read_frame
    from ..results.scoring import score

    rows: dict[str, tuple[float, str]] = {}
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
    if len(stamps) > 1:
        shown_stamps = "; ".join(f"{stamp or 'no course file'} in {path}" for stamp, path in stamps.items())
        raise FeedbackCourseError(f"the grades were scored by different course files ({shown_stamps})")
    stamp = next(iter(stamps), None)
    if given is None and stamp == UNRECORDED:
        raise FeedbackCourseError(
            f"{stamps[stamp]} was scored by a course file it does not name (an older course-grade wrote it): "
            "give that file with --course FILE"
        )
    if given is None and not stamp:
        if stamp is None:
            return None, "no grades CSV beside the records: the pages score 1 point per passed test, no late policy"
        return None, ""
    fingerprint, _, recorded = (stamp or "").partition(" ")
    try:
        course = load_course(given if given is not None else recorded)
    except GradingError as exc:
        if given is not None:
            raise
        raise FeedbackCourseError(
            f"the grades were scored by the course file {recorded}, which cannot be used here ({exc}): "
            "give it with --course FILE"
        ) from None
    if stamp not in (None, UNRECORDED) and course.fingerprint != fingerprint:
        graded = f"the course file {recorded} ({fingerprint})" if stamp else "no course file"
        changed = " has changed since" if given is None else f" ({course.fingerprint}) is not what"
        raise FeedbackCourseError(
            f"{course.path}{changed} the grades were scored by ({graded}): the pages would not show the "
            "gradebook's scores; regrade, or give the course file they were scored by with --course"
        )
    resolved = course.for_submissions([result.submission for result in results], ".", strict=False)
    for result in results:
        row = rows.get(valid(result.submission))
        record = score(result, resolved)
        if row is not None and abs(row[0] - record.score) > 0.005:
            raise FeedbackCourseError(
                f"{row[1]}: {valid(result.submission)!r} scores {row[0]:g} there, but {record.score:g} under "
                f"{course.path}: the pages would not show the gradebook's score"
            )
    return (lambda result: score(result, resolved)), ""


UNRECORDED = "?"
"""A grades CSV from before the ``course`` column whose scores show a course file was used."""
