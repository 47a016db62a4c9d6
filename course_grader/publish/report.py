"""``course-grade report grades.csv -o report.html``: the class picture of a batch, one self-contained page.

It reads the batch's CSV (one row per notebook, a 0/1 score column per test)
and, for the failure messages, its companion ``grades.jsonl`` (``records.py``).
Only the submission that counts for each student and lab is used (``counts``).
The page holds, each chart an inline picture drawn with matplotlib:

* the score distribution per lab (percent of the lab's tests passed), and
  beside it the score the gradebook gets (after weights and late penalties);
  students are counted apart from the submissions of no roster student
  (``unknown``: in nobody's gradebook row);
* a heatmap of students × rules: the share of the tests citing each rule
  (``citations.rules_cited``, checklist and hidden tests alike) that the
  student passed, blank where the student handed in no lab testing it; and the
  class's share per rule, weakest first;
* per test, its **difficulty** (the share of submissions passing it) and its
  **discrimination**: the corrected point-biserial correlation, i.e. Pearson's
  r between the test's 0/1 score and the submission's score on the lab's
  *other* tests (undefined, shown as "—", when either does not vary);
* the most common failure messages, with digits folded (``3 of 17`` and
  ``5 of 17`` are one message) and a hidden test's first failing case left
  out (``without_case``), so one mistake is one row;
* similarity, reported and not judged: the exercise cells the batch found
  alike ``course_lib``'s implementation of the lab or another student's
  (``similarity.py``; read back from the rows' notes, ``similarity_notes.py``), each pair once.

This module makes the page and the command; the CSV is read by
``report_grades``, the numbers are ``report_statistics``' and
``report_messages``', the charts ``report_charts``'.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from course_lib.teaching import i18n, lab_registry

from ..errors import GradingError
from ..files import write_atomically
from ..intake.roster import UNKNOWN
from ..judging.verdicts import GradeResult
from ..results.records import companion, read_records
from ..safe_text import shown, valid
from ..similarity import similarity
from ..similarity.similarity_notes import Match, matches, pairs
from .feedback_page import NAME_LIMIT, lab_heading
from .pages import render
from .report_charts import NO_FONT, chart_language, data_url, distribution_chart, heatmap_chart, picture
from .report_grades import Grades, read_grades
from .report_messages import failure_messages
from .report_statistics import item_stats, rule_matrix, rule_shares


def build_report(grades: Grades, results: list[GradeResult] | None, source: str, language: str = i18n.DEFAULT) -> str:
    """The report page, as a complete HTML document in ``language`` (its charts' text too, where a font can draw it).

    Every number is of the roster's students: a submission of no roster student (``unknown``, in nobody's
    gradebook row) is listed apart and counted in no mean, chart or statistic.
    """
    known = ~grades.frame["student_from"].astype(str).str.startswith(UNKNOWN)
    apart, everyone = grades.frame[~known], grades
    grades = Grades(grades.frame[known].reset_index(drop=True), grades.tests, grades.rows_read)
    matrix = rule_matrix(grades)
    shares = rule_shares(grades)
    labs = [lab_summary(grades.frame[grades.frame["lab"] == lab], lab, language) for lab in lab_registry.LABS]
    labs = [summary for summary in labs if summary is not None]
    charts = chart_language(language)
    return render(
        "report.html.j2",
        language,
        source=shown(source, NAME_LIMIT),
        rows_read=grades.rows_read,
        counted=len(grades.frame),
        students=grades.frame["student"].nunique(),
        unknown=len(apart),
        apart=[
            {
                "lab": lab_heading(lab, language),
                "student": shown(str(student), NAME_LIMIT),
                "file": shown(str(file), NAME_LIMIT),
                "score": float(score) if "score" in apart.columns else float(percent),
                "why": shown(str(source), NAME_LIMIT),
            }
            for lab, student, file, score, percent, source in zip(
                apart["lab"],
                apart["student"],
                apart["file"],
                apart["score"] if "score" in apart.columns else apart["percent"],
                apart["percent"],
                apart["student_from"],
            )
        ],
        labs=labs,
        distribution=data_url(picture(lambda: distribution_chart(grades, charts), charts)) if labs else None,
        heatmap=data_url(picture(lambda: heatmap_chart(matrix, charts), charts)) if not matrix.empty else None,
        rules=[{"id": rule, "share": share, "tests": _citing(grades, rule)} for rule, share in shares.items()],
        items=item_stats(grades),
        messages=(
            failure_messages(results, counted_files=set(grades.frame["file"]), language=language)
            if results is not None
            else None
        ),
        similar=similar_cells(everyone, results),
        similarity=similarity,
        isnan=math.isnan,
    )


def lab_summary(rows: pd.DataFrame, lab: str, language: str = i18n.DEFAULT) -> dict[str, object] | None:
    """One lab's row of the distribution table: tests passed, and the score the gradebook gets (``score``)."""
    if rows.empty:
        return None
    percent = pd.to_numeric(rows["percent"], errors="coerce")
    statuses = Counter(rows["status"].astype(str))
    scores = pd.to_numeric(rows["score"], errors="coerce") if "score" in rows.columns else None
    points = pd.to_numeric(rows["max_points"], errors="coerce").max() if "max_points" in rows.columns else None
    return {
        "heading": lab_heading(lab, language),
        "n": len(rows),
        "mean": float(percent.mean()),
        "median": float(percent.median()),
        "full": int((percent >= 100).sum()),
        "score_mean": float(scores.mean()) if scores is not None else None,
        "score_median": float(scores.median()) if scores is not None else None,
        "points": float(points) if points is not None and not math.isnan(points) else None,
        "statuses": ", ".join(f"{n} {shown(status, 40)}" for status, n in sorted(statuses.items())),
    }


def similar_cells(grades: Grades, results: list[GradeResult] | None) -> list[Match]:
    """The similarity notes of the counted rows (the records' whole notes, else the CSV's, joined with `` | ``)."""
    frame = grades.frame
    rows: list[tuple[str | None, str, str, Sequence[str]]]
    if results is not None:
        counted = set(frame["file"])
        rows = [(r.lab, r.submission, r.student, r.notes) for r in results if valid(r.submission) in counted]
    else:
        rows = [
            (lab, file, student, str(notes).split(" | "))
            for lab, file, student, notes in zip(frame["lab"], frame["file"], frame["student"], frame["notes"])
        ]
    return pairs(matches(rows))


def _citing(grades: Grades, rule: str) -> str:
    return ", ".join(f"{test.lab} {test.number}" for test in grades.tests if rule in test.rules)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="course-grade report",
        description="The class picture of a batch: score distribution per lab, a students × rules heatmap, "
        "difficulty and discrimination per test, the most common failure messages (docs/grading.md).",
    )
    parser.add_argument("grades", type=Path, help="the batch's CSV (course-grade FOLDER --out grades.csv)")
    parser.add_argument("-o", "--output", type=Path, default=Path("report.html"))
    parser.add_argument(
        "--records", type=Path, help="the batch's companion with every result (default: the CSV's name with .jsonl)"
    )
    arguments = parser.parse_args(argv)
    records = arguments.records or companion(arguments.grades)
    if arguments.records and not records.is_file():
        parser.error(f"--records {records}: no such file")
    from .recorded_course import recorded_language  # the course file is read again only by the commands

    try:
        grades = read_grades(arguments.grades)
        results = read_records(records) if records.is_file() else None
        language, unknown_language = recorded_language(arguments.grades)
    except GradingError as exc:
        parser.error(str(exc))
    if unknown_language:
        print(f"warning: {unknown_language}", file=sys.stderr)
    if results is None:
        print(f"warning: no {records}: the report leaves out the failure messages", file=sys.stderr)
    if chart_language(language) != language:
        print(
            f"warning: no font installed draws {language} ({NO_FONT}): the charts' labels are in English",
            file=sys.stderr,
        )
    write_atomically(arguments.output, build_report(grades, results, str(arguments.grades), language))
    known = ~grades.frame["student_from"].astype(str).str.startswith(UNKNOWN)
    unknown = int((~known).sum())
    print(
        f"wrote {arguments.output}: {len(grades.frame)} counted submissions of "
        f"{grades.frame.loc[known, 'student'].nunique()} students"
        + (f" and {unknown} of no roster student (unknown)" if unknown else "")
    )
    return 0
