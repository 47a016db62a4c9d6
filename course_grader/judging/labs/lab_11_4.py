"""Lab 11.4's hidden cases: ``create_compaction_entry`` on paths it has not seen (R24–R28).

The drawn cases compact generated sessions (with metadata, earlier
compactions, a metadata entry last) under drawn ids, timestamps, summaries and
tokensBefore, and reject an empty path, taken ids and every wrong kind of
firstKeptEntryId. The covering set does the same on the chapter's resumed path
ending in a metadata entry and on its opening path, under drawn ids and numbers.
"""

from __future__ import annotations

import random
from typing import Any

from course_lib.models import SessionEntry
from course_lib.parsing import parse_session_entry, to_json_dict
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import say

from .. import shapes
from ..calls import FIXED, Calls, describe_path
from ..draws import Covering, Draw
from ..generate import SessionRecipe, group_starts, random_session, random_summary
from ..hidden import HiddenCall, HiddenTest

DRAWN_REJECTIONS = (
    "taken id",
    "assistant",
    "toolResult",
    "system",
    "metadata",
    "compaction",
    "unknown",
    "taken id",
    "taken metadata id",
    "taken compaction id",
)
"""What each drawn rejection gets wrong: a taken id (of any entry, a metadata, a compaction), or what it keeps from."""
KINDS_SAID = {
    "taken id": say("taken id"),
    "taken metadata id": say("taken metadata id"),
    "taken compaction id": say("taken compaction id"),
    "unknown": say("unknown"),
}
"""How a description says a rejection's kind (a role or an entry type is said as the wire has it)."""


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    calls = Calls("11.4", "create_compaction_entry")
    made = _drawn_compactions(calls, rng)
    rejected = _drawn_rejections(calls, rng)
    return (
        HiddenTest(
            "generated_compactions",
            "11.4",
            "R24 R25 R28",
            message("a new entry whose parent is the path's last entry; the path and the arguments stay unchanged"),
            tuple(made),
        ),
        HiddenTest(
            "generated_rejections",
            "11.4",
            "R25 R26 R27",
            message(
                "an empty path, a taken id, or a firstKeptEntryId that does not start a group is a ValueError naming it"
            ),
            tuple(rejected),
        ),
    )


def _options(rng: random.Random, path: list[SessionEntry], **overrides: Any) -> dict[str, Any]:
    """Drawn arguments for compacting ``path``: a new id, a timestamp, a summary, a group start, tokensBefore."""
    base = {
        "id": f"ck-{rng.randrange(10**4)}",
        "timestamp": rng.choice((rng.randint(1, 10**6), rng.randint(1, 10**6) + 0.5)),
        "summary": to_json_dict(random_summary(rng)),
        "first_kept_entry_id": rng.choice(group_starts(path)) if group_starts(path) else "u1",
        "tokens_before": rng.choice((0, rng.randint(1, 5000), 17.25)),
    }
    return base | overrides


def _drawn_compactions(calls: Calls, rng: random.Random) -> list[HiddenCall]:
    made = []
    for number in range(10):
        recipe = SessionRecipe(groups=(1, 6), compactions=number % 3, metadata=True)
        path = random_session(rng.randrange(10**6), recipe)
        if number % 4 == 1:  # the parent is whatever entry is last (R25)
            path = path + [parse_session_entry(_metadata_after(path, rng))]
        made.append(calls.make(describe_path(path), path=path, options=_options(rng, path)))
    return made


def _drawn_rejections(calls: Calls, rng: random.Random) -> list[HiddenCall]:
    rejected = [calls.make(say("an empty path"), path=[], options=_options(rng, random_session(1)), reject=())]
    for kind in DRAWN_REJECTIONS:
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(2, 5), compactions=1, metadata=True))
        if kind.startswith("taken"):
            wanted = kind.split()[1]
            taken = rng.choice([e for e in path if wanted == "id" or e.type == wanted] or path).id
            made_options = _options(rng, path, id=taken)
        else:
            taken = _entry_of_kind(rng, path, kind)
            made_options = _options(rng, path, first_kept_entry_id=taken)
        rejected.append(
            calls.make(
                say(
                    "{path}; {kind} {taken}",
                    path=describe_path(path),
                    kind=KINDS_SAID.get(kind, kind),
                    taken=repr(taken),
                ),
                path=path,
                options=made_options,
                reject=(taken,),
            )
        )
    return rejected


def _metadata_after(path: list[SessionEntry], rng: random.Random) -> dict[str, Any]:
    last = path[-1]
    return {
        "type": "metadata",
        "id": f"meta-end-{rng.randrange(1000)}",
        "parentId": last.id,
        "timestamp": last.timestamp + 1,
        "key": "label",
        "value": "end",
    }


def _entry_of_kind(rng: random.Random, path: list[SessionEntry], kind: str) -> str:
    if kind == "unknown":
        return f"missing-{rng.randrange(1000)}"
    if kind in ("metadata", "compaction"):
        found = [e.id for e in path if e.type == kind]
    else:
        found = [e.id for e in path if e.type == "message" and e.message.role == kind]
    return rng.choice(found) if found else f"missing-{rng.randrange(1000)}"


def covering(draw: Draw) -> Covering:
    calls = Calls("11.4", "create_compaction_entry", FIXED)
    i = draw.id
    path = shapes.resumed(draw).metadata(i("meta-1"), "label", draw.text(1, 2)).entries
    opening = shapes.opening(draw.fresh()).entries

    def options(**overrides: Any) -> dict[str, Any]:
        return {
            "id": i("compact-2"),
            "timestamp": draw.clock() + 0.5,
            "summary": draw.summary(),
            "first_kept_entry_id": i("u3"),
            "tokens_before": draw.between(1, 5000) + 0.25,
        } | overrides

    made = [
        calls.make(
            say("{path}, ending in a metadata entry; fractional tokens_before", path=describe_path(path)),
            path=path,
            options=options(),
        ),
        calls.make(
            say("{path}; keeping from the first group", path=describe_path(path)),
            path=path,
            options=options(first_kept_entry_id=i("u1"), tokens_before=0, timestamp=draw.between(1, 10**6)),
        ),
        calls.make(
            say("{path}; keeping from the newest group", path=describe_path(opening)),
            path=opening,
            options=options(first_kept_entry_id=opening[5].id, id=i("compact-1")),
        ),
    ]
    rejected = [calls.make(say("an empty path"), path=[], options=options(first_kept_entry_id=i("u1")), reject=())]
    for what, name in [
        (say("an assistant message"), "a2"),
        (say("a tool call's message"), "calls"),
        (say("a tool result"), "r-read"),
        (say("a system message"), "sys"),
        (say("a metadata entry"), "meta-1"),
        (say("a compaction"), "compact-1"),
        (say("an unknown entry"), "missing-1"),
    ]:
        rejected.append(
            calls.make(
                say("{path}; keeping from {what} {id}", path=describe_path(path), what=what, id=repr(i(name))),
                path=path,
                options=options(first_kept_entry_id=i(name)),
                reject=(i(name),),
            )
        )
    for what, name in [(say("a message"), "a1"), (say("the last entry"), "meta-1"), (say("a compaction"), "compact-1")]:
        rejected.append(
            calls.make(
                say("{path}; the id of {what} {id}", path=describe_path(path), what=what, id=repr(i(name))),
                path=path,
                options=options(id=i(name)),
                reject=(i(name),),
            )
        )
    return {"generated_compactions": tuple(made), "generated_rejections": tuple(rejected)}
