"""Which of a student's files for one lab counts, and the note on each saying why: never a silent choice.

A batch decides it from its results (``batch.flag_duplicates``), ``merge``
from the joined CSVs' rows and ``rescore`` again from the CSV, so the rule is
written once, here, and reads only what a grades CSV holds: who, which lab,
which file, when (``submitted``, ``submitted_from``), through which
assignment (``handed_in``) and the score; plus the course file's policy
(``duplicates``) and its ``[[decisions]]``. The rules (docs/grading.md,
*Duplicates and conflicts*):

- a file handed in to another lab's assignment never replaces one handed in
  to the lab's own: the lab's own counts, and both notes say ``conflict:``
  until the course file decides (``[[decisions]]``);
- ``latest`` (default): the latest time counts; where the LMS gives two files
  one time (a Moodle submission's files), the later upload of one name counts
  (Moodle's ``x (1).ipynb``, ``reuploads``); where nothing orders them it is a
  ``tie:``, flagged for review, and the better score counts until the course
  file names one; ``earliest`` alike, the other way; ``best``: the best score,
  then the latest;
- a ``[[decisions]]`` entry names the file that counts, with its reason.

Every "this one counts" says why: the time, the upload order, the score, a
tie, the decision.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from course_lib.teaching.i18n import message

from ..course.lms_times import FORM_NAMES
from ..course.manifest import folded, manifest_key
from ..intake.lab_names import in_sentence, the_assignment
from ..intake.reuploads import upload, uploaded_later
from ..notes import NOTE
from .grades_csv import NOTES_SEPARATOR, GradesCsvError, row_key

if TYPE_CHECKING:
    import pandas as pd

POLICIES = ("latest", "earliest", "best")
"""The course file's ``duplicates``: which of a student's files for one lab counts."""
DUPLICATE = "duplicate: "
"""How a duplicate's note starts (``duplicate_verdicts``); it comes first in the row's notes."""
NOTED = NOTE(message("duplicate: {student} has {count} {lab} submissions (also {others}); {verdict} ({why})"))
COUNTS = NOTE(message("this one counts"))
NOT_THIS = NOTE(message("{file} counts, not this one"))
DECIDED = NOTE(message("the course file's decision: {reason}"))
OWN = NOTE(message("the one handed in to {assignment}"))
BEST = NOTE(message("the best score, {score}"))
BEST_SHARED = NOTE(message("the best score, {score}, shared: then {why}"))
NO_TIME = NOTE(message("no time (no times file gives one, nor the file)"))
MODIFIED = NOTE(message("modified, {time} (the file's own time: no times file gives one)"))
SUBMITTED = NOTE(message("submitted, {time} by the {form}"))
EDGE = {True: NOTE(message("the latest {source}")), False: NOTE(message("the earliest {source}"))}
UPLOAD = {
    True: NOTE(message("the later upload of one name: the LMS named it {name}; one time for both, {time}")),
    False: NOTE(message("the earlier upload of one name: the LMS named it {name}; one time for both, {time}")),
}
TIE = {
    True: NOTE(
        message(
            "tie: {count} files have one time, {source}, and nothing says which came later: {outcome}; review them and name the one that counts in the course file ([[decisions]])"
        )
    ),
    False: NOTE(
        message(
            "tie: {count} files have one time, {source}, and nothing says which came earlier: {outcome}; review them and name the one that counts in the course file ([[decisions]])"
        )
    ),
}
SAME = NOTE(message("they score the same, so either gives this grade"))
BETTER_FOR_NOW = NOTE(message("the better score ({score}) counts for now"))
TIE_EQUAL = NOTE(message("a tie on equal scores"))
TIE_BETTER = NOTE(message("the better score of a tie"))
ELSEWHERE = NOTE(message("conflict: handed in to {assignment}, not {lab}'s own ({files})"))
ELSEWHERE_DECIDED = NOTE(message("{conflict}: the course file decided which counts"))
ELSEWHERE_OPEN = NOTE(
    message(
        "{conflict}, so it replaces nothing there unless the course file decides so ([[decisions]]: student, lab, counts, reason)"
    )
)
HANDED = NOTE(message("{file} (to {assignment})"))
ALSO_DECIDED = NOTE(
    message("conflict: also handed in to another lab's assignment: {files}: the course file decided which counts")
)
ALSO_OPEN = NOTE(
    message(
        "conflict: also handed in to another lab's assignment: {files}; what was handed in to {lab}'s own counts unless the course file decides otherwise ([[decisions]])"
    )
)
Decisions = dict[tuple[str, str], tuple[str, str]]
"""The course file's ``[[decisions]]``: (student, lab) → (the file that counts, as written; the reason)."""


@dataclass(frozen=True)
class Candidate:
    """What deciding between a student's files for one lab needs: who, which lab, which file, when, how well."""

    student: str
    lab: str | None
    file: str
    submitted: str
    submitted_from: str
    score: float
    handed_in: str = ""


def duplicate_verdicts(
    candidates: Sequence[Candidate], policy: str = "latest", decisions: Decisions | None = None
) -> dict[int, tuple[bool, str]]:
    """For each row of a student who has two or more files for one lab: whether it counts, and the note saying so
    (see the module). Rows with no lab (not a readable notebook) take no part."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, candidate in enumerate(candidates):
        if candidate.lab:
            groups[(candidate.student, candidate.lab)].append(index)
    verdicts: dict[int, tuple[bool, str]] = {}
    for (student, lab), indexes in groups.items():
        if len(indexes) < 2:
            continue
        indexes.sort(key=lambda i: row_key(candidates[i].file))
        group = [candidates[i] for i in indexes]
        own = [c for c in group if c.handed_in in ("", lab)]
        elsewhere = [c for c in group if c not in own] if own else []
        decided = (decisions or {}).get((student, lab))
        if decided is not None:
            chosen, why, tie = _decided(group, decided, student, lab), DECIDED(reason=decided[1]), ""
        elif elsewhere and len(own) == 1:
            chosen, why, tie = own[0], OWN(assignment=the_assignment(lab)), ""
        else:
            chosen, why, tie = _chosen(own if elsewhere else group, policy)
        for index, candidate in zip(indexes, group):
            others = ", ".join(c.file for c in group if c is not candidate)
            verdict = COUNTS() if candidate is chosen else NOT_THIS(file=chosen.file)
            note = NOTED(
                student=student, count=len(group), lab=in_sentence(lab), others=others, verdict=verdict, why=why
            )
            if elsewhere:
                note += _conflict(candidate, own, elsewhere, lab, decided is not None)
            if tie and candidate.submitted == chosen.submitted:
                note += f"; {tie}"
            verdicts[index] = (candidate is chosen, note)
    return verdicts


def _decided(group: list[Candidate], decided: tuple[str, str], student: str, lab: str) -> Candidate:
    """The file a ``[[decisions]]`` entry names, matched as a manifest's path is (NFC, case aside)."""
    wanted = folded(manifest_key(decided[0]))
    found = [c for c in group if folded(c.file) == wanted]
    if len(found) != 1:
        raise GradesCsvError(
            f"course file: the [[decisions]] entry for {student}, {in_sentence(lab)} says {decided[0]!r} counts, "
            f"but their files are {', '.join(c.file for c in group)}: name one of them as the grades CSV's file "
            "column does"
        )
    return found[0]


def _chosen(pool: list[Candidate], policy: str) -> tuple[Candidate, str, str]:
    """The one of ``pool`` that counts under ``policy``, why, and a tie's note (empty: no tie)."""
    if policy == "best":
        top = max(c.score for c in pool)
        best = [c for c in pool if c.score == top]
        if len(best) == 1:
            return best[0], BEST(score=f"{top:g}"), ""
        chosen, why, _ = _chosen(best, "latest")
        return chosen, BEST_SHARED(score=f"{top:g}", why=why), ""
    latest = policy != "earliest"
    edge = max(c.submitted for c in pool) if latest else min(c.submitted for c in pool)
    at_edge = [c for c in pool if c.submitted == edge]
    source = _source(at_edge[0], _shown(edge)) if edge else NO_TIME()
    if len(at_edge) == 1:
        return at_edge[0], EDGE[latest](source=source), ""
    ordered = [c for c in at_edge if all(uploaded_later(c.file, o.file) is latest for o in at_edge if o is not c)]
    if len(ordered) == 1:
        renamed = upload(ordered[0].file)
        name = renamed.renamed if renamed is not None else ordered[0].file
        return ordered[0], UPLOAD[latest](name=repr(name), time=_shown(edge)), ""
    chosen = max(at_edge, key=lambda c: c.score)  # the student's benefit until the instructor decides
    same = all(c.score == chosen.score for c in at_edge)
    outcome = SAME() if same else BETTER_FOR_NOW(score=f"{chosen.score:g}")
    tie = TIE[latest](count=len(at_edge), source=source, outcome=outcome)
    return chosen, TIE_EQUAL() if same else TIE_BETTER(), tie


def _conflict(candidate: Candidate, own: list[Candidate], elsewhere: list[Candidate], lab: str, decided: bool) -> str:
    """The ``conflict:`` part of a note where files were handed in to the lab's own assignment and to another's."""
    if candidate in elsewhere:
        said = ELSEWHERE(
            assignment=the_assignment(candidate.handed_in), lab=in_sentence(lab), files=", ".join(c.file for c in own)
        )
        return "; " + (ELSEWHERE_DECIDED if decided else ELSEWHERE_OPEN)(conflict=said)
    shown = ", ".join(HANDED(file=c.file, assignment=the_assignment(c.handed_in)) for c in elsewhere)
    if decided:
        return "; " + ALSO_DECIDED(files=shown)
    return "; " + ALSO_OPEN(files=shown, lab=in_sentence(lab))


def _source(candidate: Candidate, time: str) -> str:
    """``submitted, 2026-10-17 21:40:00 UTC by the Canvas submissions JSON``: how a note says a time and its source."""
    form = candidate.submitted_from
    if form in ("", "modified"):
        return MODIFIED(time=time)
    return SUBMITTED(time=time, form=FORM_NAMES.get(form, form))


def _shown(iso: str) -> str:
    """``2026-10-17T21:40:00.000000+00:00`` → ``2026-10-17 21:40:00 UTC``: the time a note shows."""
    return iso.replace("T", " ").split(".")[0].removesuffix("+00:00") + (" UTC" if iso.endswith("+00:00") else "")


def frame_candidates(frame: pd.DataFrame) -> list[Candidate]:
    """What ``duplicate_verdicts`` decides by, for each row of a grades frame, in its order."""
    handed = list(frame["handed_in"]) if "handed_in" in frame.columns else [""] * len(frame)
    return [
        Candidate(r.student, r.lab or None, r.file, r.submitted, r.submitted_from, r.score, handed[i] or "")
        for i, r in enumerate(frame[["student", "lab", "file", "submitted", "submitted_from", "score"]].itertuples())
    ]


def flag_frame(frame: pd.DataFrame, policy: str = "latest", decisions: Decisions | None = None) -> pd.DataFrame:
    """``duplicate_verdicts`` applied to a frame whose rows are not flagged yet (shards' rows, merged)."""
    frame = frame.copy()
    for index, (counts, note) in duplicate_verdicts(frame_candidates(frame), policy, decisions).items():
        notes = frame.at[index, "notes"]
        frame.at[index, "counts"] = counts
        frame.at[index, "notes"] = f"{note}{NOTES_SEPARATOR}{notes}" if notes else note
    return frame
