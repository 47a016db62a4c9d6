"""Lab 11.1's checks: the strict compaction record (R1–R4) and the stores that append and reopen it (R7, R9)."""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ... import fixtures
from ...store import InMemorySessionStore, JsonlSessionStore
from ...teaching.catalogues import compactions
from ...teaching.wording import Wording, say
from ..check import Implementation, LabChecks
from ..expect import expect, expect_equal, expect_independent, expect_rejects, wire

CHECKS = LabChecks("11.1")


@CHECKS.case(1, "R1 R3 R4")
def test_valid_compaction_parses_to_independent_copy(impl: Implementation) -> None:
    source = fixtures.compact_1_wire()
    original = copy.deepcopy(source)
    parsed = impl.parse_session_entry(source)
    expect_equal(wire(parsed), original, "R1", "a valid compaction entry must parse to the same fields")
    expect_equal(
        (parsed.type, parsed.first_kept_entry_id),
        ("compaction", "u2"),
        "api",
        "snake_case attributes (type, first_kept_entry_id)",
    )
    expect_equal(parsed.tokens_before, 29, "R4", "tokens_before (recorded as given, never re-estimated)")
    expect_equal(list(wire(parsed)["summary"]), SUMMARY_FIELDS, "R1", "the summary's fields, in the fixed order")
    expect_independent(source, parsed, "R3", "the input and the parsed entry")
    source["summary"]["decisions"].append("changed by the caller later")
    source["summary"]["goal"] = "changed goal"
    expect_equal(wire(parsed), original, "R3", "changing the input after parsing must not change the parsed entry")
    again = impl.parse_session_entry(parsed)
    expect(again is not parsed, "R3", "parsing an already-parsed entry must return a new object, not the entry itself")
    expect_equal(wire(again), original, "R3", "an already-parsed entry, parsed again")
    for edit, change in (
        (say("setting parsed.summary.goal"), lambda: setattr(parsed.summary, "goal", "x")),
        (say("appending to parsed.summary.decisions"), lambda: parsed.summary.decisions.append("x")),
    ):
        expect(
            _refused(change), "R3", say("{what} must be refused: a parsed entry cannot be changed in place", what=edit)
        )
    for what, value in _good_compactions():
        expect_equal(
            wire(impl.parse_session_entry(value)), value, "R1/R4", say("a compaction with {what} (valid)", what=what)
        )


SUMMARY_FIELDS = ["goal", "constraints", "completed", "decisions", "changedFiles", "unresolved", "next"]


def _refused(change: Callable[[], Any]) -> bool:
    try:
        change()
    except Exception:  # noqa: BLE001 - any refusal will do (pydantic's ValidationError, a tuple's AttributeError)
        return True
    return False


def _good_compactions() -> list[tuple[Wording, dict[str, Any]]]:
    """Valid, if unusual, compactions (the catalogue's, on compact-1): R4 records tokensBefore as given."""
    return [(unusual.what, unusual.applied(fixtures.compact_1_wire())) for unusual in compactions.UNUSUAL]


def _bad_compactions() -> list[tuple[Wording, dict[str, Any], tuple[str | tuple[str, ...], ...]]]:
    """(what, wire value, names the error must mention) for check 2: the id and the field path (R2), from the catalogue."""
    made: list[tuple[Wording, dict[str, Any], tuple[str | tuple[str, ...], ...]]] = []
    for malformed in (*compactions.MALFORMED, compactions.BLANK_ID):
        value, fields = malformed.applied(fixtures.compact_1_wire())
        field_names = fields[0] if len(fields) == 1 else fields
        made.append(
            (malformed.what, value, (field_names,) if malformed is compactions.BLANK_ID else ("compact-1", field_names))
        )
    return made


@CHECKS.case(2, "R1 R2")
def test_parser_rejects_bad_compactions(impl: Implementation) -> None:
    for what, value, names in _bad_compactions():
        expect_rejects(
            "R1/R2", say("a compaction with {what}", what=what), lambda v=value: impl.parse_session_entry(v), names
        )


@CHECKS.case(3, "R7 R9")
def test_stores_append_and_reopen(impl: Implementation) -> None:
    root = wire(fixtures.opening_path()[1].model_copy(update={"parent_id": None}))
    compaction = fixtures.compact_1_wire() | {"parentId": root["id"]}
    memory = InMemorySessionStore(parse=impl.parse_session_entry)
    for entry in (root, compaction):
        memory.append(entry)
    expect_equal(wire(memory.entries()), [root, compaction], "R7", "the in-memory store's entries")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        with JsonlSessionStore.open(path, parse=impl.parse_session_entry) as store:
            for entry in (root, compaction):
                store.append(entry)
        reopened = JsonlSessionStore.open(path, parse=impl.parse_session_entry).entries()
        expect_equal(wire(reopened), [root, compaction], "R9", "entries reopened from the JSONL file")
        expect(
            type(reopened[1]) is type(impl.parse_session_entry(compaction)),
            "R9",
            "the reopened compaction must be the parser's own compaction type",
        )
