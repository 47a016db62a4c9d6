"""The draft shape of a compaction record, and the draft records the course migrates or refuses (M1–M4).

Before the chapter settled on today's seven-field summary and
``firstKeptEntryId``, compactions were written in a draft shape: the summary
said ``invariants``, ``files`` and ``nextSteps``, left ``decisions`` and
``unresolved`` out when they were empty, and the entry listed the ids it
summarized (``compactedEntryIds``) instead of naming the first kept entry. The
parser refuses all of it (R1); ``course_lib.migration.migrate_entry`` moves such
a record into today's shape before the parser sees it. This module is the
shape written once, and the catalogue the checklist, the grader's hidden cases
and Lab 11.6's tables all try.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..wording import Wording, say

Wire = dict[str, Any]

DRAFT_NAMES: dict[str, str] = {
    "goal": "goal",
    "constraints": "invariants",
    "completed": "completed",
    "decisions": "decisions",
    "changedFiles": "files",
    "unresolved": "unresolved",
    "next": "nextSteps",
}
"""Today's summary field (in today's order, R1) → its name in the draft shape (M1)."""

LEFT_OUT_WHEN_EMPTY = ("decisions", "unresolved")
"""The draft summary lists a draft writer left out when they were empty: only these become ``[]`` (M3)."""

DRAFT_ENTRY = ("type", "id", "parentId", "timestamp", "summary", "compactedEntryIds", "tokensBefore")
"""The keys of a draft compaction entry, in the order it wrote them."""


def draft_of(entry: Mapping[str, Any], compacted: list[str]) -> Wire:
    """Today's wire compaction ``entry`` written back in the draft shape, summarizing ``compacted`` (a new dict).

    Empty lists the draft left out (``LEFT_OUT_WHEN_EMPTY``) are left out here too, so a migration must put them back.
    """
    summary = entry["summary"]
    draft_summary = {
        old: copy.deepcopy(summary[new])
        for new, old in DRAFT_NAMES.items()
        if not (new in LEFT_OUT_WHEN_EMPTY and summary[new] == [])
    }
    values = {**copy.deepcopy(dict(entry)), "summary": draft_summary, "compactedEntryIds": list(compacted)}
    return {key: values[key] for key in DRAFT_ENTRY}


@dataclass(frozen=True)
class Unmappable:
    """A draft record the migration must refuse: ``change`` edits a draft in place and returns the field to name."""

    what: Wording
    """How checks and tables name it, after "a draft compaction with" (a ``say``, so it can be translated)."""
    rule: str
    change: Callable[[Wire], str]

    def applied(self, draft: Mapping[str, Any]) -> tuple[Wire, str]:
        """A changed copy of ``draft`` and the field its error must name."""
        value = copy.deepcopy(dict(draft))
        return value, self.change(value)


def _drop(field: str) -> Callable[[Wire], str]:
    def change(draft: Wire) -> str:
        draft["summary"].pop(field)
        return f"summary.{field}"

    return change


def _add(field: str, value: Any, *, summary: bool = False) -> Callable[[Wire], str]:
    def change(draft: Wire) -> str:
        (draft["summary"] if summary else draft)[field] = copy.deepcopy(value)
        return f"summary.{field}" if summary else field

    return change


def _compacted(value: Any) -> Callable[[Wire], str]:
    def change(draft: Wire) -> str:
        draft["compactedEntryIds"] = copy.deepcopy(value)
        return "compactedEntryIds"

    return change


def _summary_as_text(draft: Wire) -> str:
    draft["summary"] = "Goal: keep going"
    return "summary"


UNMAPPABLE: tuple[Unmappable, ...] = (
    Unmappable(say("no files list (the draft always wrote it)"), "M3", _drop("files")),
    Unmappable(say("no invariants list (the draft always wrote it)"), "M3", _drop("invariants")),
    Unmappable(say("no nextSteps list (the draft always wrote it)"), "M3", _drop("nextSteps")),
    Unmappable(say("no completed list (the draft always wrote it)"), "M3", _drop("completed")),
    Unmappable(say("an unknown summary field notes"), "M3", _add("notes", ["keep this"], summary=True)),
    Unmappable(say("today's changedFiles beside the draft's files"), "M3", _add("changedFiles", [], summary=True)),
    Unmappable(say("an unknown entry field summaryText"), "M3", _add("summaryText", "Goal: keep going")),
    Unmappable(say("a firstKeptEntryId beside compactedEntryIds"), "M3", _add("firstKeptEntryId", "u2")),
    Unmappable(say("a summary given as a string"), "M3", _summary_as_text),
    Unmappable(say("an empty compactedEntryIds"), "M2", _compacted([])),
    Unmappable(say("compactedEntryIds given as a string"), "M2", _compacted("u1")),
    Unmappable(say("a number in compactedEntryIds"), "M2", _compacted(["u1", 7])),
)
"""Draft records that cannot be mapped: each error names the entry id and the field (M2, M3)."""


@dataclass(frozen=True)
class Compacted:
    """A ``compactedEntryIds`` on the chapter's opening path, and what it maps to (M2, R18, R27).

    ``first_kept`` is today's ``firstKeptEntryId``; ``None`` means the migration
    refuses it, with an error naming ``named`` and the field ``compactedEntryIds``.
    """

    what: Wording
    ids: tuple[str, ...]
    first_kept: str | None
    named: str = ""


OPENING_COMPACTED: tuple[Compacted, ...] = (
    Compacted(say("the first group"), ("u1", "a1"), "u2"),
    Compacted(say("the first group and the system message"), ("sys", "u1", "a1"), "u2"),
    Compacted(say("the first two groups, listed newest first"), ("a2", "u2", "a1", "u1"), "u3"),
    Compacted(say("only the first user message"), ("u1",), None, "a1"),
    Compacted(say("half of the tool-call group"), ("u1", "a1", "u2", "a2", "u3", "calls"), None, "r-test"),
    Compacted(say("the second group but not the first"), ("u2", "a2"), None, "u2"),
    Compacted(say("an id not on the path"), ("u1", "a1", "u9"), None, "u9"),
    Compacted(
        say("every message on the path"),
        ("u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3"),
        None,
        "compact-1",
    ),
)
"""What the checklist tries on ``compact-1``'s draft at the end of the opening path: mapped, or refused naming ``named``."""
