"""What the similarity pass may compare: a budget of bytes and cells per submission and for the batch (issue 43).

Fingerprinting costs memory in proportion to the code compared: copydetect keeps
about 40 MB per 200 kB cell, so one notebook of 76 such cells (19.5 MB, under
the 20 MB limit) held the grader at 1,271 MB after 28 cells, and it was
OOM-killed in a 3 GB limit *after grading*, before any CSV was written. So each
submission's exercise cells are compared only within ``SUBMISSION_BYTES`` and
``SUBMISSION_CELLS``, and the batch's only within ``TOTAL_BYTES`` and
``TOTAL_CELLS`` (in path order); a submission over either is not compared, and
its row says so. Nothing here changes a score. The pass also runs where its
memory is bounded (``bounded.py``).
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from course_lib.teaching.lab_registry import Lab

from .similarity_notes import PREFIX

SUBMISSION_BYTES = 128 * 1024
"""Bytes of exercise code compared per submission (the course's solutions hold a few kB)."""
SUBMISSION_CELLS = 32
TOTAL_BYTES = 4 * 2**20
"""Bytes of exercise code compared in one batch: about 1.5 GB of fingerprints at most."""
TOTAL_CELLS = 8192


def over_note(what: str) -> str:
    """A row's note when its cells are not compared (instructor-only, as every similarity note: ``PREFIX``)."""
    return f"{PREFIX}not compared: {what}"


class Compared(Protocol):
    """What the budget reads of a compared text (``similarity.Text``): its file and its source."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> str: ...


T = TypeVar("T", bound=Compared)


def within_budget(per_lab: dict[Lab, list[T]], notes: dict[str, list[str]]) -> dict[Lab, list[T]]:
    """``per_lab`` without the submissions over their budget or past the batch's, each of those noted in ``notes``.

    A submission's cells are kept or left out together; the batch's budget is
    spent in path order, so the same folder keeps the same submissions.
    """
    files: dict[str, list[T]] = {}
    for cells in per_lab.values():
        for text in cells:
            files.setdefault(text.name, []).append(text)
    kept: set[str] = set()
    spent_bytes = spent_cells = 0
    for name in sorted(files, key=lambda file: tuple(file.split("/"))):
        size, count = sum(len(text.source.encode("utf-8", "surrogatepass")) for text in files[name]), len(files[name])
        if size > SUBMISSION_BYTES or count > SUBMISSION_CELLS:
            notes.setdefault(name, []).append(
                over_note(
                    f"its exercise cells hold {_kb(size)} in {count} cells, over the budget of "
                    f"{_kb(SUBMISSION_BYTES)} and {SUBMISSION_CELLS} cells a submission"
                )
            )
        elif spent_bytes + size > TOTAL_BYTES or spent_cells + count > TOTAL_CELLS:
            notes.setdefault(name, []).append(
                over_note(f"the batch's budget of {_kb(TOTAL_BYTES)} and {TOTAL_CELLS} cells was used up before it")
            )
        else:
            kept.add(name)
            spent_bytes, spent_cells = spent_bytes + size, spent_cells + count
    return {lab: [text for text in cells if text.name in kept] for lab, cells in per_lab.items()}


def _kb(size: int) -> str:
    return f"{size / 1024:,.0f} kB"
