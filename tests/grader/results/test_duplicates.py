"""Which of a student's files for one lab counts (``results.duplicates``): no grade moves without a word (issue 44).

Every verdict is made from what a grades CSV holds (``Candidate``), so the
batch, ``merge`` and ``rescore`` decide alike; these cases are the issue's:
Anna's stub and ``… (1).ipynb`` under one worksheet time, a draft beside the
notebook (a tie), Sofia's Lab 11.2 notebook in the 11.3 assignment, and the
instructor's decision that settles either.
"""

from __future__ import annotations

import re

import pytest

from course_grader.results.duplicates import Candidate, duplicate_verdicts
from course_grader.results.grades_csv import GradesCsvError

WORKSHEET = "2026-10-23T16:59:00.000000+00:00"
MOODLE = "Anna Kowalski_55318_assignsubmission_file_/"


def moodle(name: str, score: float, submitted: str = WORKSHEET) -> Candidate:
    return Candidate("akowalski", "11.4", MOODLE + name, submitted, "moodle-worksheet", score, "11.4")


def test_the_later_upload_of_one_name_counts_where_the_worksheet_gives_one_time() -> None:
    """Anna's stub (0) and ``… (1).ipynb`` (8): one worksheet time; Moodle renamed the second upload, so it counts,
    and says why, never by path order (``… (1)`` sorts first)."""
    verdicts = duplicate_verdicts([moodle("lab_11_4 (1).ipynb", 8), moodle("lab_11_4.ipynb", 0)])
    assert [counts for counts, _ in verdicts.values()] == [True, False]
    assert verdicts[0][1].endswith(
        "this one counts (the later upload of one name: the LMS named it 'lab_11_4 (1).ipynb'; one time for both, "
        "2026-10-23 16:59:00 UTC)"
    )
    earliest = duplicate_verdicts([moodle("lab_11_4 (1).ipynb", 8), moodle("lab_11_4.ipynb", 0)], "earliest")
    assert [counts for counts, _ in earliest.values()] == [False, True]


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_a_tie_is_flagged_for_review_and_the_better_score_counts_whatever_the_path_order(
    order: tuple[int, int],
) -> None:
    files = [moodle("draft.ipynb", 5), moodle("lab_11_4.ipynb", 10)]
    group = [files[i] for i in order]
    verdicts = duplicate_verdicts(group)
    counting = next(group[i].file for i, (counts, _) in verdicts.items() if counts)
    assert counting == MOODLE + "lab_11_4.ipynb"
    assert all(
        "; tie: 2 files have one time, submitted, 2026-10-23 16:59:00 UTC by the Moodle grading worksheet, and nothing "
        "says which came later: the better score (10) counts for now; review them and name the one that counts in "
        "the course file ([[decisions]])" in note
        for _, note in verdicts.values()
    )
    same = duplicate_verdicts([moodle("draft.ipynb", 10), moodle("lab_11_4.ipynb", 10)])
    assert all("they score the same, so either gives this grade" in note for _, note in same.values())


def test_every_this_one_counts_says_why() -> None:
    canvas = [
        Candidate(
            "onasser", "11.1", "a_48217_1_lab.ipynb", "2026-10-02T17:00:00.000000+00:00", "canvas-submissions", 5
        ),
        Candidate(
            "onasser", "11.1", "a_48217_2_lab-1.ipynb", "2026-10-03T01:00:00.000000+00:00", "canvas-submissions", 9
        ),
    ]
    assert duplicate_verdicts(canvas)[1][1].endswith(
        "this one counts (the latest submitted, 2026-10-03 01:00:00 UTC by the Canvas submissions JSON)"
    )
    modified = [c.__class__(**{**c.__dict__, "submitted_from": "modified"}) for c in canvas]
    assert "(the latest modified, 2026-10-03 01:00:00 UTC (the file's own time" in duplicate_verdicts(modified)[1][1]
    assert duplicate_verdicts(canvas, "best")[1][1].endswith("this one counts (the best score, 9)")


SOFIA = [
    Candidate("slopez", "11.2", "lopezsofia_48216_1_lab_11_2.ipynb", "2026-10-09T10:00:00.000000+00:00", "canvas-submissions", 4, "11.2"),
    Candidate("slopez", "11.2", "lopezsofia_48216_2_lab_11_2.ipynb", "2026-10-16T18:00:00.000000+00:00", "canvas-submissions", 5, "11.3"),
]  # fmt: skip


def test_a_file_handed_in_to_another_labs_assignment_replaces_nothing_without_a_decision() -> None:
    """Sofia's 11.2 notebook in the 11.3 assignment is the latest and scores more: the one handed in to 11.2 still
    counts, both say ``conflict:``; the course file's ``[[decisions]]`` entry makes the other count, with its reason."""
    verdicts = duplicate_verdicts(SOFIA)
    assert [counts for counts, _ in verdicts.values()] == [True, False]
    assert (
        "this one counts (the one handed in to the Lab 11.2 assignment); conflict: also handed in to another lab's "
        "assignment: lopezsofia_48216_2_lab_11_2.ipynb (to the Lab 11.3 assignment); what was handed in to Lab 11.2's "
        "own counts unless the course file decides otherwise ([[decisions]])" in verdicts[0][1]
    )
    assert (
        "; conflict: handed in to the Lab 11.3 assignment, not Lab 11.2's own (lopezsofia_48216_1_lab_11_2.ipynb), "
        "so it replaces nothing there unless the course file decides so" in verdicts[1][1]
    )
    decided = {("slopez", "11.2"): ("LopezSofia_48216_2_lab_11_2.ipynb", "uploaded to 11.3 by mistake")}
    verdicts = duplicate_verdicts(SOFIA, decisions=decided)  # the file as typed: case aside, as manifest paths
    assert [counts for counts, _ in verdicts.values()] == [False, True]
    assert (
        "this one counts (the course file's decision: uploaded to 11.3 by mistake); conflict: handed in to the "
        "Lab 11.3 assignment, not Lab 11.2's own (lopezsofia_48216_1_lab_11_2.ipynb): the course file decided which "
        "counts" in verdicts[1][1]
    )


def test_a_decision_naming_none_of_the_students_files_is_refused() -> None:
    with pytest.raises(
        GradesCsvError, match=re.escape("the [[decisions]] entry for slopez, Lab 11.2 says 'x.ipynb' counts")
    ):
        duplicate_verdicts(SOFIA, decisions={("slopez", "11.2"): ("x.ipynb", "typo")})
