"""``grades.jsonl``: every ``GradeResult`` of a batch, one JSON object a line, beside ``grades.csv``.

The CSV holds one score per test; the class report also needs what each test
said (its message) and the feedback pages everything a result holds. The
companion keeps whole results, lossless: ``json.dumps`` escapes what is not
ASCII, so a file name that is not UTF-8 (a lone surrogate in Python) survives
the round trip instead of failing the write. Written whole or not at all, like
the CSV (``write_atomically``).

While a batch grades, every row is also appended, as it is made, to a journal
beside them (``journal``: ``grades.partial.jsonl``, flushed to disk line by
line) and the journal is removed once the CSV and the records are written: a
grader killed after grading (issue 43: OOM-killed in the similarity pass) leaves
every finished row on disk, in this same format.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from ..errors import GradingError
from ..files import write_atomically
from ..judging.verdicts import GradeResult
from ..safe_text import valid

SUFFIX = ".jsonl"


class BadRecords(GradingError):
    """A companion file that is not one ``GradeResult`` per line; names the file and the line."""


def companion(csv: str | os.PathLike[str]) -> Path:
    """Where a CSV's companion lives: the same name with ``.jsonl`` (``grades.csv`` → ``grades.jsonl``)."""
    return Path(csv).with_suffix(SUFFIX)


def journal(csv: str | os.PathLike[str]) -> Path:
    """Where a batch appends each row as it is made: ``grades.csv`` → ``grades.partial.jsonl``."""
    return Path(csv).with_suffix(".partial" + SUFFIX)


def start_journal(path: Path) -> Path:
    """An empty journal at ``path``; one a stopped run left there is kept aside (``….stopped.jsonl``), and said."""
    if path.exists():
        kept = path.with_name(path.name.replace(".partial" + SUFFIX, ".stopped" + SUFFIX))
        os.replace(path, kept)
        print(f"warning: {path} held the rows a stopped run had graded; kept as {kept}", file=sys.stderr)
    path.write_text("", encoding="utf-8")
    return path


def append_record(result: GradeResult, path: Path) -> None:
    """``result`` as one more line of the journal, on disk (flushed and synced) before the batch goes on."""
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps(result.model_dump(mode="json")) + "\n")
        file.flush()
        os.fsync(file.fileno())


def counted_files(csv: str | os.PathLike[str]) -> set[str]:
    """The files a grades CSV counts (``counts`` true), as graded: its formula guard undone.

    After shards are merged, the CSV has decided duplicates across all of
    them; each shard's records only knew their own.
    """
    import pandas as pd

    from ..safe_text import FORMULA_STARTS

    try:
        frame = pd.read_csv(csv, usecols=["file", "counts"], dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise BadRecords(f"{csv}: not a grades CSV ({exc})") from None

    def restored(value: str) -> str:
        return value[1:] if value[:1] == "'" and value[1:].startswith(FORMULA_STARTS) else value

    return {restored(file) for file, counts in zip(frame["file"], frame["counts"]) if counts == "True"}


def with_counts(results: Iterable[GradeResult], files: set[str]) -> list[GradeResult]:
    """``results`` with ``counts`` as ``files`` (a CSV's counted rows) says."""
    return [result.model_copy(update={"counts": valid(result.submission) in files}) for result in results]


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
