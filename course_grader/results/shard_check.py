"""What ``merge`` refuses beyond an incomplete set: shards that are not one run's, and rows no grader wrote.

Why: ``merge`` joins CSVs that machines wrote apart, and a mix-up there is
silent otherwise: shards drawn under two seeds, scored by two course files (a
lab worth 10 points in one, 100 in the other), graded from two folders, a
shard's CSV relabelled as another shard (its files counted twice, the other
shard's students gone) or a score edited past its maximum. Each is refused
here with the file and what differs (docs/grading.md, *Grading past one
machine*). The run record (``shard.run_record``, in a shard CSV's last column)
gives the seed, the course file's fingerprint and the folder's listing; the
rows themselves give the rest, so a shard CSV written before the record
existed is still checked row by row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..intake.shard import folder_digest, shard_of
from .grades_csv import COURSE, FIRST, LAST, RECORDED, GradesCsvError

if TYPE_CHECKING:
    import pandas as pd

TOLERANCE = 0.011
"""Points and scores are written to two places: ``score`` may differ from ``points - penalty`` by a rounding."""


def check_shards(paths: Sequence[str], parts: Sequence[pd.DataFrame], matches: Sequence[re.Match[str]]) -> None:
    """``GradesCsvError`` naming the file and what differs, when the shards are not one run's, whole and untouched."""
    _same_run(paths, matches)
    _rows_in_their_shard(paths, parts, matches)
    _same_seed_and_course(paths, parts, matches)
    if matches[0].group(4) is None:  # no run record to compare course files by: the labs' points tell
        same_lab_maxima(paths, parts)
    for path, part in zip(paths, parts):
        possible_scores(path, part)
    _whole_folder(paths, parts, matches)


def _same_run(paths: Sequence[str], matches: Sequence[re.Match[str]]) -> None:
    recorded = [(path, match) for path, match in zip(paths, matches) if match.group(4) is not None]
    if not recorded:
        return
    if len(recorded) != len(paths):
        bare = next(path for path, match in zip(paths, matches) if match.group(4) is None)
        raise GradesCsvError(
            f"{bare} has no run record (seed, course file, folder) but {recorded[0][0]} has: "
            "the shards come from different runs of course-grade; grade every shard with one version"
        )
    first_path, first = recorded[0]
    for path, match in recorded[1:]:
        if match.group(4) != first.group(4):
            raise GradesCsvError(
                f"{path} was graded with seed {match.group(4)}, {first_path} with seed {first.group(4)}: "
                "every shard needs the same hidden cases (give each the same course file or --seed)"
            )
        if match.group(5) != first.group(5):
            raise GradesCsvError(
                f"{path} was scored by another course file (fingerprint {match.group(5)}) than {first_path} "
                f"({first.group(5)}): every shard needs the same course file, its weights, points and deadlines"
            )
        if match.group(6, 7) != first.group(6, 7):
            raise GradesCsvError(
                f"{path} graded another folder than {first_path}: {match.group(7)} entries listing as "
                f"{match.group(6)}, against {first.group(7)} as {first.group(6)} (another folder, or one that "
                "changed between the shards' runs)"
            )


def _rows_in_their_shard(paths: Sequence[str], parts: Sequence[pd.DataFrame], matches: Sequence[re.Match[str]]) -> None:
    """Every file in the shard its path hashes to, and in one shard only: a relabelled shard is caught by its rows."""
    where: dict[str, str] = {}
    for path, part, match in zip(paths, parts, matches):
        index, total = int(match.group(1)), int(match.group(2))
        for file in part["file"]:
            if file in where:
                raise GradesCsvError(f"{file!r} is in {where[file]} and in {path}: a shard given twice, or relabelled")
            where[file] = path
            # a name that was not UTF-8 is written with U+FFFD, which no longer hashes as graded: the folder check holds it
            if "\ufffd" not in file and shard_of(file, total) != index:
                raise GradesCsvError(
                    f"{path} says it is shard {index}/{total}, but its row {file!r} is shard "
                    f"{shard_of(file, total)}/{total}'s: a shard relabelled, or one of another split or folder"
                )


def _same_seed_and_course(
    paths: Sequence[str], parts: Sequence[pd.DataFrame], matches: Sequence[re.Match[str]]
) -> None:
    """Every row of every shard drawn from one seed and scored by one course file (the CSV's ``seed`` and ``course``)."""
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    first: dict[str, tuple[str, str, str]] = {}
    for path, part, match in zip(paths, parts, matches):
        for column, recorded, what in (
            ("seed", match.group(4), "seed"),
            ("course", match.group(5), "course file (fingerprint)"),
        ):
            if column not in part.columns:
                continue
            for file, cell in zip(part["file"], part[column]):
                if column == "seed" and (cell is None or cell is pd.NA):
                    continue
                value = str(cell) if column == "seed" else str(cell).split(" ", 1)[0] or "none"
                if recorded is not None and value != recorded:
                    raise GradesCsvError(
                        f"{path}: its row {file!r} has {what} {value}, but the shard's run record says {recorded}"
                    )
                seen, where, row = first.setdefault(column, (value, path, file))
                if seen != value:
                    raise GradesCsvError(
                        f"{path}: its row {file!r} has {what} {value}, but {where}'s row {row!r} has {seen}: "
                        "the shards are not one run's (give every shard the same course file or --seed)"
                    )


def same_lab_maxima(paths: Sequence[str], parts: Sequence[pd.DataFrame]) -> None:
    """A lab's ``max_points`` is one number in each shard; two shards with two numbers used two course files."""
    first: dict[str, tuple[float, str]] = {}
    for path, part in zip(paths, parts):
        graded = part[part["lab"] != ""]
        for lab, maxima in graded.groupby("lab")["max_points"]:
            values = set(maxima.dropna())
            if len(values) != 1:
                continue
            (value,) = values
            earlier = first.setdefault(str(lab), (value, path))
            if earlier[0] != value:
                raise GradesCsvError(
                    f"{path}: Lab {lab} is worth {value:g} points there but {earlier[0]:g} in {earlier[1]}: "
                    "the shards were scored by different course files"
                )


def possible_scores(path: str, part: pd.DataFrame) -> None:
    """Every number a grader could have written: each test 0…1, the sums adding up, nothing past its maximum."""
    tests = [c for c in part.columns if c not in {*FIRST, *COURSE, *LAST, *RECORDED}]
    for position in range(len(part)):
        row = part.iloc[position]
        cells = [float(row[c]) for c in tests if not math.isnan(float(row[c]))]
        problem = ""
        bad = next((c for c in tests if not math.isnan(float(row[c])) and not 0 <= float(row[c]) <= 1), None)
        if bad is not None:
            problem = f"test {bad!r} scores {float(row[bad]):g}, but a test scores 0 to 1"
        elif abs(sum(cells) - row["total"]) > 1e-6 or row["max_score"] != len(cells):
            problem = (
                f"total {row['total']:g} of {row['max_score']:g}, but its {len(cells)} tests add up to {sum(cells):g}"
            )
        elif not 0 <= row["points"] <= row["max_points"] + TOLERANCE:
            problem = f"points {row['points']:g} out of {row['max_points']:g}"
        elif not 0 <= row["penalty"] <= row["points"] + TOLERANCE:
            problem = f"a penalty of {row['penalty']:g} on {row['points']:g} points"
        elif abs(row["score"] - (row["points"] - row["penalty"])) > TOLERANCE:
            problem = f"score {row['score']:g}, but points {row['points']:g} − penalty {row['penalty']:g}"
        if problem:
            raise GradesCsvError(f"{path}: its row {row['file']!r} has an impossible score: {problem}")


def _whole_folder(paths: Sequence[str], parts: Sequence[pd.DataFrame], matches: Sequence[re.Match[str]]) -> None:
    """With a run record, the merged rows are the folder's listing exactly: no student vanishes, none counts twice."""
    record = matches[0]
    if record.group(6) is None:
        return
    files = [file for part in parts for file in part["file"]]
    if len(files) != int(record.group(7)) or folder_digest(files) != record.group(6):
        raise GradesCsvError(
            f"the shards hold {len(files)} rows, but the folder they graded had {record.group(7)} entries "
            f"(listing {record.group(6)}; these rows list as {folder_digest(files)}): a shard lost rows, or "
            f"holds another folder's ({', '.join(paths)})"
        )
