"""``course-grade merge``: the shard CSVs of one run joined into the whole run's CSV.

Why apart from ``grades_csv`` (the format) and ``shard_check`` (what a set of
shards must agree on): merging reads shards with the one, refuses with the
other, and writes with the first again, so the whole CSV has the same bytes as
an unsharded run's (docs/grading.md, *Grading past one machine*).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .duplicates import Decisions, flag_frame
from .grades_csv import (
    COURSE,
    FIRST,
    LAST,
    RECORDED,
    SHARD_COLUMN,
    GradesCsvError,
    columns,
    read_frame,
    row_key,
    typed,
)
from .shard_check import check_shards

if TYPE_CHECKING:
    import pandas as pd


def merge(paths: Sequence[str | Path], decisions: Decisions | None = None) -> pd.DataFrame:
    """The shard CSVs of one run joined: the whole run's frame, duplicates decided across shards.

    Refuses anything but one complete set: every file a shard's CSV
    (``--shard I/N``), one N and one duplicates policy, each of 1…N exactly once;
    then what ``shard_check.check_shards`` refuses (other seeds, course files or
    folders, rows in the wrong shard or twice, impossible scores). ``decisions``:
    the course file's ``[[decisions]]``, as the unsharded run applies them.
    """
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    frames = [read_frame(path) for path in paths]
    seen: dict[int, str] = {}
    totals, policies = set(), set()
    shard_columns = []
    matches = []
    for path, frame in zip(paths, frames):
        match = SHARD_COLUMN.fullmatch(str(frame.columns[-1]))
        if match is None:
            raise GradesCsvError(f"{path}: not a shard's CSV (course-grade FOLDER --shard I/N writes one)")
        matches.append(match)
        index, total = int(match.group(1)), int(match.group(2))
        if index in seen:
            raise GradesCsvError(f"shard {index}/{total} is given twice: {seen[index]} and {path}")
        seen[index] = str(path)
        totals.add(total)
        policies.add(match.group(3))
        shard_columns.append(frame.columns[-1])
    if len(totals) != 1:
        raise GradesCsvError(
            f"the CSVs come from runs split differently (--shard …/{' and …/'.join(map(str, sorted(totals)))})"
        )
    (total,) = totals
    missing = [f"{i}/{total}" for i in range(1, total + 1) if i not in seen]
    if missing:
        raise GradesCsvError(f"shard {', '.join(missing)} missing: merge needs every shard of the run")
    if len(policies) > 1:
        raise GradesCsvError(f"the shards used different duplicates policies ({', '.join(sorted(policies))})")
    parts = [frame.drop(columns=[column]) for frame, column in zip(frames, shard_columns)]

    check_shards([str(path) for path in paths], parts, matches)
    tests = {c for part in parts for c in part.columns if c not in {*FIRST, *COURSE, *LAST, *RECORDED}}
    whole = pd.concat([part for part in parts if len(part)] or parts[:1], ignore_index=True)
    whole = typed(whole.reindex(columns=columns(sorted(tests))))
    whole = whole.iloc[sorted(range(len(whole)), key=lambda i: row_key(whole["file"].iloc[i]))].reset_index(drop=True)
    return flag_frame(whole, policies.pop(), decisions)
