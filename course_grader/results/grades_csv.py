"""The per-notebook CSV as a format: its columns and their types, row order, duplicates, writing and reading back.

Why one module: a batch writes this CSV from its results, and ``course-grade
merge`` writes it again from shard CSVs; both must give the same bytes for
the same grades (docs/grading.md, *Grading past one machine*). So the columns,
the type of each (``typed``), the row order (``row_key``, by path) and the
writer are written once, here, and both paths go through them (which of a
student's duplicates counts is ``duplicates``).

Safe to open in a spreadsheet: every text cell is quoted, and one that would
start a formula is prefixed with ``'`` (``neutralised``; OWASP, *CSV
Injection*). ``read_frame`` undoes exactly that.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from course_lib.teaching import lab_registry

from ..errors import GradingError
from ..files import write_atomically

if TYPE_CHECKING:  # pandas loads where a frame is made, so the grader starts without it (issue 31)
    import pandas as pd

FIRST = ["student", "student_from", "file", "lab"]
COURSE = ["points", "max_points", "late", "penalty", "score", "submitted", "submitted_from", "handed_in"]
"""The course's view of a row (``scoring.Score``, when the file came and to which lab's assignment): after the
test columns."""
LAST = ["total", "max_score", "percent", "status", "counts", "seconds", "budget", "sandbox", "seed", "notes"]
RECORDED = ["course"]
"""After ``notes``: the course file the row was scored by (``Course.stamp``: its fingerprint and path; empty
without one), so ``merge`` refuses shards of two course files and ``feedback`` scores pages by the same one."""
SHARD_COLUMN = re.compile(
    r"shard (\d+)/(\d+), duplicates: (latest|earliest|best)"
    r"(?:; seed ([A-Za-z0-9_-]+); course ([0-9a-f]+(?:\.[0-9a-f]+)?|none); folder ([0-9a-f]+) \((\d+) entries\))?"
)
"""Only in a shard's CSV, as its last column's name (its cells empty, so an empty shard says it too): which shard
(``--shard I/N``) and the duplicates policy, so ``merge`` can check it has them all and decide across them; since
the run record (``shard.run_record``), also the run's seed, course file fingerprint and folder listing, so that
``merge`` refuses shards of different runs. A shard CSV without the record (an older grader) still merges."""
TEXT = {
    "student",
    "student_from",
    "file",
    "lab",
    "late",
    "submitted",
    "submitted_from",
    "handed_in",
    "status",
    "sandbox",
    "notes",
    "course",
}
FLAGS = {"counts"}
SECRETS = {"seed"}
"""Text, but ``None`` where a row has none (each lab's fixed seed): the run's secret, or an older grader's number.
Every other column is a number of points or seconds (a float; empty where it does not apply)."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP, *CSV Injection*)."""


class GradesCsvError(GradingError):
    """A file given to ``merge`` or ``export`` is not a grades CSV this grader wrote (or not a complete set of shards)."""


def neutralised(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula, prefixed with ``'``; numbers and other text unchanged.

    Only text: ``-1.5`` in a score column is a number, not a formula.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def restored(value: str) -> str:
    """``neutralised`` undone: ``neutralised(restored(cell)) == cell`` for every cell it wrote."""
    return value[1:] if value.startswith("'") and value[1:].startswith(FORMULA_STARTS) else value


def row_key(file: str) -> tuple[str, ...]:
    """Rows come in path order (by folder, then name), whichever machine or shard graded them."""
    return tuple(file.split("/"))


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Every column in its one type, so a shard's frame and a whole run's write a value the same way."""
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    frame = frame.copy()
    for column in frame.columns:
        if column in TEXT or SHARD_COLUMN.fullmatch(column):
            frame[column] = frame[column].map(
                lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)
            )
        elif column in FLAGS:
            frame[column] = frame[column].astype(bool)
        elif column in SECRETS:
            frame[column] = pd.Series([None if _missing(v) else str(v) for v in frame[column]], dtype=object)
        else:
            frame[column] = pd.to_numeric(frame[column], errors="raise").astype("float64")
    return frame


def _missing(value: Any) -> bool:
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) or value == ""


def render(frame: pd.DataFrame) -> str:
    """The CSV text of ``frame`` (typed), every text cell quoted and neutralised."""
    frame = typed(frame)
    safe = frame.map(neutralised) if len(frame) else frame
    return safe.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")


def write_frame(frame: pd.DataFrame, path: str | Path) -> None:
    """``render`` written whole or not at all (a temporary file renamed into place)."""
    write_atomically(Path(path), render(frame))


def read_frame(path: str | Path) -> pd.DataFrame:
    """A grades CSV as the data it was written from: cells un-neutralised, each column in its type."""
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GradesCsvError(f"{path}: cannot be read ({exc})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0][: len(FIRST)] != FIRST or "notes" not in rows[0]:
        raise GradesCsvError(
            f"{path}: not a grades CSV written by course-grade (its header starts {rows[0][:4] if rows else []})"
        )
    header, body = rows[0], rows[1:]
    if any(len(row) != len(header) for row in body):
        raise GradesCsvError(f"{path}: a row has more or fewer cells than the header")
    columns: dict[str, list[Any]] = {name: [] for name in header}
    for row in body:
        for name, cell in zip(header, row):
            columns[name].append(_parse(name, restored(cell)))
    return typed(pd.DataFrame(columns, columns=header))


def _parse(column: str, cell: str) -> Any:
    if column in TEXT or SHARD_COLUMN.fullmatch(column):
        return cell
    if column in FLAGS:
        return cell == "True"
    if column in SECRETS:
        return cell or None
    return math.nan if cell == "" else float(cell)


def test_order(column: str) -> tuple[int, int, int, str]:
    """Labs in course order (``lab_registry.LABS``), checklist tests by number, then hidden tests H1, H2, …"""
    lab, number, name = column.split(" ", 2)
    position = list(lab_registry.LABS).index(lab) if lab in lab_registry.LABS else len(lab_registry.LABS)
    hidden = number.startswith("H")
    digits = number.removeprefix("H")
    return position, int(hidden), int(digits) if digits.isdigit() else 0, name


def columns(test_columns: Sequence[str], *, shard: str | None = None) -> list[str]:
    """The CSV's columns: the fixed ones around the test columns, these in ``test_order``; a shard's own last."""
    return [*FIRST, *sorted(test_columns, key=test_order), *COURSE, *LAST, *RECORDED, *([shard] if shard else [])]


def shard_column(index: int, total: int, policy: str, run: str = "") -> str:
    """A shard CSV's last column: ``shard 2/3, duplicates: latest``, then ``; <run record>`` (``shard.run_record``)."""
    return f"shard {index}/{total}, duplicates: {policy}" + (f"; {run}" if run else "")


NOTES_SEPARATOR = " | "
"""Between a row's notes in the CSV's ``notes`` cell."""
