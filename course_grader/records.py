"""``grades.jsonl``: every ``GradeResult`` of a batch, one JSON object a line, beside ``grades.csv``.

The CSV holds one score per test; the class report also needs what each test
said (its message) and the feedback pages everything a result holds. The
companion keeps whole results, lossless: ``json.dumps`` escapes what is not
ASCII, so a file name that is not UTF-8 (a lone surrogate in Python) survives
the round trip instead of failing the write. Written whole or not at all, like
the CSV (``write_atomically``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from .errors import GradingError
from .results import GradeResult, write_atomically

SUFFIX = ".jsonl"


class BadRecords(GradingError):
    """A companion file that is not one ``GradeResult`` per line; names the file and the line."""


def companion(csv: str | os.PathLike[str]) -> Path:
    """Where a CSV's companion lives: the same name with ``.jsonl`` (``grades.csv`` → ``grades.jsonl``)."""
    return Path(csv).with_suffix(SUFFIX)


def write_records(results: Iterable[GradeResult], path: str | os.PathLike[str]) -> Path:
    path = Path(path)
    write_atomically(path, "".join(json.dumps(result.model_dump(mode="json")) + "\n" for result in results))
    return path


def read_records(path: str | os.PathLike[str]) -> list[GradeResult]:
    results: list[GradeResult] = []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                results.append(GradeResult.model_validate(json.loads(line)))
            except ValueError as exc:  # json.JSONDecodeError and pydantic's ValidationError are both ValueErrors
                raise BadRecords(f"{path}, line {number}: not a graded result ({str(exc).splitlines()[0]})") from None
    return results
