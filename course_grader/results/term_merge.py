"""``course-grade merge`` of any grades CSVs of one term: a run's shards, or the term's CSV and its regrades.

Why: before, ``merge`` took the shards of one run and nothing else, so a
regrade of one student or one lab (``--only``, ``intake.selection``) could
not reach the term's CSV: the whole folder was graded again (issue 29). Now
``merge TERM.csv REGRADE.csv … -o grades.csv`` joins them by file (the path
under the submissions folder): a row in a later CSV replaces the earlier
one's, and each replaced or added row is named. A student's duplicates are
decided again across the joined rows, under the term's duplicates policy, so
the result is what one run of the whole folder would write; the records
beside each CSV (``records.companion``: ``grades.jsonl``) are joined the same
way, for ``feedback`` and ``report`` (docs/grading.md, *Regrading part of a
term*). Shards still go through ``merge.merge``, unchanged; a mix of shards
and other CSVs is refused (merge the shards first).

What is refused, naming the files: CSVs that cannot be one term's (another
seed, another course file, for CSVs without the ``course`` column another
number of points per lab), a score no grader writes, a file twice in one CSV.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GradingError
from ..judging.verdicts import GradeResult
from ..safe_text import valid
from .grades_csv import (
    COURSE,
    DUPLICATE,
    FIRST,
    LAST,
    NOTES_SEPARATOR,
    POLICIES,
    RECORDED,
    SHARD_COLUMN,
    GradesCsvError,
    columns,
    duplicate_verdicts,
    flag_frame,
    frame_candidates,
    read_frame,
    row_key,
    typed,
)
from .merge import merge
from .records import companion, read_records
from .shard_check import possible_scores, same_lab_maxima

if TYPE_CHECKING:
    import pandas as pd

FIXED = {*FIRST, *COURSE, *LAST, *RECORDED}
"""Every column but the tests'."""


@dataclass(frozen=True)
class Joined:
    """The joined frame, and where each of its rows came from."""

    frame: pd.DataFrame
    sources: tuple[str, ...]
    """The CSVs given, in order: a later one's row replaces an earlier one's."""
    origin: dict[str, int]
    """Each row's file → the CSV (its index in ``sources``) whose row it is."""
    policy: str
    shards: bool
    replaced: tuple[tuple[str, int, int], ...] = ()
    """``(file, earlier CSV, later CSV)`` for each row a later CSV replaced."""
    added: tuple[tuple[str, int], ...] = ()
    """``(file, CSV)`` for each row of a later CSV that no earlier one had."""
    earlier_notes: dict[str, str] = field(default_factory=dict)
    """A row's duplicate note in its own CSV, taken off before duplicates were decided again."""

    def messages(self) -> list[str]:
        """One line per replaced or added row, for stderr."""
        lines = [
            f"replaced {file!r}: {self.sources[new]}'s row replaces {self.sources[old]}'s"
            for file, old, new in self.replaced
        ]
        return lines + [f"added {file!r} from {self.sources[new]} (in no earlier CSV)" for file, new in self.added]

    def summary(self, output: Path) -> str:
        if self.shards:
            return f"merged {len(self.sources)} shards: {len(self.frame)} rows · wrote {output}"
        return (
            f"merged {len(self.sources)} grades CSVs: {len(self.frame)} rows, {len(self.replaced)} replaced and "
            f"{len(self.added)} added by a later CSV · wrote {output}"
        )


def join(paths: Sequence[str | Path]) -> Joined:
    """The CSVs at ``paths`` as one: every shard of one run (``merge.merge``), or a term's CSV and its regrades."""
    frames = [read_frame(path) for path in paths]
    sharded = [SHARD_COLUMN.fullmatch(str(frame.columns[-1])) for frame in frames]
    sources = tuple(str(path) for path in paths)
    if all(sharded):
        policy = next(match.group(3) for match in sharded if match is not None)
        origin = {file: index for index, frame in enumerate(frames) for file in frame["file"]}
        return Joined(merge(paths), sources, origin, policy, shards=True)
    if any(sharded):
        shard = sources[next(i for i, match in enumerate(sharded) if match)]
        other = sources[next(i for i, match in enumerate(sharded) if not match)]
        raise GradesCsvError(
            f"{shard} is a shard's CSV but {other} is not: merge the shards of the run first "
            "(course-grade merge shard-*.csv -o grades.csv), then that CSV with the other"
        )
    return _regrades(sources, frames)


def _regrades(sources: tuple[str, ...], frames: list[pd.DataFrame]) -> Joined:
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    _one_term(sources, frames)
    for path, frame in zip(sources, frames):
        possible_scores(path, frame)
    earlier: list[dict[str, str]] = []
    decided: set[str] = set()
    plain = []
    for frame in frames:
        stripped, notes, policies = _unflagged(frame)
        plain.append(stripped)
        earlier.append(notes)
        decided |= policies
    chosen: dict[str, tuple[int, int]] = {}
    replaced, added = [], []
    for index, (path, frame) in enumerate(zip(sources, plain)):
        own: set[str] = set()
        for position, file in enumerate(frame["file"]):
            if file in own:
                raise GradesCsvError(f"{path}: its file {file!r} has two rows (a CSV course-grade wrote has one)")
            own.add(file)
            if file in chosen:
                replaced.append((file, chosen[file][0], index))
            elif index > 0:
                added.append((file, index))
            chosen[file] = (index, position)
    taken = [frame.iloc[[p for i, p in chosen.values() if i == index]] for index, frame in enumerate(plain)]
    tests = {c for frame in frames for c in frame.columns if c not in FIXED}
    whole = pd.concat([part for part in taken if len(part)] or taken[:1], ignore_index=True)
    whole = typed(whole.reindex(columns=columns(sorted(tests))))
    whole = whole.iloc[sorted(range(len(whole)), key=lambda i: row_key(whole["file"].iloc[i]))].reset_index(drop=True)
    policy = _policy(sources, frames, decided)
    origin = {file: index for file, (index, _) in chosen.items()}
    kept = {file: earlier[index][file] for file, index in origin.items() if file in earlier[index]}
    return Joined(flag_frame(whole, policy), sources, origin, policy, False, tuple(replaced), tuple(added), kept)


def _one_term(sources: Sequence[str], frames: Sequence[pd.DataFrame]) -> None:
    """Every row drawn from one seed and scored by one course file; ``GradesCsvError`` names two files that differ."""
    import pandas as pd

    first: dict[str, tuple[str, str, str]] = {}
    for path, frame in zip(sources, frames):
        for column, what in (("seed", "graded with seed"), ("course", "scored by the course file")):
            if column not in frame.columns:
                continue
            for file, cell in zip(frame["file"], frame[column]):
                if column == "seed" and (cell is None or cell is pd.NA):
                    continue
                value = str(cell) if column == "seed" else (str(cell).split(" ", 1)[0] or "none")
                seen, where, row = first.setdefault(column, (value, path, file))
                if seen != value:
                    advice = (
                        f"a regrade must draw the term's hidden cases: grade it with the term's course file or --seed {seen}"
                        if column == "seed"
                        else "a regrade needs the term's course file (its weights, points and deadlines)"
                    )
                    raise GradesCsvError(
                        f"{path} was {what} {_shown(column, value)} (its row {file!r}), {where} with "
                        f"{_shown(column, seen)} (its row {row!r}): not one term's grades; {advice}"
                    )
    if any("course" not in frame.columns for frame in frames):  # an older grader's CSV: the labs' points tell
        same_lab_maxima(list(sources), list(frames))


def _shown(column: str, value: str) -> str:
    if column == "seed":
        return value
    return "none (no course file)" if value == "none" else f"of fingerprint {value}"


def _unflagged(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str], set[str]]:
    """``frame`` with its duplicate notes taken off and every row counting; the notes taken, and the policies they say.

    A note is recognised by deciding the frame's duplicates again under each
    policy (``duplicate_verdicts``, the one place its words are written): the
    policy whose note a row has is the one its CSV was written under. A
    duplicate note that none reproduces (an edited CSV, an older grader's
    words) is taken off up to the first separator.
    """
    candidates = frame_candidates(frame)
    verdicts = {policy: duplicate_verdicts(candidates, policy) for policy in POLICIES}
    notes, counts = list(frame["notes"]), list(frame["counts"])
    taken: dict[str, str] = {}
    policies: set[str] = set()
    for index, note in enumerate(notes):
        if not note.startswith(DUPLICATE):
            continue
        said = next(
            (
                (policy, verdict[index][1])
                for policy, verdict in verdicts.items()
                if index in verdict
                and (note == verdict[index][1] or note.startswith(verdict[index][1] + NOTES_SEPARATOR))
            ),
            None,
        )
        if said is not None:
            policies.add(said[0])
            head = said[1]
        else:
            head = note.split(NOTES_SEPARATOR, 1)[0]
        taken[frame["file"].iloc[index]] = head
        notes[index] = note[len(head) + len(NOTES_SEPARATOR) :] if len(note) > len(head) else ""
        counts[index] = True
    frame = frame.copy()
    frame["notes"], frame["counts"] = notes, counts
    return frame, taken, policies


def _policy(sources: Sequence[str], frames: Sequence[pd.DataFrame], decided: set[str]) -> str:
    """The term's duplicates policy: its course file's, else what the CSVs' duplicate notes say, else ``latest``."""
    from ..course.course_file import load_course

    stamp = next((s for frame in frames if "course" in frame.columns for s in frame["course"] if s), "")
    fingerprint, _, recorded = stamp.partition(" ")
    problem = ""
    if recorded:
        try:
            course = load_course(recorded)
        except GradingError as exc:
            problem = f" ({exc})"
        else:
            if course.fingerprint == fingerprint:
                return course.settings.duplicates
            problem = f" (it has changed since: fingerprint {course.fingerprint}, not {fingerprint})"
    if len(decided) > 1:
        raise GradesCsvError(
            f"the CSVs decided duplicates by different policies ({', '.join(sorted(decided))}): "
            f"not one term's ({', '.join(sources)})"
        )
    if decided:
        return decided.pop()
    if not recorded:
        return "latest"  # no course file: the grader's default
    raise GradesCsvError(
        f"merge decides a student's duplicates by the term's course file, {recorded}, which cannot be used "
        f"here{problem}: run merge where that path is the course file the grades were scored by"
    )


def joined_records(joined: Joined) -> tuple[list[GradeResult] | None, str]:
    """The records of the joined rows (each from the records beside its CSV), as the joined CSV decided them.

    ``None`` and why, when a CSV has no records beside it or they lack one of
    its rows: the joined records would then miss results, so none are written.
    Each record's ``counts`` and duplicate note are the joined CSV's.
    """
    paths = [companion(source) for source in joined.sources]
    missing = next((path for path in paths if not path.is_file()), None)
    if missing is not None:
        return None, f"no {missing.name} beside {joined.sources[paths.index(missing)]}"
    loaded = [{valid(result.submission): result for result in read_records(path)} for path in paths]
    flags = duplicate_verdicts(frame_candidates(joined.frame), joined.policy)
    results: list[GradeResult] = []
    for index, (file, counts) in enumerate(zip(joined.frame["file"], joined.frame["counts"])):
        record = loaded[joined.origin[file]].get(file)
        if record is None:
            return None, f"{paths[joined.origin[file]]} holds no result for {file!r}"
        notes = record.notes
        if notes and notes[0] == joined.earlier_notes.get(file):
            notes = notes[1:]
        if index in flags:
            notes = (flags[index][1], *notes)
        results.append(record.model_copy(update={"counts": bool(counts), "notes": notes}))
    return results, ""
