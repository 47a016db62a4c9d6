"""What a batch records of its run beside its CSV (``grades.run.json``): the folder, the limits, when it graded.

Why beside the CSV and not in it: a shard's rows and the whole run's must be
the same bytes (``merge``), and a run's time and machine are not a row's. But
``merge`` of a term's CSV and a regrade needs them: a regrade of another folder
(an older copy holding the same file names), one made under other limits
(another ``--timeout``), or CSVs given out of order would otherwise replace the
term's rows in the words of a legitimate regrade. Each is refused, or merged
with a note saying what differs (``merge_checks``). A CSV without its run file
(an older grader's, or one moved alone) is merged as before, with a warning.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import GradingError
from ..files import write_atomically
from ..sandbox.limits import Limits

SUFFIX = ".run.json"


class Run(BaseModel):
    """One batch's run: what it graded, under which limits, when."""

    model_config = ConfigDict(frozen=True)

    folder: str
    """The submissions folder graded (its absolute path)."""
    listing: str
    """The whole folder's entries, hashed (``shard.folder_digest``), and ``entries`` how many."""
    entries: int
    limits: dict[str, str]
    """``timeout 10 s, memory 2048 MB, budget 240 s`` for every lab (``""``) and each lab with its own."""
    graded: str
    """When the run started grading (UTC, ISO 8601); a merged CSV's: the latest of the CSVs it joined."""
    only: str = ""
    """The ``--only`` selection (``student bchen``), empty for the whole folder."""


def run_path(csv: str | os.PathLike[str]) -> Path:
    """Where a CSV's run file lives: ``grades.csv`` → ``grades.run.json``."""
    return Path(csv).with_suffix(SUFFIX)


def write_run(run: Run, csv: str | os.PathLike[str]) -> Path:
    path = run_path(csv)
    write_atomically(path, run.model_dump_json(indent=1) + "\n")
    return path


def read_run(csv: str | os.PathLike[str]) -> Run | None:
    """The run file beside ``csv``, or ``None`` when there is none; ``GradingError`` names one that cannot be read."""
    path = run_path(csv)
    if not path.is_file():
        return None
    try:
        return Run.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise GradingError(f"{path}: not a run file course-grade wrote ({str(exc).splitlines()[0]})") from None


def limits_text(limits: Mapping[str, Limits]) -> dict[str, str]:
    """Each set of limits as the run file says it (``limits``: ``""`` for every lab, else a lab, → its ``Limits``)."""
    return {
        lab: f"timeout {value.cell_timeout:g} s, memory {value.memory_mb} MB, budget {value.budget:g} s"
        for lab, value in limits.items()
    }


def merge_checks(
    sources: list[str], runs: list[Run | None], replacing: list[set[int]]
) -> tuple[dict[int, str], list[str]]:
    """What the CSVs' runs say against merging them in this order: refused (``GradingError``), or a note per CSV.

    ``replacing[k]`` holds the earlier CSVs whose rows the ``k``-th replaces.
    Returns each later CSV's note for its rows (another folder's path with the
    same listing, other limits) and the warnings (a CSV without its run file).
    """
    notes: dict[int, str] = {}
    warnings = [
        f"no {run_path(sources[k]).name} beside {sources[k]} (an older course-grade, or moved alone): its folder, limits and order are not checked"
        for k, run in enumerate(runs)
        if run is None
    ]
    for k, run in enumerate(runs):
        for j in sorted(replacing[k]):
            earlier = runs[j]
            if run is None or earlier is None:
                continue
            if run.graded < earlier.graded:
                raise GradingError(
                    f"{sources[k]} was graded at {run.graded}, before {sources[j]} ({earlier.graded}), yet its rows "
                    f"would replace that one's: give the term's CSV first, then its regrades in the order they were made"
                )
            said = _differs(sources[j], earlier, run)
            if said is None:
                raise GradingError(
                    f"{sources[k]} graded another folder than {sources[j]}: {run.folder} ({run.entries} entries listing "
                    f"as {run.listing}), against {earlier.folder} ({earlier.entries} as {earlier.listing}): a regrade "
                    "reads the term's own folder"
                )
            if said:
                notes[k] = "; ".join(filter(None, [notes.get(k, ""), said]))
    return notes, warnings


def _differs(term: str, earlier: Run, later: Run) -> str | None:
    """What a later run does otherwise than an earlier one (empty: nothing); ``None``: another folder altogether."""
    said = []
    if later.folder != earlier.folder:
        if later.listing != earlier.listing:
            return None
        said.append(f"graded from {later.folder}, a copy of {term}'s folder {earlier.folder} (the same files' names)")
    other = {lab: text for lab, text in later.limits.items() if earlier.limits.get(lab) != text}
    if other:
        shown = "; ".join(
            f"{lab or 'every lab'}: {text} ({term}: {earlier.limits.get(lab, 'none')})" for lab, text in other.items()
        )
        said.append(f"regraded under other limits than {term}'s: {shown}")
    return "; ".join(said)
