"""Lab 11.6's hidden cases (optional): ``migrate_entry`` on draft records it has not seen (M1–M4, R18, R27).

The drawn cases write the compactions of generated sessions back in the draft
shape (``course_lib.teaching.catalogues.drafts``), summarizing every grouped
entry before each one's first kept entry (the system and metadata entries
among them sometimes too, in a shuffled order), and hand each to
``migrate_entry`` on the path it continues; they also cut the summarized ids
where the migration must refuse (inside a group, past the path, with a gap,
everything), apply the catalogue's unmappable changes under fresh ids, and
pass today's records through. The covering set does the same on the chapter's
opening and resumed shapes under drawn ids: every mapping and refusal of the
catalogue once.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

from course_lib.models import SessionEntry
from course_lib.parsing import to_json_dict
from course_lib.teaching.catalogues import drafts
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import Wording, say

from .. import shapes
from ..calls import FIXED, Calls
from ..draws import Covering, Draw
from ..generate import SessionRecipe, random_session
from ..hidden import HiddenCall, HiddenTest


def summarized_before(path: list[SessionEntry], first_kept: str) -> list[str]:
    """The grouped entries before ``first_kept`` since the latest earlier compaction's first kept entry (M2, R18)."""
    grouped = [e.id for e in path if e.type == "message" and e.message.role != "system"]
    earlier = [e.first_kept_entry_id for e in path if e.type == "compaction"]
    start = grouped.index(earlier[-1]) if earlier and earlier[-1] in grouped else 0
    return grouped[start : grouped.index(first_kept)] if first_kept in grouped[start:] else []


def _drafts(rng: random.Random, count: int) -> list[tuple[list[SessionEntry], dict[str, Any], list[str]]]:
    """(the path it continues, today's record, the ids its draft summarizes) for generated compactions."""
    found: list[tuple[list[SessionEntry], dict[str, Any], list[str]]] = []
    while len(found) < count:
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(3, 6), compactions=2))
        for at, entry in enumerate(path):
            if entry.type == "compaction":
                compacted = summarized_before(path[:at], entry.first_kept_entry_id)
                if compacted:
                    found.append((path[:at], to_json_dict(entry), compacted))
    return found[:count]


def _loosely_listed(rng: random.Random, path: list[SessionEntry], compacted: list[str]) -> list[str]:
    """``compacted`` in a shuffled order, sometimes with system and metadata entries before the kept ones (M2)."""
    before = path[: [e.id for e in path].index(compacted[-1])]
    extra = [e.id for e in before if e.type == "metadata" or (e.type == "message" and e.message.role == "system")]
    listed = compacted + [i for i in extra if rng.random() < 0.5]
    rng.shuffle(listed)
    return listed


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = Calls("11.6", "migrate_entry")
    cases = _drafts(rng, 8)
    migrated = [
        calls.make(
            say("a generated draft compaction ({id})", id=entry["id"]),
            path=path,
            value=drafts.draft_of(entry, _loosely_listed(rng, path, compacted) if index % 2 else compacted),
        )
        for index, (path, entry, compacted) in enumerate(cases)
    ]
    migrated += [
        calls.make(say("a compaction in today's shape ({id})", id=e["id"]), path=p, value=e) for p, e, _ in cases[:2]
    ]
    refused = [_unmappable(calls, rng, rng.choice(cases), unmappable) for unmappable in drafts.UNMAPPABLE]
    refused += [_cut(calls, rng, case) for case in cases]
    return (
        HiddenTest(
            "generated_drafts_migrate",
            "11.6",
            "M1 M2 M3 M4",
            message(
                "generated draft compactions migrate to today's record: fields renamed and in order, the empty lists "
                "the draft left out put back, firstKeptEntryId opening the first group left unsummarized"
            ),
            tuple(migrated),
            view=_with_summary_order,
        ),
        HiddenTest(
            "generated_unmappable_drafts",
            "11.6",
            "M2 M3 R27",
            message("each draft that cannot be mapped is refused with a ValueError naming the entry id and the field"),
            tuple(refused),
        ),
    )


def _unmappable(
    calls: Calls, rng: random.Random, case: tuple[list[SessionEntry], dict[str, Any], list[str]],
    unmappable: drafts.Unmappable,
) -> HiddenCall:  # fmt: skip
    path, entry, compacted = case
    fresh = entry | {"id": f"draft-{rng.randrange(10**4)}"}
    value, field = unmappable.applied(drafts.draft_of(fresh, compacted))
    return calls.make(
        say("a draft compaction with {what}", what=unmappable.what), path=path, value=value, reject=(fresh["id"], field)
    )


def _cut(calls: Calls, rng: random.Random, case: tuple[list[SessionEntry], dict[str, Any], list[str]]) -> HiddenCall:
    """The summarized ids cut where the migration must refuse: inside a group, past the path, with a gap, or all (M2)."""
    path, entry, compacted = case
    grouped = [e.id for e in path if e.type == "message" and e.message.role != "system"]
    starts = {e.id for e in path if e.type == "message" and e.message.role == "user"}
    inside = [i for i in grouped[grouped.index(compacted[0]) :] if i not in starts]
    ways: dict[Wording, list[str] | None] = {
        say("an id not on the path"): compacted + [f"gone-{rng.randrange(10**4)}"],
        say("a summarized group after a kept one"): compacted[1:]
        if len(compacted) > 1 and compacted[0] in starts
        else None,
        say("every grouped entry from the first"): grouped[grouped.index(compacted[0]) :],
    }
    if inside:
        cut = rng.choice(inside)
        ways[say("the kept part starting inside a group")] = grouped[grouped.index(compacted[0]) : grouped.index(cut)]
    what, ids = rng.choice([(what, ids) for what, ids in ways.items() if ids])
    return calls.make(
        say("a draft compaction listing {what}", what=what),
        path=path,
        value=drafts.draft_of(entry, ids),
        reject=(entry["id"], "compactedEntryIds"),
    )


def _with_summary_order(record: Any) -> Any:
    """A migrated record and its summary's field order, which a comparison of values alone would not see (M1)."""
    summary = record.get("summary") if isinstance(record, Mapping) else None
    return {"record": record, "summaryFieldOrder": list(summary) if isinstance(summary, Mapping) else None}


def covering(draw: Draw) -> Covering:
    calls = Calls("11.6", "migrate_entry", FIXED)
    opening = shapes.opening(draw)
    path = opening.entries
    native = to_json_dict(shapes.compaction(draw, opening, "compact-1", "u2"))
    migrated, refused = [], []
    for compacted in drafts.OPENING_COMPACTED:
        value = drafts.draft_of(native, [draw.id(i) for i in compacted.ids])
        description = say("a draft of compact-1 whose compactedEntryIds list {what}", what=compacted.what)
        if compacted.first_kept is None:
            named = native["id"] if compacted.named == "compact-1" else draw.id(compacted.named)
            refused.append(calls.make(description, path=path, value=value, reject=(native["id"], named)))
        else:
            migrated.append(calls.make(description, path=path, value=value))
    sparse = copy.deepcopy(native)
    sparse["summary"] |= {"decisions": [], "unresolved": []}
    migrated.append(
        calls.make(
            say("a draft that left out its empty decisions and unresolved lists"),
            path=path,
            value=drafts.draft_of(sparse, [draw.id("u1"), draw.id("a1")]),
        )
    )
    resumed = shapes.resumed(draw)
    later = to_json_dict(shapes.compaction(draw, resumed, "compact-2", "u3"))
    migrated.append(
        calls.make(
            say("a draft after compact-1, listing only what compact-1 kept"),
            path=resumed.entries,
            value=drafts.draft_of(later, [draw.id("u2"), draw.id("a2")]),
        )
    )
    migrated += [
        calls.make(say("{what}, passed through", what=what), path=path, value=value)
        for what, value in (
            (say("compact-1 in today's shape"), native),
            (say("a tool-call message"), to_json_dict(path[6])),
        )
    ]
    draft = drafts.draft_of(native, [draw.id("u1"), draw.id("a1")])
    for unmappable in drafts.UNMAPPABLE:
        value, field = unmappable.applied(draft)
        refused.append(
            calls.make(
                say("a draft compaction with {what}", what=unmappable.what),
                path=path,
                value=value,
                reject=(native["id"], field),
            )
        )
    return {"generated_drafts_migrate": tuple(migrated), "generated_unmappable_drafts": tuple(refused)}
