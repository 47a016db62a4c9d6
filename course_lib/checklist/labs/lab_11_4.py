"""Lab 11.4's checks: ``create_compaction_entry``, its derived parent, its isolated inputs and its refusals (R24–R28)."""

from __future__ import annotations

from typing import Any

from ... import fixtures
from ...builders import PathBuilder
from ...teaching.wording import say
from ..check import Implementation, LabChecks
from ..expect import expect_equal, expect_independent, expect_rejects, wire

CHECKS = LabChecks("11.4")


def _create(impl: Implementation, path: list[Any], **overrides: Any) -> Any:
    options: dict[str, Any] = {
        "id": "compact-1",
        "timestamp": 100,
        "summary": wire(fixtures.compact_1_summary()),
        "first_kept_entry_id": "u2",
        "tokens_before": 29,
    }
    options.update(overrides)
    return impl.create_compaction_entry(path, **options)


@CHECKS.case(10, "R24 R25 R28")
def test_parent_derived_and_inputs_isolated(impl: Implementation) -> None:
    path = fixtures.opening_path()
    before = wire(path)
    summary = wire(fixtures.compact_1_summary())
    entry = _create(impl, path, summary=summary)
    expect_equal(wire(entry), fixtures.compact_1_wire(), "R25/R28", "compact-1 created from the opening path")
    expect_equal(entry.parent_id, "a3", "R25", "parent_id (the path's last entry)")
    expect_equal(wire(path), before, "R24", "the path after creating a compaction (it must not change)")
    expect_equal(len(path), 10, "R24", "path length (the entry is not appended by the function)")
    expect_independent(summary, entry, "R28", "the summary argument and the new entry")
    summary["next"].append("changed by the caller later")
    expect_equal(wire(entry), fixtures.compact_1_wire(), "R28", "the entry after changing the summary argument")
    labelled = PathBuilder(fixtures.opening_path()).metadata("label", "label", "reviewed").entries
    expect_equal(
        _create(impl, labelled).parent_id, "label", "R25", "parent_id when the path ends with a metadata entry"
    )
    expect_equal(
        _create(impl, path, tokens_before=29.5, timestamp=100.5).tokens_before,
        29.5,
        "R4/R28",
        "tokens_before 29.5 (recorded as given)",
    )


@CHECKS.case(11, "R25 R26 R27")
def test_bad_compactions_rejected(impl: Implementation) -> None:
    path = fixtures.opening_path()
    before = wire(path)
    expect_rejects("R25", "an empty path", lambda: _create(impl, []))
    for starts in ("u1", "u2", "u3"):
        created = _create(impl, path, first_kept_entry_id=starts)
        # a function that changes its input is told so before any rule its changed input then breaks (issue 45)
        expect_equal(
            wire(path),
            before,
            "R24",
            say("the path after creating a compaction keeping from {entry} (it must not change)", entry=repr(starts)),
        )
        expect_equal(
            created.first_kept_entry_id,
            starts,
            "R27",
            say("firstKeptEntryId {entry} (it opens a group)", entry=repr(starts)),
        )
    for inside in ("sys", "a1", "a2", "calls", "r-test", "r-read", "a3"):
        expect_rejects(
            "R27",
            say("firstKeptEntryId {entry} (not the first entry of a group)", entry=repr(inside)),
            lambda i=inside: _create(impl, path, first_kept_entry_id=i),
            (inside,),
        )
    expect_rejects(
        "R27", "an unknown firstKeptEntryId", lambda: _create(impl, path, first_kept_entry_id="nope"), ("nope",)
    )
    expect_rejects("R26", "an id already on the path", lambda: _create(impl, path, id="a3"), ("a3",))
    expect_rejects(
        "R26",
        "the id of a compaction already on the path",
        lambda: _create(impl, fixtures.resumed_path()),
        ("compact-1",),
    )
