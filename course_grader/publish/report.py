"""``course-grade report grades.csv -o report.html``: the class picture of a batch, one self-contained page.

It reads the batch's CSV (one row per notebook, a 0/1 score column per test)
and, for the failure messages, its companion ``grades.jsonl`` (``records.py``).
Only the submission that counts for each student and lab is used (``counts``).
The page holds, each chart an inline picture drawn with matplotlib:

* the score distribution per lab (percent of the lab's tests passed);
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
  (``similarity.py``; read back from the rows' notes), each pair once.
"""

from __future__ import annotations

import argparse
import base64
import functools
import io
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from course_lib import lab_registry

from ..errors import GradingError
from ..files import write_atomically
from ..judging.citations import in_rule_order, rules_cited
from ..judging.hidden_cases import hidden_tests
from ..judging.verdicts import GradeResult
from ..results import similarity
from ..results.records import companion, read_records
from ..safe_text import FORMULA_STARTS, abbreviated, shown, valid
from .feedback_page import NAME_LIMIT, lab_heading
from .pages import render

FIXED_COLUMNS = ("student", "student_from", "file", "lab")
"""The CSV's first columns (``batch.results_frame``); the test columns follow, then totals (and a course file's scores)."""
TEST_COLUMN = re.compile(r"(\S+) (H?\d+) (\S+)")
"""A test's column: ``11.3 7 fixed_costs_come_first``, ``11.3 H1 generated_kept_groups_and_reason``."""
LABEL_LIMIT = 28
"""Characters of a student id on the heatmap's axis."""
LABELLED_ROWS = 150
"""Up to this many students the heatmap names each row; a larger class is drawn at a fixed height, unlabelled."""
MESSAGES_SHOWN = 20
MESSAGE_LIMIT = 300
DIGITS = re.compile(r"(?<![A-Za-z_0-9])\d+")
"""A number in a message, not the digits of a rule id (R19), an entry id (u3) or a test (H1)."""


class NotAGradesFile(GradingError):
    """The report's input is not a CSV written by ``course-grade`` (names the file and what is missing)."""


@dataclass(frozen=True)
class TestColumn:
    __test__ = False  # not a pytest class

    column: str
    lab: str
    number: str
    name: str

    @property
    def rules(self) -> tuple[str, ...]:
        return rules_cited(self.lab, self.number, self.name)


@dataclass(frozen=True)
class ItemStats:
    test: TestColumn
    submissions: int
    difficulty: float
    """Share of submissions passing the test (0–1)."""
    discrimination: float
    """Corrected point-biserial r (NaN when undefined)."""


@dataclass(frozen=True)
class Grades:
    """The counted rows of a grades CSV and its test columns, in the CSV's (course) order."""

    frame: pd.DataFrame
    tests: tuple[TestColumn, ...]
    rows_read: int


def unneutralised(value: object) -> object:
    """A CSV text cell as graded: ``batch.neutralised`` prefixed ``'`` to one that starts a formula."""
    if isinstance(value, str) and value[:1] == "'" and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def read_grades(path: str | os.PathLike[str]) -> Grades:
    try:
        frame = pd.read_csv(
            path,
            dtype={"student": str, "file": str, "lab": str},
            keep_default_na=False,
            na_values={"percent": [""], "total": [""]},
        )
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise NotAGradesFile(f"{path}: not a grades CSV ({exc})") from None
    missing = [column for column in (*FIXED_COLUMNS, "total", "percent", "counts") if column not in frame.columns]
    if missing:
        raise NotAGradesFile(f"{path}: not a grades CSV written by course-grade (no column {', '.join(missing)})")
    tests = [
        TestColumn(column, *match.groups())
        for column in frame.columns
        if (match := TEST_COLUMN.fullmatch(column)) and match.group(1) in lab_registry.LABS
    ]
    for column in ("student", "file", "lab"):
        frame[column] = frame[column].map(unneutralised)
    counted = frame[frame["counts"].astype(str).str.lower() == "true"]
    counted = counted[counted["lab"].isin(list(lab_registry.LABS))]
    return Grades(counted.reset_index(drop=True), tuple(tests), len(frame))


def lab_tests(grades: Grades, lab: str) -> list[TestColumn]:
    return [test for test in grades.tests if test.lab == lab]


def lab_scores(grades: Grades, lab: str) -> pd.DataFrame:
    """The lab's counted submissions × its tests, 0/1 (a test a row has no score for counts 0)."""
    rows = grades.frame[grades.frame["lab"] == lab]
    columns = [test.column for test in lab_tests(grades, lab)]
    return rows[columns].apply(pd.to_numeric, errors="coerce").fillna(0.0).set_axis(rows["student"].to_list())


def point_biserial(item: Sequence[float], rest: Sequence[float]) -> float:
    """Pearson's r of a 0/1 item and the rest score; NaN when either is constant (r is undefined)."""
    x, y = np.asarray(item, dtype=float), np.asarray(rest, dtype=float)
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def item_stats(grades: Grades) -> list[ItemStats]:
    found: list[ItemStats] = []
    for lab in lab_registry.LABS:
        scores = lab_scores(grades, lab)
        if scores.empty:
            continue
        total = scores.sum(axis=1)
        for test in lab_tests(grades, lab):
            item = scores[test.column]
            found.append(ItemStats(test, len(item), float(item.mean()), point_biserial(item, total - item)))
    return found


def rule_matrix(grades: Grades) -> pd.DataFrame:
    """Students × rules: the share of the tests citing the rule that the student passed (NaN: none handed in)."""
    passed: dict[tuple[str, str], list[float]] = {}
    for lab in lab_registry.LABS:
        scores = lab_scores(grades, lab)
        for test in lab_tests(grades, lab):
            for rule in test.rules:
                for student, score in zip(scores.index, scores[test.column]):
                    passed.setdefault((student, rule), []).append(float(score))
    students = sorted({student for student, _ in passed})
    rules = in_rule_order({rule for _, rule in passed})
    matrix = pd.DataFrame(np.nan, index=students, columns=rules)
    for (student, rule), values in passed.items():
        matrix.loc[student, rule] = sum(values) / len(values)
    return matrix


def rule_shares(grades: Grades) -> pd.Series:
    """The class's share passing, per rule: every (submission, test citing it) counts once."""
    totals: dict[str, list[float]] = {}
    for lab in lab_registry.LABS:
        scores = lab_scores(grades, lab)
        for test in lab_tests(grades, lab):
            for rule in test.rules:
                totals.setdefault(rule, []).extend(map(float, scores[test.column]))
    return pd.Series(
        {rule: sum(values) / len(values) for rule, values in totals.items() if values}, dtype=float
    ).sort_values(kind="stable")


@dataclass(frozen=True)
class FailureMessage:
    lab: str
    test: str
    message: str
    count: int
    share: float
    """Of the lab's counted submissions."""


def folded(message: str) -> str:
    """A message's first line with every run of digits as ``N``: the same mistake reads the same for everyone."""
    first = message.strip().splitlines()[0] if message.strip() else "(no message)"
    return DIGITS.sub("N", shown(first, MESSAGE_LIMIT))


FIRST_CASE = "; first: "
"""Where a hidden test's message names the first failing case (``grade._hidden_output``), before the reason."""


@functools.cache
def _case_descriptions(lab: str, seed: int | None, test: str) -> tuple[str, ...]:
    """What the hidden test's cases are called in the run of ``seed``, longest first."""
    calls = next((t.calls for t in hidden_tests(lab, seed) if t.name == test), ())
    return tuple(sorted({call.description for call in calls}, key=len, reverse=True))


def without_case(message: str, descriptions: Iterable[str]) -> str:
    """A hidden test's message without the case it first failed on, keeping the reason.

    ``R19 R20: hint. Failed on 3 of 55 generated cases; first: a session of 15 entries, …: wrong keptEntryIds``
    reads ``… generated cases; first failure: wrong keptEntryIds``: learners whose functions make one mistake
    meet it on different cases, and one row is what the class needs.
    """
    at = message.find(FIRST_CASE)
    if at < 0:
        return message
    rest = message[at + len(FIRST_CASE) :]
    for description in descriptions:
        if rest.startswith(f"{description}: "):
            return f"{message[:at]}; first failure: {rest[len(description) + 2 :]}"
    return message


def failure_messages(
    results: Iterable[GradeResult], limit: int = MESSAGES_SHOWN, *, counted_files: set[str] | None = None
) -> list[FailureMessage]:
    """The most common messages of failed tests, over the results that count.

    ``counted_files`` (the CSV's counted rows, by ``file``) decides which
    count when given: after shards are merged the CSV has decided duplicates
    across all of them, while each shard's records only knew their own.
    """

    def counts(result: GradeResult) -> bool:
        return result.counts if counted_files is None else valid(result.submission) in counted_files

    counted = [result for result in results if counts(result) and result.lab in lab_registry.LABS]
    per_lab = Counter(result.lab for result in counted)
    found: Counter[tuple[str, str, str]] = Counter()
    for result in counted:
        assert result.lab is not None
        for test in result.tests:
            if not test.passed:
                message = test.output.strip().splitlines()[0] if test.output.strip() else ""
                if test.hidden:
                    message = without_case(message, _case_descriptions(result.lab, result.seed, test.name))
                found[(result.lab, f"{test.number} {test.name}", folded(message))] += 1
    ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [FailureMessage(lab, test, message, count, count / per_lab[lab]) for (lab, test, message), count in ranked]


def picture(draw: Callable[[], Figure], format: str = "svg") -> bytes:
    """A chart drawn and saved in the report's style; matplotlib's object API, so no pyplot state and no display."""
    buffer = io.BytesIO()
    # A student id such as ``$\\frac`` is text, not mathtext; SVG text as paths (no fonts needed); stable ids.
    with matplotlib.rc_context(
        {"text.parse_math": False, "svg.fonttype": "path", "svg.hashsalt": "course-grade-report", "font.size": 9}
    ):
        draw().savefig(
            buffer, format=format, bbox_inches="tight", dpi=110, metadata={"Date": None} if format == "svg" else None
        )
    return buffer.getvalue()


def data_url(svg: bytes) -> str:
    """A chart for the page: a ``data:`` URL of its SVG, shown inline and isolated (an ``<img>`` runs nothing)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def distribution_chart(grades: Grades) -> Figure:
    labs = [lab for lab in lab_registry.LABS if (grades.frame["lab"] == lab).any()]
    figure = Figure(figsize=(2.3 * max(1, len(labs)), 2.4), layout="tight")
    axes = figure.subplots(1, max(1, len(labs)), sharey=True, squeeze=False)[0]
    for axis, lab in zip(axes, labs):
        percent = pd.to_numeric(grades.frame.loc[grades.frame["lab"] == lab, "percent"], errors="coerce").dropna()
        axis.hist(percent, bins=np.linspace(0, 100, 11), color="#4c72b0", edgecolor="white")
        axis.set_title(f"{lab_registry.lab(lab).label} (n={len(percent)})")
        axis.set_xlabel("% of tests passed")
        axis.set_xlim(0, 100)
    axes[0].set_ylabel("submissions")
    return figure


def heatmap_chart(matrix: pd.DataFrame) -> Figure:
    rows = len(matrix.index)
    figure = Figure(figsize=(1.6 + 0.3 * len(matrix.columns), 1.2 + 0.16 * min(rows, LABELLED_ROWS)), layout="tight")
    axis = figure.subplots()
    colours = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#e6e6e6")
    image = axis.imshow(
        np.ma.masked_invalid(matrix.to_numpy(dtype=float)),
        cmap=colours,
        vmin=0,
        vmax=1,
        aspect="auto",
        interpolation="nearest",
    )
    axis.set_xticks(range(len(matrix.columns)), list(matrix.columns), rotation=90)
    if rows <= LABELLED_ROWS:
        axis.set_yticks(range(rows), [abbreviated(student, LABEL_LIMIT) for student in matrix.index])
    else:
        axis.set_yticks([])
        axis.set_ylabel(f"{rows} students, in id order")
    axis.tick_params(axis="both", length=0)
    axis.xaxis.set_ticks_position("top")
    figure.colorbar(
        image, ax=axis, fraction=0.04, pad=0.02, label="share of the rule's tests passed (grey: none handed in)"
    )
    return figure


def build_report(grades: Grades, results: list[GradeResult] | None, source: str) -> str:
    """The report page, as a complete HTML document."""
    matrix = rule_matrix(grades)
    shares = rule_shares(grades)
    labs = []
    for lab in lab_registry.LABS:
        rows = grades.frame[grades.frame["lab"] == lab]
        if rows.empty:
            continue
        percent = pd.to_numeric(rows["percent"], errors="coerce")
        statuses = Counter(rows["status"].astype(str))
        labs.append(
            {
                "heading": lab_heading(lab),
                "n": len(rows),
                "mean": float(percent.mean()),
                "median": float(percent.median()),
                "full": int((percent >= 100).sum()),
                "statuses": ", ".join(f"{n} {shown(status, 40)}" for status, n in sorted(statuses.items())),
            }
        )
    return render(
        "report.html.j2",
        source=shown(source, NAME_LIMIT),
        rows_read=grades.rows_read,
        counted=len(grades.frame),
        students=grades.frame["student"].nunique(),
        labs=labs,
        distribution=data_url(picture(lambda: distribution_chart(grades))) if labs else None,
        heatmap=data_url(picture(lambda: heatmap_chart(matrix))) if not matrix.empty else None,
        rules=[{"id": rule, "share": share, "tests": _citing(grades, rule)} for rule, share in shares.items()],
        items=item_stats(grades),
        messages=failure_messages(results, counted_files=set(grades.frame["file"])) if results is not None else None,
        similar=similar_cells(grades, results),
        similarity=similarity,
        isnan=math.isnan,
    )


def similar_cells(grades: Grades, results: list[GradeResult] | None) -> list[similarity.Match]:
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
    return similarity.pairs(similarity.matches(rows))


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
    try:
        grades = read_grades(arguments.grades)
        results = read_records(records) if records.is_file() else None
    except GradingError as exc:
        parser.error(str(exc))
    if results is None:
        print(f"warning: no {records}: the report leaves out the failure messages", file=sys.stderr)
    write_atomically(arguments.output, build_report(grades, results, str(arguments.grades)))
    print(
        f"wrote {arguments.output}: {len(grades.frame)} counted submissions of "
        f"{grades.frame['student'].nunique()} students"
    )
    return 0
