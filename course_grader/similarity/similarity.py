"""Similarity, reported and never judged: exercise cells alike the course's own code or another submission's.

The course pack installs its reference implementation with it (``course_lib``),
and the grading sandbox stubs out what each lab withholds (``lab_registry``),
so a learner who pastes ``course_lib/context.py`` into the exercise cell of Lab
11.3 still scores in full: the code is theirs to run. What the grader can do is
say so, and say when two students' cells are alike, for the instructor to look
at. Nothing here changes a score (docs/grading.md, *Similarity*).

The comparison is copydetect's (winnowing fingerprints, as MOSS): each cell is
tokenised by Pygments and normalised (names, functions, classes and strings
become one letter each; comments and white space go), so renaming or
re-commenting changes nothing. Every ``NOISE``-character run of what is left is
a fingerprint (copydetect's default window of 1: it hashes with Python's salted
``hash``, and a wider window would make the selection, so the figure, differ
from one run to the next). The lab's own stub cells (signatures, docstrings,
``raise NotImplementedError``) are boilerplate: their fingerprints are removed
everywhere, so only what the learner wrote is compared.

A cell's **similarity** to another text is the share of the cell's own
normalised code (stub removed) that lies in runs shared with that text. A cell
is reported when that share reaches ``THRESHOLD`` and the shared code is at
least ``MIN_SHARED`` characters: against ``course_lib``'s implementation of the
lab (the modules it withholds), or against any exercise cell of another
student's submission of the same lab (either side's share). The figures that
set them, on the course's own solutions and honest variants written apart, are
in docs/grading.md (``python scripts/similarity_figures.py`` measures them).
"""

from __future__ import annotations

import ast
import io
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import course_lib
from course_lib.teaching.lab_registry import Lab

from ..errors import GradingError
from ..intake.cells import exercise_sources
from ..intake.discovery import find_submissions
from ..intake.identity import submission_name
from ..intake.lab_templates import find_template
from ..intake.notebook import read_submission
from ..intake.roster import Names, attribute
from ..judging.verdicts import GradeResult, result_lab
from .budget import within_budget
from .similarity_notes import PREFIX, Match, note

if TYPE_CHECKING:
    from copydetect import CodeFingerprint

NOISE = 25
"""Normalised characters a fingerprint spans: copydetect's default noise threshold (shorter runs are not matches)."""
THRESHOLD = 0.5
"""A cell is reported when this share of its own code (stub removed) is shared with the other text.
Measured (docs/grading.md): honest solutions written apart share at most 33 % with each other; copies one
edit apart at least 87 %; a paste of a withheld module, every name renamed, at least 54 %."""
MIN_SHARED = 250
"""…and the shared code is at least this many normalised characters (ten lines or so): below it, the lab's
rules all but dictate the code (the course's own 11.4 solution shares 58 % with ``course_lib``'s, in 207)."""
MAX_CELL = 200_000
"""Characters of a cell compared (the first ones): a 20 MB cell is not worth a minute of tokenising."""
NAMED = 5
"""Other submissions a cell's notes name, the closest first (the rest are counted)."""


@dataclass(frozen=True)
class Text:
    """One text compared: a submission's exercise cell, or a module of ``course_lib``."""

    name: str
    """The submission's file (``alice/lab.ipynb``), or the module's file (``course_lib/context.py``)."""
    student: str | None
    """Whose submission it is; ``None`` for the course's code."""
    cell: int
    """The exercise cell's number (1: the first cell tagged ``exercise``); 0 for a module."""
    source: str


@cache
def stub_cells(lab: Lab, labs_dir: str | Path | None = None) -> tuple[str, ...]:
    """The lab's exercise cells as the course hands them out: the boilerplate every submission starts from."""
    return exercise_sources(find_template(lab, labs_dir))


@cache
def reference_texts(lab: Lab) -> tuple[Text, ...]:
    """``course_lib``'s implementation of ``lab``: each module it withholds, or the definitions named.

    Read from the installed package (the one a learner can open and paste),
    without importing it.
    """
    package = Path(course_lib.__file__).parent  # as installed
    texts: list[Text] = []
    for withheld in lab.withheld:
        top, *parts = withheld.module.split(".")
        module = package.joinpath(*parts)
        path = module.with_suffix(".py") if module.with_suffix(".py").is_file() else module / "__init__.py"
        if top != package.name or not path.is_file():
            continue
        source = path.read_text(encoding="utf-8")
        if withheld.names:
            tree = ast.parse(source)
            wanted = [
                ast.get_source_segment(source, node) or ""
                for node in tree.body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name in withheld.names
            ]
            source = "\n\n\n".join(wanted)
        texts.append(Text(path.relative_to(package.parent).as_posix(), None, 0, source))
    return tuple(texts)


class _Fingerprints:
    """copydetect's fingerprints of texts, the lab's stub removed from each (imported only when a batch compares)."""

    def __init__(self, boilerplate: Sequence[str]) -> None:
        import numpy as np

        stub = [self._print(text, None).hashes for text in boilerplate]
        self.boilerplate = np.unique(np.array([h for hashes in stub for h in hashes], dtype=np.int64))

    @staticmethod
    def _print(source: str, boilerplate: Any) -> CodeFingerprint:
        from copydetect import CodeFingerprint

        return CodeFingerprint(
            "cell.py",
            NOISE,
            1,
            boilerplate=boilerplate,
            fp=io.StringIO(source[:MAX_CELL]),
            language="python",
        )

    def of(self, source: str) -> CodeFingerprint:
        return self._print(source, self.boilerplate)


def _compared(first: CodeFingerprint, second: CodeFingerprint) -> tuple[int, float, float]:
    """Shared normalised characters (in ``first``) and each side's share of its own code."""
    from copydetect import compare_files

    if not first.hashes or not second.hashes or first.hashes.isdisjoint(second.hashes):
        return 0, 0.0, 0.0
    shared, (share, other_share), _ = compare_files(first, second)
    return int(shared), float(share), float(other_share)


def reported(shared: int, share: float, other_share: float) -> bool:
    return shared >= MIN_SHARED and max(share, other_share) >= THRESHOLD


def compare_lab(
    lab: Lab, cells: Sequence[Text], *, boilerplate: Sequence[str], references: Sequence[Text] = ()
) -> list[Match]:
    """The matches among one lab's submitted cells, and of each with the lab's ``references``.

    Against a reference only the cell's share counts (a module holds far more
    than one lab's cell); between two students' cells either side's share does
    (a copy padded with other code is still a copy). Each cell is reported once
    per other file: its closest cell there.
    """
    prints = _Fingerprints(boilerplate)
    mine = [prints.of(text.source) for text in cells]
    found: dict[tuple[int, str], Match] = {}

    def keep(index: int, match: Match) -> None:
        key = (index, match.other)
        if key not in found or (match.share, match.other_share) > (found[key].share, found[key].other_share):
            found[key] = match

    for reference in references:
        theirs = prints.of(reference.source)
        for index, (text, fingerprint) in enumerate(zip(cells, mine)):
            shared, share, other_share = _compared(fingerprint, theirs)
            if shared >= MIN_SHARED and share >= THRESHOLD:
                assert text.student is not None
                keep(
                    index,
                    Match(lab.id, text.name, text.student, text.cell, share, reference.name, None, 0, other_share),
                )
    for first in range(len(cells)):
        for second in range(first + 1, len(cells)):
            a, b = cells[first], cells[second]
            if a.student == b.student:
                continue  # one student's own files (duplicates) are not a copy
            assert a.student is not None and b.student is not None
            shared, share, other_share = _compared(mine[first], mine[second])
            if reported(shared, share, other_share):
                keep(first, Match(lab.id, a.name, a.student, a.cell, share, b.name, b.student, b.cell, other_share))
                keep(second, Match(lab.id, b.name, b.student, b.cell, other_share, a.name, a.student, a.cell, share))
    return sorted(found.values(), key=lambda m: (m.file, m.cell, m.other_student is not None, m.other, m.other_cell))


def closest_per_cell(found: Iterable[Match]) -> list[tuple[tuple[str, int], list[Match], int]]:
    """Per submitted cell, its references and its ``NAMED`` closest other cells, and how many more there are.

    Where a whole class hands in one leaked solution, each row names a few
    others, not the class; the report shows every pair a note names.
    """
    cells: dict[tuple[str, int], list[Match]] = {}
    for match in found:
        cells.setdefault((match.file, match.cell), []).append(match)
    kept = []
    for key, matches in cells.items():
        references = [m for m in matches if m.reference]
        others = sorted((m for m in matches if not m.reference), key=lambda m: (-max(m.share, m.other_share), m.other))
        kept.append((key, references + others[:NAMED], max(0, len(others) - NAMED)))
    return kept


def noted(
    results: Sequence[GradeResult],
    root: str | os.PathLike[str],
    labs_dir: str | Path | None = None,
    *,
    rest_of: Names | Literal[False] | None = False,
) -> list[GradeResult]:
    """A batch's rows with a note on each exercise cell alike ``course_lib``'s code or another student's.

    Each file is read again as the grader read it (``read_submission``: a
    regular file only, never run); a row whose file cannot be read has no
    cells to compare. Scores, statuses and every other field stay as they are,
    and nothing here can cost the batch its CSV: a lab whose comparison fails
    is left without notes, with a warning on stderr.

    A shard grades part of the folder but compares with all of it: with
    ``rest_of`` (the batch's ``Names``, ``None`` without a roster), every
    other notebook under ``root`` is read too, its lab and student decided as
    grading decides them, so each shard's notes are the ones one run of the
    whole folder writes, and ``merge`` joins them unchanged.
    """
    notes: dict[str, list[str]] = {}
    for lab, cells in within_budget(_cells(results, root, rest_of), notes).items():  # issue 43: bounded
        _add_notes(notes, lab, cells, labs_dir)
    return [
        result.model_copy(update={"notes": (*result.notes, *notes[result.submission])})
        if result.submission in notes
        else result
        for result in results
    ]


def _cells(
    results: Sequence[GradeResult], root: str | os.PathLike[str], rest_of: Names | Literal[False] | None
) -> dict[Lab, list[Text]]:
    """Per lab, the exercise cells of the rows' files, and with ``rest_of`` those of every other notebook under ``root``."""
    per_lab: dict[Lab, list[Text]] = {}
    for result in results:
        if (lab := result_lab(result)) is not None:
            _add_cells(per_lab, Path(root) / result.submission, result.submission, result.student, lab)
    if rest_of is not False:
        folder, graded = Path(root), {result.submission for result in results}
        for path in find_submissions(folder):  # the batch's own listing
            if (name := submission_name(path, folder)) not in graded:
                _add_cells(per_lab, path, name, attribute(path, folder, rest_of)[0], None)
    return per_lab


def _add_cells(per_lab: dict[Lab, list[Text]], path: Path, name: str, student: str, lab: Lab | None) -> None:
    """The file's exercise cells, read as the grader reads them, under its lab; nothing if it cannot be read."""
    try:
        submission = read_submission(path, expected_lab=lab)
    except GradingError:
        return
    per_lab.setdefault(submission.lab, []).extend(
        Text(name, student, number, source) for number, source in enumerate(submission.exercise_sources, 1)
    )


def _add_notes(notes: dict[str, list[str]], lab: Lab, cells: Sequence[Text], labs_dir: str | Path | None) -> None:
    """Per file, the notes on its cells alike another text; none, with a warning, if the lab's comparison fails."""
    try:
        boilerplate = stub_cells(lab, labs_dir)
    except GradingError:
        boilerplate = ()
    try:
        found = compare_lab(lab, cells, boilerplate=boilerplate, references=reference_texts(lab))
    except Exception as exc:  # noqa: BLE001 - a report, never a lost batch: the grades are already made
        print(f"warning: similarity of Lab {lab.id} not compared ({type(exc).__name__}: {exc})", file=sys.stderr)
        return
    for (file, cell), named, more in closest_per_cell(found):
        notes.setdefault(file, []).extend(note(match) for match in named)
        if more:
            notes[file].append(f"{PREFIX}exercise cell {cell} is alike {more} more submissions' cells than these")
