"""Lab 11.6's checks (optional, after the capstone's): old records migrated at the boundary (M1–M4, R18, R27).

The learner's ``migrate_entry(active_path, raw)`` turns a draft-shaped
compaction (``course_lib.teaching.catalogues.drafts``) into today's record
before the strict parser sees it; the parser, the stores and ``build_context``
are the course's and stay single-shaped. These checks run only when Lab 11.6 is
asked for by name: the chapter's fifteen stay fifteen.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

from ... import fixtures
from ...context import build_context
from ...models import SessionEntry
from ...parsing import parse_session_entry, to_json_dict
from ...store import InMemorySessionStore, JsonlSessionStore
from ...teaching.catalogues import drafts
from ...teaching.wording import say
from ..check import Implementation, LabChecks
from ..expect import expect, expect_equal, expect_independent, expect_rejects

CHECKS = LabChecks("11.6")

SUMMARY_ORDER = list(drafts.DRAFT_NAMES)
"""Today's summary fields, in the fixed order (R1)."""


def compact_1_draft(compacted: tuple[str, ...] | list[str] = ("u1", "a1")) -> dict[str, Any]:
    """The chapter's ``compact-1`` as the draft shape wrote it, summarizing ``compacted``."""
    return drafts.draft_of(fixtures.compact_1_wire(), list(compacted))


@CHECKS.case(20, "M1 M4")
def test_draft_migrates_to_todays_record(impl: Implementation) -> None:
    path = fixtures.opening_path()
    draft = compact_1_draft()
    original = copy.deepcopy(draft)
    migrated = impl.migrate_entry(path, draft)
    expect(type(migrated) is dict, "M1", say("migrate_entry must return a plain dict, which the parser then reads"))
    expect_equal(migrated, fixtures.compact_1_wire(), "M1", say("compact-1's draft, migrated"))
    expect_equal(list(migrated["summary"]), SUMMARY_ORDER, "M1", say("the migrated summary's fields, in order"))
    expect_equal(draft, original, "M1", say("the draft after migrating it (it must not change)"))
    expect_independent(draft, migrated, "M1", say("the draft and the migrated record"))
    for what, record in (
        (say("compact-1 in today's shape"), fixtures.compact_1_wire()),
        (say("the user message u2"), to_json_dict(path[3])),
        (say("the tool-call message calls"), to_json_dict(path[6])),
    ):
        given = copy.deepcopy(record)
        passed = impl.migrate_entry(path, given)
        expect_equal(passed, record, "M4", say("{what}, migrated (it must come back equal)", what=what))
        expect(passed is not given, "M4", say("{what} must come back as a new object", what=what))


@CHECKS.case(21, "M2 R18 R27")
def test_compacted_ids_become_the_first_kept_entry(impl: Implementation) -> None:
    path = fixtures.opening_path()
    for compacted in drafts.OPENING_COMPACTED:
        draft = compact_1_draft(compacted.ids)
        what = say("compactedEntryIds listing {what} ({ids})", what=compacted.what, ids=", ".join(compacted.ids))
        if compacted.first_kept is None:
            expect_rejects(
                "M2",
                what,
                lambda d=draft: impl.migrate_entry(path, d),
                ("compact-1", "compactedEntryIds", compacted.named),
            )
        else:
            migrated = impl.migrate_entry(path, draft)
            expect_equal(migrated["firstKeptEntryId"], compacted.first_kept, "M2", what)
    replay = fixtures.system_replay_path()
    before = replay[: [e.id for e in replay].index("compact-1")]
    expect_equal(
        impl.migrate_entry(before, drafts.draft_of(to_json_dict(replay[len(before)]), ["u1", "a1"]))[
            "firstKeptEntryId"
        ],
        "u2",
        "M2",
        say("compactedEntryIds u1, a1 on R6's path, with the system patch patch-1 between the groups"),
    )
    resumed = fixtures.resumed_path()  # compact-1 kept from u2: a later draft need not list u1 or a1 again (R18)
    later = fixtures.compact_1_wire(resumed[-1].id, id="compact-2", timestamp=200)
    for listed, first_kept in ((["u2", "a2"], "u3"), (["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"], "u4")):
        expect_equal(
            impl.migrate_entry(resumed, drafts.draft_of(later, listed))["firstKeptEntryId"],
            first_kept,
            "M2",
            say("compact-2's draft after compact-1, listing {ids}", ids=", ".join(listed)),
        )


@CHECKS.case(22, "M3")
def test_only_what_the_draft_allowed_is_filled_in(impl: Implementation) -> None:
    path = fixtures.opening_path()
    sparse = fixtures.compact_1_wire()
    sparse["summary"] |= {"decisions": [], "unresolved": []}
    migrated = impl.migrate_entry(path, drafts.draft_of(sparse, ["u1", "a1"]))
    expect_equal(
        [migrated["summary"][name] for name in drafts.LEFT_OUT_WHEN_EMPTY],
        [[], []],
        "M3",
        say("a draft that left out its empty decisions and unresolved lists"),
    )
    for unmappable in drafts.UNMAPPABLE:
        draft, field = unmappable.applied(compact_1_draft())
        expect_rejects(
            "M3",
            say("a draft compaction with {what}", what=unmappable.what),
            lambda d=draft: impl.migrate_entry(path, d),
            ("compact-1", field),
        )


@CHECKS.case(23, "M4 R9 R18")
def test_migrated_session_reopens_and_projects_like_a_native_one(impl: Implementation) -> None:
    native = [to_json_dict(entry) for entry in fixtures.resumed_path()]
    at = [entry["id"] for entry in native].index("compact-1")
    old = [*native[:at], compact_1_draft(), *native[at + 1 :]]
    memory = InMemorySessionStore()
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "session.jsonl"
        with JsonlSessionStore.open(file) as store:
            for record in old:  # each record migrated on the path it continues, then appended through the parser
                record = impl.migrate_entry(memory.entries(), record)
                memory.append(record)
                store.append(record)
        reopened = JsonlSessionStore.open(file).entries()
    expect_equal(
        to_json_dict(memory.entries()), native, "M4", say("the old session, migrated into the in-memory store")
    )
    expect_equal(to_json_dict(reopened), native, "R9", say("the migrated session, reopened from its JSONL file"))
    expect_equal(
        _projected(reopened), _projected([parse_session_entry(e) for e in native]), "R18", say("its projection at 31")
    )


def _projected(path: list[SessionEntry]) -> Any:
    result = build_context(
        path, max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=fixtures.teaching_estimator
    )
    return {
        "messages": to_json_dict(list(result.messages)),
        "kept": list(result.kept_entry_ids),
        "reason": result.reason,
    }
