"""Similarity notes as text: how a row says a cell is alike another, and how the report reads it back.

A batch writes its findings into the rows' notes (``similarity.noted``), so they
travel with the grades CSV and its records through ``merge`` and shards; the
class report parses them back (``matches``, ``pairs``) and the feedback pages
leave them out (``is_similarity_note``): a note may name another student. This
module needs neither copydetect nor the notebooks, so reading notes stays cheap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from course_lib.teaching import lab_registry

PREFIX = "similarity (reported, not judged; the score is unchanged): "
"""How every similarity note starts: the report finds them by it, the feedback pages leave them out."""


@dataclass(frozen=True)
class Match:
    """A submission's exercise cell alike another text."""

    lab: str
    file: str
    student: str
    cell: int
    share: float
    """Of this cell's own code, the part shared with ``other``."""
    other: str
    other_student: str | None
    """``None``: ``other`` is ``course_lib``'s implementation of the lab."""
    other_cell: int
    other_share: float
    """Of the other text's own code, the part shared with this cell."""

    @property
    def reference(self) -> bool:
        return self.other_student is None


def note(match: Match) -> str:
    """The row's note (``parsed`` reads it back)."""
    if match.reference:
        return (
            f"{PREFIX}exercise cell {match.cell} is {_percent(match.share)} % alike {match.other}, "
            f"the course's own implementation of {lab_registry.lab(match.lab).label}"
        )
    return (
        f"{PREFIX}exercise cell {match.cell} is {_percent(match.share)} % alike exercise cell {match.other_cell} "
        f"of {match.other} ({_percent(match.other_share)} % of that cell; student {match.other_student})"
    )


_REFERENCE_NOTE = re.compile(
    rf"{re.escape(PREFIX)}exercise cell (\d+) is (\d+) % alike (.*), the course's own implementation of (.*)", re.S
)
_PAIR_NOTE = re.compile(
    rf"{re.escape(PREFIX)}exercise cell (\d+) is (\d+) % alike exercise cell (\d+) of (.*) "
    r"\((\d+) % of that cell; student (.*)\)",
    re.S,
)


def parsed(text: str, lab: str, file: str, student: str) -> Match | None:
    """The match a note on ``file``'s row says, or ``None`` for any other note."""
    if not text.startswith(PREFIX):
        return None
    if found := _REFERENCE_NOTE.fullmatch(text):
        cell, share, other, _ = found.groups()
        return Match(lab, file, student, int(cell), int(share) / 100, other, None, 0, 0.0)
    if found := _PAIR_NOTE.fullmatch(text):
        cell, share, other_cell, other, other_share, other_student = found.groups()
        return Match(
            lab,
            file,
            student,
            int(cell),
            int(share) / 100,
            other,
            other_student,
            int(other_cell),
            int(other_share) / 100,
        )
    return None


def renamed(text: str, moved: dict[str, tuple[str, str]]) -> str:
    """A note naming another file's student as ``moved`` (file → (before, now)) says it now: after a roster change,
    a regrade's file is someone else's, and the notes of the rows ``merge`` kept name them again. Any other note as
    it is."""
    match = parsed(text, "", "", "") if text.startswith(PREFIX) else None
    if match is None or match.reference or match.other not in moved or moved[match.other][0] != match.other_student:
        return text
    return text.removesuffix(f"; student {match.other_student})") + f"; student {moved[match.other][1]})"


def is_similarity_note(text: str) -> bool:
    """A note for the instructor alone (it may name another student): the feedback pages leave it out."""
    return text.startswith(PREFIX)


def _percent(share: float) -> int:
    return int(share * 100)  # floored: 49.9 % is never shown as the threshold's 50 %


def matches(rows: Iterable[tuple[str | None, str, str, Iterable[str]]]) -> list[Match]:
    """Every match the notes record, from rows of ``(lab, file, student, notes)``, as ``noted`` wrote them."""
    return [
        match
        for lab, file, student, notes in rows
        if lab is not None
        for text in notes
        if (match := parsed(text, lab, file, student)) is not None
    ]


def pairs(found: Iterable[Match]) -> list[Match]:
    """Each pair of submissions' cells once (the first file in path order), references as they are; closest first."""
    seen: set[tuple[str, int, str, int]] = set()
    unique: list[Match] = []
    for match in found:
        if not match.reference:
            key = min(
                (match.file, match.cell, match.other, match.other_cell),
                (match.other, match.other_cell, match.file, match.cell),
            )
            if key in seen:
                continue
            seen.add(key)
            if (match.other, match.other_cell) < (match.file, match.cell):
                match = Match(
                    match.lab, match.other, match.other_student or "", match.other_cell, match.other_share,
                    match.file, match.student, match.cell, match.share,
                )  # fmt: skip
        unique.append(match)
    return sorted(unique, key=lambda m: (m.lab, m.other_student is not None, -max(m.share, m.other_share), m.file))
