"""``migrate_entry`` beyond the checklist's checks 20–23 (M1–M4): what a caller outside the lab meets.

The checks hold the learner's function to the reference on the chapter's
paths; here: the error's fields, records the draft shape cannot even start
from, and that every draft the catalogue writes from a generated session's
compactions migrates back to that compaction exactly (M1, M2).
"""

from __future__ import annotations

import random

import pytest

from course_grader.judging.generate import SessionRecipe, random_session
from course_grader.judging.labs.lab_11_6 import summarized_before
from course_lib import fixtures, parse_session_entry
from course_lib.migration import DraftRecordError, migrate_entry
from course_lib.parsing import to_json_dict
from course_lib.teaching.catalogues import drafts


def test_a_refusal_names_the_entry_and_the_field_and_is_a_value_error() -> None:
    draft = drafts.draft_of(fixtures.compact_1_wire(), ["u1", "a1"])
    del draft["summary"]["files"]
    with pytest.raises(ValueError, match=r"^draft compaction compact-1\.summary\.files is required") as caught:
        migrate_entry(fixtures.opening_path(), draft)
    assert isinstance(caught.value, DraftRecordError)
    assert (caught.value.entry_id, caught.value.field) == ("compact-1", "summary.files")


def test_a_draft_without_a_readable_id_is_still_refused_by_field() -> None:
    draft = drafts.draft_of(fixtures.compact_1_wire(), ["u1"]) | {"id": "  "}
    with pytest.raises(DraftRecordError, match=r"^draft compaction\.compactedEntryIds leaves a1 first"):
        migrate_entry(fixtures.opening_path(), draft)


def test_a_record_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(DraftRecordError, match="must be an object, got list"):
        migrate_entry([], ["compaction"])  # type: ignore[arg-type]  # bad input on purpose


def test_the_draft_itself_is_refused_by_the_parser_at_its_id() -> None:
    """Why the migration exists: the parser stays strict (R1), so the old shape stops at compact-1."""
    with pytest.raises(ValueError, match=r"compact-1\.summary\.invariants is not a known field"):
        parse_session_entry(drafts.draft_of(fixtures.compact_1_wire(), ["u1", "a1"]))


@pytest.mark.parametrize("seed", range(30))
def test_every_generated_compaction_comes_back_from_its_draft(seed: int) -> None:
    path = random_session(random.Random(seed), SessionRecipe(groups=(3, 6), compactions=2))
    for at, entry in enumerate(path):
        if entry.type != "compaction":
            continue
        compacted = summarized_before(path[:at], entry.first_kept_entry_id)
        if compacted:
            native = to_json_dict(entry)
            assert migrate_entry(path[:at], drafts.draft_of(native, compacted[::-1])) == native
