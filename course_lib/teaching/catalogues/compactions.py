"""Compaction records that must be refused (R1, R2) and unusual ones that must be kept as given (R1, R4).

Each entry changes one thing in a compaction's wire form. A malformed one says
which field path the parser's error must name (R2); the checklist and Lab
11.1's table apply every entry to the chapter's ``compact-1``, the grader's
covering set does the same under another id, and its drawn cases apply them to
generated compactions, so the four places try one list.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..wording import Wording, say

Wire = dict[str, Any]

SUMMARY_LISTS = ("constraints", "completed", "decisions", "changedFiles", "unresolved", "next")
"""The summary's six lists, in the fixed order after ``goal`` (R1)."""


@dataclass(frozen=True)
class Malformed:
    """One way a compaction record is refused: ``change`` edits a wire entry in place and returns the field path."""

    what: Wording
    """How checks and tables name it, after "a compaction with" (a ``say``, so the checklist can translate it)."""
    rule: str
    change: Callable[[Wire], str | tuple[str, ...]]
    """Returns the path R2 says the error names (``summary.decisions[1]``), or alternatives that each will do."""
    in_lab_table: bool = False
    """Whether Lab 11.1's prediction table shows it (the table keeps to one row per idea)."""

    def applied(self, entry: Mapping[str, Any]) -> tuple[Wire, tuple[str, ...]]:
        """A changed copy of ``entry`` and the field paths its error may name (any one of them)."""
        value = copy.deepcopy(dict(entry))
        named = self.change(value)
        return value, (named,) if isinstance(named, str) else named


@dataclass(frozen=True)
class Unusual:
    """A compaction that is valid although it looks wrong: the parser must keep every field as given."""

    what: Wording
    rule: str
    change: Callable[[Wire], object]
    """Changes the record in place (what it returns, e.g. the field a ``Malformed`` change names, is not used)."""
    in_lab_table: bool = False

    def applied(self, entry: Mapping[str, Any]) -> Wire:
        value = copy.deepcopy(dict(entry))
        self.change(value)
        return value


def leaf(path: str) -> str:
    """The last key of a field path (``summary.decisions[1]`` → ``decisions``): what the grader's hidden cases require."""
    return path.split("[")[0].rsplit(".", 1)[-1]


# --- how an entry changes --------------------------------------------------------------


def _set(field: str, value: Any, *, summary: bool = False) -> Callable[[Wire], str]:
    def change(entry: Wire) -> str:
        (entry["summary"] if summary else entry)[field] = copy.deepcopy(value)
        return f"summary.{field}" if summary else field

    return change


def _drop(field: str, *, summary: bool = False) -> Callable[[Wire], str]:
    def change(entry: Wire) -> str:
        (entry["summary"] if summary else entry).pop(field)
        return f"summary.{field}" if summary else field

    return change


def _append(field: str, item: Any) -> Callable[[Wire], str]:
    """A list member that is not a string, after the list's own members."""

    def change(entry: Wire) -> str:
        items = entry["summary"][field]
        entry["summary"][field] = [*items, item]
        return f"summary.{field}[{len(items)}]"

    return change


def _renamed(old: str, new: str, *, summary: bool = False) -> Callable[[Wire], str]:
    def change(entry: Wire) -> str:
        where = entry["summary"] if summary else entry
        where[new] = where.pop(old)
        return f"summary.{new}" if summary else new

    return change


def _snake_case(entry: Wire) -> tuple[str, ...]:
    entry["first_kept_entry_id"] = entry.pop("firstKeptEntryId")
    return ("first_kept_entry_id", "firstKeptEntryId")  # the unknown key, or the missing one


MALFORMED: tuple[Malformed, ...] = (
    Malformed(say("a null parentId"), "R1", _set("parentId", None), in_lab_table=True),
    Malformed(say("a blank parentId"), "R1", _set("parentId", "")),
    Malformed(say("a blank goal"), "R1", _set("goal", "  ", summary=True), in_lab_table=True),
    Malformed(say("a tab for a goal"), "R1", _set("goal", "\t", summary=True)),
    Malformed(say("a missing constraints list"), "R1", _drop("constraints", summary=True), in_lab_table=True),
    Malformed(say("a missing next list"), "R1", _drop("next", summary=True)),
    Malformed(
        say("the legacy alias summary.files"), "R1", _renamed("changedFiles", "files", summary=True), in_lab_table=True
    ),
    Malformed(
        say("the legacy alias summary.nextSteps"), "R1", _set("nextSteps", ["x"], summary=True), in_lab_table=True
    ),
    Malformed(say("the legacy alias summary.invariants"), "R1", _set("invariants", ["x"], summary=True)),
    Malformed(say("an entry-level compactedEntryIds"), "R1", _set("compactedEntryIds", ["u1"]), in_lab_table=True),
    Malformed(say("an entry-level summaryText"), "R1", _set("summaryText", "Goal: keep going")),
    Malformed(say("a missing firstKeptEntryId"), "R1", _drop("firstKeptEntryId"), in_lab_table=True),
    Malformed(say("a missing timestamp"), "R1", _drop("timestamp")),
    Malformed(say("a missing tokensBefore"), "R1", _drop("tokensBefore")),
    Malformed(say("a missing summary"), "R1", _drop("summary")),
    Malformed(say("the snake_case key first_kept_entry_id on the wire"), "R1", _snake_case),
    Malformed(say("a blank firstKeptEntryId"), "R1", _set("firstKeptEntryId", " ")),
    Malformed(say("tokensBefore -1"), "R1", _set("tokensBefore", -1), in_lab_table=True),
    Malformed(say("tokensBefore -0.5"), "R1", _set("tokensBefore", -0.5)),
    Malformed(say("an infinite tokensBefore"), "R1", _set("tokensBefore", float("inf")), in_lab_table=True),
    Malformed(say("a NaN tokensBefore"), "R1", _set("tokensBefore", float("nan"))),
    Malformed(say("tokensBefore true"), "R1", _set("tokensBefore", True), in_lab_table=True),
    Malformed(say("tokensBefore given as text"), "R1", _set("tokensBefore", "29")),
    Malformed(say("timestamp '100'"), "R1", _set("timestamp", "100"), in_lab_table=True),
    Malformed(say("timestamp true"), "R1", _set("timestamp", True)),
    Malformed(say("an infinite timestamp"), "R1", _set("timestamp", float("-inf"))),
    Malformed(say("a null timestamp"), "R1", _set("timestamp", None)),
    Malformed(say("a non-string decision (7)"), "R1", _append("decisions", 7), in_lab_table=True),
    Malformed(say("a null constraint"), "R1", _append("constraints", None)),
    Malformed(say("a nested list in next"), "R1", _append("next", ["nested"])),
    Malformed(say("an object in completed"), "R1", _append("completed", {"text": "x"})),
    Malformed(say("a list given as a string"), "R1", _set("completed", "a single string", summary=True)),
    Malformed(say("a summary given as a string"), "R1", _set("summary", "Goal: keep going")),
)
"""Every malformed record the course tries; the parser's error names the entry id and the field (R2)."""

BLANK_ID = Malformed(say("a blank id"), "R1", _set("id", " "))
"""A blank id: the error cannot name the entry, only the field ``id`` (R2)."""


def _empty_lists(entry: Wire) -> None:
    entry["tokensBefore"] = 0
    entry["summary"] = {"goal": "  Keep   spacing  ", **{name: [] for name in SUMMARY_LISTS}}


UNUSUAL: tuple[Unusual, ...] = (
    Unusual(say("tokensBefore 1000000 (wrong, but finite)"), "R4", _set("tokensBefore", 1_000_000), in_lab_table=True),
    Unusual(
        say("changedFiles ['context.ts']"),
        "R1",
        lambda v: v["summary"].update(changedFiles=["context.ts"]),
        in_lab_table=True,
    ),
    Unusual(
        say("tokensBefore 17.25 and timestamp 100.5"), "R1/R4", lambda v: v.update(tokensBefore=17.25, timestamp=100.5)
    ),
    Unusual(say("tokensBefore 0, every summary list empty and a goal with inner spaces"), "R1/R4", _empty_lists),
    Unusual(say("timestamp 1700000000.25"), "R1", _set("timestamp", 1_700_000_000.25)),
)
"""Valid records that look wrong: R4 records tokensBefore as given, numbers need not be integers, lists may be empty."""
