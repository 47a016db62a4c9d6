"""Lab 11.1's hidden cases: ``parse_session_entry`` on compactions it has not seen (R1–R4).

The drawn cases parse compactions and other entries of generated sessions, and
the catalogue's malformed changes (``course_lib.teaching.catalogues.compactions``) on
them under fresh ids. The covering set holds entries shaped like the chapter's
compact-1 with every unusual value the rules allow, the opening path's other
entries, entries handed over already parsed (R3), and every malformed change
once, under drawn ids.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

from course_lib import fixtures
from course_lib.parsing import to_json_dict
from course_lib.teaching.catalogues import compactions
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import say

from .. import shapes
from ..calls import FIXED, Calls
from ..draws import Covering, Draw
from ..generate import SessionRecipe, random_session
from ..hidden import HiddenCall, HiddenTest


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = Calls("11.1", "parse_session_entry")
    valid = _compactions(rng, 8)
    for index, unusual in enumerate(compactions.UNUSUAL, start=1):  # R4: recorded as given, on generated records too
        valid[index] = unusual.applied(valid[index])
    others = [
        to_json_dict(e) for e in random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 3), compactions=0))
    ]
    round_trip = [calls.make(say("a generated compaction entry ({id})", id=e["id"]), value=e) for e in valid]
    round_trip += [
        calls.make(say("a generated {type} entry ({id})", type=e["type"], id=e["id"]), value=e)
        for e in rng.sample(others, 4)
    ]

    def mutated(malformed: compactions.Malformed) -> HiddenCall:
        """The catalogue's change on a generated compaction under a fresh id: the error names the id and the field (R2)."""
        entry = copy.deepcopy(rng.choice(valid))
        entry["id"] = f"ck-{rng.randrange(10**4)}"
        changed, fields = malformed.applied(entry)
        return calls.make(
            say("a compaction with {what}", what=malformed.what),
            value=changed,
            reject=(entry["id"], compactions.leaf(fields[0])),
        )

    rejections = [mutated(malformed) for malformed in rng.sample(compactions.MALFORMED, 20)]
    return (
        HiddenTest(
            "generated_compactions_round_trip",
            "11.1",
            "R1 R3 R4",
            message(
                "valid generated entries parse to equal values: every field kept, the summary's in the fixed order, "
                "tokensBefore recorded as given"
            ),
            tuple(round_trip),
            view=_with_summary_order,
        ),
        HiddenTest(
            "generated_malformed_compactions",
            "11.1",
            "R1 R2",
            message("each malformed compaction is rejected with a ValueError naming the entry id and the field"),
            tuple(rejections),
        ),
    )


def _compactions(rng: random.Random, count: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    seed = 0
    while len(found) < count:
        seed += 1
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), compactions=2))
        found += [to_json_dict(e) for e in path if e.type == "compaction"]
    return found[:count]


def _with_summary_order(entry: Any) -> Any:
    """A parsed entry and its summary's field order, which a comparison of values alone would not see (R1)."""
    summary = entry.get("summary") if isinstance(entry, Mapping) else None
    return {"entry": entry, "summaryFieldOrder": list(summary) if isinstance(summary, Mapping) else None}


def covering(draw: Draw) -> Covering:
    calls = Calls("11.1", "parse_session_entry", FIXED)
    valid = [(say("a compaction like the chapter's compact-1"), _compact_wire(draw, "a3"))]
    valid += [
        (say("a compaction with {what}", what=unusual.what), unusual.applied(_compact_wire(draw, "a3")))
        for unusual in compactions.UNUSUAL
    ]
    opening = shapes.opening(draw)
    others = shapes.wire(
        opening.metadata(draw.id("meta-1"), "label", {"nested": [draw.between(0, 9), 2.5, None]}).entries
    )
    round_trip = [calls.make(what, value=value) for what, value in valid]
    round_trip += [
        calls.make(say("a {type} entry ({id})", type=entry["type"], id=entry["id"]), value=entry) for entry in others
    ]
    round_trip += [
        calls.make(say("{what}, handed over already parsed", what=what), value=value, reparse=True)
        for what, value in valid[:2]
    ]
    round_trip += [
        calls.make(
            say("a {type} entry ({id}), handed over already parsed", type=entry["type"], id=entry["id"]),
            value=entry,
            reparse=True,
        )
        for entry in others
        if entry["id"] in (draw.id("calls"), draw.id("meta-1"))
    ]
    rejected = []
    named = draw.id("ck-fixed")
    for malformed in compactions.MALFORMED:  # the catalogue the checklist tries on compact-1, here under a drawn id
        entry, fields = malformed.applied(_compact_wire(draw, "a3", id=named))
        rejected.append(
            calls.make(
                say("a compaction with {what}", what=malformed.what),
                value=entry,
                reject=(named, compactions.leaf(fields[0])),
            )
        )
    blank, _ = compactions.BLANK_ID.applied(_compact_wire(draw, "a3"))
    rejected.append(
        calls.make(say("a compaction with {what}", what=compactions.BLANK_ID.what), value=blank, reject=("id",))
    )
    return {"generated_compactions_round_trip": tuple(round_trip), "generated_malformed_compactions": tuple(rejected)}


def _compact_wire(draw: Draw, parent: str, **overrides: Any) -> dict[str, Any]:
    return (
        fixtures.compact_1_wire(
            draw.id(parent),
            id=draw.id("compact-1"),
            timestamp=draw.clock(),
            summary=draw.summary(),
            firstKeptEntryId=draw.id("u2"),
            tokensBefore=draw.between(1, 5000),
        )
        | overrides
    )
