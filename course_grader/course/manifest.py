"""The late policy's manifest (``file,submitted_at``): read strictly, then matched to the files graded.

An instructor writes a manifest by hand or from an LMS export, so its paths
come in many spellings: ``./alice/x.ipynb``, ``Alice/X.ipynb`` or
``submissions/alice/x.ipynb`` all mean ``alice/x.ipynb`` (``manifest_key``),
and are matched as that, Unicode's two spellings of a letter and case aside
(``folded``: a manifest row typed or exported in NFC names the NFD file a
Mac's unzip of a Moodle download leaves). What cannot be matched is refused, naming its line:
a time that is not ISO 8601 with a time zone, a file given twice, an entry
that names no submission, several, or one another line already gave a time
(docs/grading.md, *The course file*).
"""

from __future__ import annotations

import csv
import os
import unicodedata
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path, PurePosixPath

from .course_settings import CourseFileError


def read_manifest(path: Path) -> dict[str, datetime]:
    """``file,submitted_at`` rows (ISO 8601 with an offset): when each submission arrived, per the LMS."""
    return {file: when for _, file, when in manifest_rows(path)}


def manifest_rows(path: Path) -> list[tuple[int, str, datetime]]:
    """``read_manifest``'s rows with their line numbers; a file given twice is an error naming both lines."""
    try:
        with path.open(newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    except OSError as exc:
        raise CourseFileError(f"manifest {path} (late.manifest): cannot be read ({exc.strerror or exc})") from None
    found: list[tuple[int, str, datetime]] = []
    lines: dict[str, int] = {}
    for number, row in enumerate(rows, start=2):
        if "file" not in row or "submitted_at" not in row:
            raise CourseFileError(f"manifest {path}: needs the columns file,submitted_at")
        try:
            when = datetime.fromisoformat(row["submitted_at"].strip().replace("Z", "+00:00"))
        except ValueError:
            raise CourseFileError(
                f"manifest {path}, line {number}: submitted_at {row['submitted_at']!r} is not an ISO 8601 time"
            ) from None
        if when.tzinfo is None:
            raise CourseFileError(
                f"manifest {path}, line {number}: submitted_at {row['submitted_at']!r} has no time zone"
            )
        name = row["file"].strip()
        if not name:
            raise CourseFileError(f"manifest {path}, line {number}: no file")
        if name in lines:
            raise CourseFileError(f"manifest {path}, line {number}: {name!r} is there twice (also line {lines[name]})")
        lines[name] = number
        found.append((number, name, when))
    return found


def match_manifest(
    submitted_at: dict[str, datetime],
    manifest_lines: dict[str, int],
    files: Iterable[str],
    root: str | os.PathLike[str],
    *,
    where: Path | str,
    strict: bool = True,
) -> tuple[dict[str, datetime], dict[str, int]]:
    """The manifest's times keyed by the files graded (their paths under ``root``) they name, and each one's line.

    An entry that matches no file, several, or a file another entry already
    gave a time is a ``CourseFileError`` naming the manifest (``where``) and
    its line (``strict``; otherwise such an entry is left out, for pages made
    from only some shards' records).
    """
    names = list(dict.fromkeys(files))
    exact = set(names)
    by_fold: dict[str, list[str]] = {}
    for name in names:
        by_fold.setdefault(folded(name), []).append(name)
    prefixes = _root_prefixes(root)
    matched: dict[str, datetime] = {}
    lines: dict[str, int] = {}
    for entry, when in submitted_at.items():
        line = manifest_lines.get(entry, 0)
        found = _match_entry(entry, exact, by_fold, prefixes, loose=not strict)
        problem = ""
        if isinstance(found, str) and found in matched:
            problem = (
                f"{entry!r} names {found!r}, which line {lines[found]} ({_entry_at(manifest_lines, lines[found])!r}) "
                "already gives a time"
            )
        elif isinstance(found, list):
            problem = (
                f"{entry!r} matches no submission under {os.fspath(root)}"
                if not found
                else f"{entry!r} matches {len(found)} submissions ({', '.join(found)}): write the path exactly"
            )
        if problem:
            if strict:
                raise CourseFileError(f"manifest {where}, line {line}: {problem}")
            continue
        assert isinstance(found, str)
        matched[found], lines[found] = when, line
    return matched, lines


def _entry_at(manifest_lines: dict[str, int], line: int) -> str:
    return next((entry for entry, at in manifest_lines.items() if at == line), "")


def folded(path: str) -> str:
    """A path as paths are compared when not exactly equal: Unicode normalised (NFC) and case folded, as roster names
    are (a manifest typed or exported in NFC names the NFD file a Mac's unzip leaves)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def manifest_key(entry: str) -> str:
    """A manifest path as a path under the submissions folder: ``/`` separators, no ``./``, no doubled ``/``."""
    parts = [part for part in entry.strip().replace("\\", "/").split("/") if part not in ("", ".")]
    return "/".join(parts)


def _root_prefixes(root: str | os.PathLike[str]) -> tuple[str, ...]:
    """How a manifest may write the submissions folder in front of a path: as given, absolute, or by its name."""
    given = manifest_key(os.fspath(root))
    absolute = manifest_key(os.path.abspath(root))
    return tuple(dict.fromkeys(p for p in (given, absolute, PurePosixPath(given).name) if p))


def _match_entry(
    entry: str, exact: set[str], by_fold: dict[str, list[str]], prefixes: tuple[str, ...], *, loose: bool = False
) -> str | list[str]:
    """The one file ``entry`` names, else the files it could name (none, or several in another letter case).

    Exactly first, then ``folded`` (Unicode's two spellings of a letter and case aside). ``loose`` (no submissions
    folder known, e.g. pages from records): a path with any folder in front of exactly one file's path names that file.
    """
    key = manifest_key(entry)
    forms = [entry.strip(), key]
    for prefix in prefixes:
        if folded(key).startswith(folded(prefix) + "/"):
            forms.append(key[len(prefix) + 1 :])
    for form in forms:
        if form in exact:
            return form
    for form in forms:
        candidates = by_fold.get(folded(form), [])
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            return candidates
    if loose:
        ends = [name for name in exact if folded(key).endswith("/" + folded(name))]
        return ends[0] if len(ends) == 1 else ends
    return []
