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
seed, a course file that scores otherwise, for CSVs without the ``course``
column another number of points per lab: ``term_course``), a score no grader
writes, a file twice in one CSV, a regrade of another folder or given out of
order (``run_file``). A regrade made under another roster is merged and says
so, the kept rows read again under it (``term_course.reattributed``); one made
under other limits is merged with a note on its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GradingError
from ..judging.verdicts import GradeResult
from ..safe_text import valid
from .duplicates import DUPLICATE, POLICIES, Candidate, Decisions, duplicate_verdicts, flag_frame, frame_candidates
from .grades_csv import (
    COURSE,
    FIRST,
    LAST,
    NOTES_SEPARATOR,
    RECORDED,
    SHARD_COLUMN,
    GradesCsvError,
    columns,
    read_frame,
    row_key,
    typed,
)
from .merge import merge
from .records import companion, read_records
from .run_file import Run, merge_checks, read_run
from .shard_check import possible_scores
from .term_course import TermCourse, loaded_course, reattributed, term_course

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
    decisions: Decisions = field(default_factory=dict)
    term: TermCourse | None = None
    """The course the rows are scored and attributed by (a term's merge; ``None`` for shards)."""
    run_notes: dict[int, str] = field(default_factory=dict)
    """A note for each row of a CSV whose run differs from the earlier one's (other limits, a copied folder)."""
    said: tuple[str, ...] = ()
    """What else merge says on stderr: another roster, a CSV without its run file."""
    run: Run | None = None
    """The joined CSVs' run, for the run file beside the output: the last one's, graded at the latest."""
    moved: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Each replaced row's file whose student the later CSV says otherwise (a roster change): (before, now), so the
    notes of other rows that name it can say it (``similarity_notes.renamed``, by the command)."""

    def messages(self) -> list[str]:
        """One line per replaced or added row, for stderr, and what else the merge says."""
        lines = [
            f"replaced {file!r}: {self.sources[new]}'s row replaces {self.sources[old]}'s"
            + (f" ({self.run_notes[new]})" if new in self.run_notes else "")
            for file, old, new in self.replaced
        ]
        lines += [f"added {file!r} from {self.sources[new]} (in no earlier CSV)" for file, new in self.added]
        return [*self.said, *lines]

    def summary(self, output: Path) -> str:
        if self.shards:
            return f"merged {len(self.sources)} shards: {len(self.frame)} rows · wrote {output}"
        return (
            f"merged {len(self.sources)} grades CSVs: {len(self.frame)} rows, {len(self.replaced)} replaced and "
            f"{len(self.added)} added by a later CSV · wrote {output}"
        )

    def rewritten(self, file: str, student: str, source: str, notes: Sequence[str]) -> tuple[str, ...]:
        """A kept row's notes (its duplicate note aside) as the joined CSV has them: read again under the last
        roster, with its CSV's run note."""
        index = self.origin[file]
        said = tuple(notes)
        if self.term is not None and self.term.names is not None and index in self.term.other_roster:
            said = reattributed(self.term.names, file, student, source, said, self.sources[index])
        if index in self.run_notes:
            said = (*said, self.run_notes[index])
        return said


def join(paths: Sequence[str | Path]) -> Joined:
    """The CSVs at ``paths`` as one: every shard of one run (``merge.merge``), or a term's CSV and its regrades."""
    frames = [read_frame(path) for path in paths]
    sharded = [SHARD_COLUMN.fullmatch(str(frame.columns[-1])) for frame in frames]
    sources = tuple(str(path) for path in paths)
    if all(sharded):
        policy = next(match.group(3) for match in sharded if match is not None)
        origin = {file: index for index, frame in enumerate(frames) for file in frame["file"]}
        decisions, said = _shards_decisions(frames)
        run = _merged_run([read_run(source) for source in sources])
        return Joined(merge(paths, decisions), sources, origin, policy, True, decisions=decisions, said=said, run=run)
    if any(sharded):
        shard = sources[next(i for i, match in enumerate(sharded) if match)]
        other = sources[next(i for i, match in enumerate(sharded) if not match)]
        raise GradesCsvError(
            f"{shard} is a shard's CSV but {other} is not: merge the shards of the run first "
            "(course-grade merge shard-*.csv -o grades.csv), then that CSV with the other"
        )
    return _regrades(sources, frames)


def _shards_decisions(frames: Sequence[pd.DataFrame]) -> tuple[Decisions, tuple[str, ...]]:
    """The ``[[decisions]]`` of the shards' course file, and a warning when it cannot be read here."""
    stamp = next((s for frame in frames if "course" in frame.columns for s in frame["course"] if s), "")
    term = loaded_course(stamp)
    if term.problem:
        return {}, (
            f"warning: the course file the shards were scored by cannot be used here{term.problem}: "
            "its [[decisions]] are not applied",
        )
    return term.decisions, ()


def _regrades(sources: tuple[str, ...], frames: list[pd.DataFrame]) -> Joined:
    import pandas as pd  # loaded on first use, so the grader starts without it (issue 31)

    term = term_course(sources, frames)
    for path, frame in zip(sources, frames):
        possible_scores(path, frame)
    earlier: list[dict[str, str]] = []
    decided: set[str] = set()
    plain = []
    for frame in frames:
        stripped, notes, policies = unflagged(frame, term.decisions)
        plain.append(stripped)
        earlier.append(notes)
        decided |= policies
    chosen: dict[str, tuple[int, int]] = {}
    replaced, added = [], []
    moved: dict[str, tuple[str, str]] = {}
    replacing: list[set[int]] = [set() for _ in sources]
    for index, (path, frame) in enumerate(zip(sources, plain)):
        own: set[str] = set()
        for position, file in enumerate(frame["file"]):
            if file in own:
                raise GradesCsvError(f"{path}: its file {file!r} has two rows (a CSV course-grade wrote has one)")
            own.add(file)
            if file in chosen:
                replaced.append((file, chosen[file][0], index))
                before = plain[chosen[file][0]]["student"].iloc[chosen[file][1]]
                if before != frame["student"].iloc[position]:
                    moved[file] = (before, frame["student"].iloc[position])
                replacing[index].add(chosen[file][0])
            elif index > 0:
                added.append((file, index))
                replacing[index].add(0)
            chosen[file] = (index, position)
    runs = [read_run(source) for source in sources]
    try:
        run_notes, warnings = merge_checks(list(sources), runs, replacing)
    except GradingError as exc:
        raise GradesCsvError(str(exc)) from None
    taken = [frame.iloc[[p for i, p in chosen.values() if i == index]] for index, frame in enumerate(plain)]
    tests = {c for frame in frames for c in frame.columns if c not in FIXED}
    whole = pd.concat([part for part in taken if len(part)] or taken[:1], ignore_index=True)
    whole = typed(whole.reindex(columns=columns(sorted(tests))))
    whole = whole.iloc[sorted(range(len(whole)), key=lambda i: row_key(whole["file"].iloc[i]))].reset_index(drop=True)
    origin = {file: index for file, (index, _) in chosen.items()}
    kept = {file: earlier[index][file] for file, index in origin.items() if file in earlier[index]}
    policy = _policy(sources, term, decided)
    joined = Joined(
        whole, sources, origin, policy, False, tuple(replaced), tuple(added), kept, term.decisions, term, run_notes,
        (*term.said, *(f"warning: {line}" for line in warnings)), _merged_run(runs), moved,
    )  # fmt: skip
    return replace(joined, frame=flag_frame(_rewrite(joined), policy, term.decisions))


def _rewrite(joined: Joined) -> pd.DataFrame:
    """The joined rows' notes as ``Joined.rewritten`` says, and every row's ``course`` cell the last CSV's."""
    frame = joined.frame.copy()
    for index, (file, student, source, notes) in enumerate(
        zip(frame["file"], frame["student"], frame["student_from"], frame["notes"])
    ):
        said = joined.rewritten(file, student, source, notes.split(NOTES_SEPARATOR) if notes else ())
        frame.at[index, "notes"] = NOTES_SEPARATOR.join(said)
    if joined.term is not None and joined.term.names is not None:
        frame["course"] = joined.term.stamp
    return frame


def _merged_run(runs: list[Run | None]) -> Run | None:
    """The last CSV's run, graded at the latest of them all (what a next merge orders by)."""
    known = [run for run in runs if run is not None]
    if not known or runs[-1] is None:
        return None
    return runs[-1].model_copy(update={"graded": max(run.graded for run in known), "only": ""})


def unflagged(frame: pd.DataFrame, decisions: Decisions) -> tuple[pd.DataFrame, dict[str, str], set[str]]:
    """``frame`` with its duplicate notes taken off and every row counting; the notes taken, and the policies they say.

    A note is recognised by deciding the frame's duplicates again under each
    policy (``duplicate_verdicts``, the one place its words are written): the
    policy whose note a row has is the one its CSV was written under. A
    duplicate note that none reproduces (an edited CSV, an older grader's
    words) is taken off up to the first separator.
    """
    candidates = frame_candidates(frame)
    verdicts = {policy: _verdicts(candidates, policy, decisions) for policy in POLICIES}
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


def _verdicts(candidates: list[Candidate], policy: str, decisions: Decisions) -> dict[int, tuple[bool, str]]:
    """``duplicate_verdicts``, or none where a decision names no file of this CSV (a regrade holds only some)."""
    try:
        return duplicate_verdicts(candidates, policy, decisions)
    except GradesCsvError:
        return duplicate_verdicts(candidates, policy)


def _policy(sources: Sequence[str], term: TermCourse, decided: set[str]) -> str:
    """The term's duplicates policy: its course file's, else what the CSVs' duplicate notes say, else ``latest``."""
    if term.course is not None:
        return term.course.settings.duplicates
    if len(decided) > 1:
        raise GradesCsvError(
            f"the CSVs decided duplicates by different policies ({', '.join(sorted(decided))}): "
            f"not one term's ({', '.join(sources)})"
        )
    if decided:
        return decided.pop()
    recorded = term.stamp.partition(" ")[2]
    if not recorded:
        return "latest"  # no course file: the grader's default
    raise GradesCsvError(
        f"merge decides a student's duplicates by the term's course file, {recorded}, which cannot be used "
        f"here{term.problem}: run merge where that path is the course file the grades were scored by"
    )


def joined_records(joined: Joined) -> tuple[list[GradeResult] | None, str]:
    """The records of the joined rows (each from the records beside its CSV), as the joined CSV decided them.

    ``None`` and why, when a CSV has no records beside it or they lack one of
    its rows: the joined records would then miss results, so none are written.
    Each record's ``counts``, notes and ``course`` reading are the joined CSV's.
    """
    paths = [companion(source) for source in joined.sources]
    missing = next((path for path in paths if not path.is_file()), None)
    if missing is not None:
        return None, f"no {missing.name} beside {joined.sources[paths.index(missing)]}"
    loaded = [{valid(result.submission): result for result in read_records(path)} for path in paths]
    flags = duplicate_verdicts(frame_candidates(joined.frame), joined.policy, joined.decisions)
    results: list[GradeResult] = []
    for index, (file, counts) in enumerate(zip(joined.frame["file"], joined.frame["counts"])):
        record = loaded[joined.origin[file]].get(file)
        if record is None:
            return None, f"{paths[joined.origin[file]]} holds no result for {file!r}"
        notes = record.notes
        if notes and notes[0] == joined.earlier_notes.get(file):
            notes = notes[1:]
        if not joined.shards:
            notes = joined.rewritten(file, record.student, record.student_source, notes)
        if index in flags:
            notes = (flags[index][1], *notes)
        results.append(record.model_copy(update={"counts": bool(counts), "notes": notes}))
    return results, ""
