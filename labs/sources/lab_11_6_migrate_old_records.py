# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open labs/lab_11_6_migrate_old_records.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - migrate_entry
#     lab: '11.6'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="lab11-6-01"
# # Lab 11.6 (optional) · Old records: migrate them at the boundary, never inside the parser
#
# The parser of Lab 11.1 knows one shape: today's seven-field summary and `firstKeptEntryId` (R1). Sessions written before that shape settled hold compactions in a **draft shape**: the summary says `invariants`, `files` and `nextSteps`, leaves out `decisions` and `unresolved` when they are empty, and the entry lists the ids it summarized, `compactedEntryIds`, instead of naming the first kept entry. Fed to the parser as they are, they stop at their own id, `compact-1`: never later, as a strange budget.
#
# This lab moves such a record into today's shape **before** the parser sees it, in one function outside the parser. The parser, the stores and `build_context` stay exactly as they are.
#
# **You write:** `migrate_entry(active_path, raw) -> dict`.
#
# | rule | what it asks |
# |---|---|
# | M1 | migrate at the boundary: a new dict in today's shape (`invariants` → `constraints`, `files` → `changedFiles`, `nextSteps` → `next`, today's field order); the raw record never changes |
# | M2 | `compactedEntryIds` → `firstKeptEntryId`: the first entry of the first group left unsummarized, on the path; refused when it does not open a group (R18, R27), an id is not on the path, a summarized entry comes after the kept ones, or nothing is kept |
# | M3 | a missing list becomes `[]` only where the draft allowed it (`decisions`, `unresolved`); anything else it cannot map is an error naming the entry id and the field |
# | M4 | today's records and every other entry come back as equal copies; a migrated record reopens through both stores (R9) and projects exactly like a native one |
#
# The lab is optional: its checks, 20–23, come after the capstone's. The chapter's fifteen stay fifteen.

# %% id="lab11-6-02"
import copy
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from IPython.display import display
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

import course_lib
from course_lib import (
    InMemorySessionStore, JsonlSessionStore, build_context, checklist, fixtures, group_interactions, to_json_dict,
)
from course_lib.migration import DraftRecordError
from course_lib.teaching import i18n, lab_helpers
from course_lib.teaching.catalogues import drafts

pd.set_option("display.max_colwidth", None)
tr = i18n.notebook_messages("lab_11_6_migrate_old_records")  # this lab's sentences in your language

# %% [markdown] id="lab11-6-03"
# ## 1 · An old record: `compact-1` as the draft wrote it
#
# The chapter's `compact-1` sits at the end of the opening path (`sys` to `a3`) and keeps from `u2`. The draft shape wrote the same fact like this: one row per field path.

# %% id="lab11-6-04"
path = fixtures.opening_path()  # sys, u1, a1, u2, a2, u3, calls, r-test, r-read, a3
native = fixtures.compact_1_wire()  # today's shape
old = drafts.draft_of(native, ["u1", "a1"])  # the draft shape: it summarized u1 and a1
lab_helpers.fields_table(old)

# %% [markdown] id="lab11-6-05"
# Three summary lists carry old names, `unresolved` is missing (it was empty, and the draft left empty `decisions` and `unresolved` out), and instead of `firstKeptEntryId` the entry lists what it summarized. Handed to the parser as it is, the record is refused at its own id and the first field the parser does not know; a store, which takes every entry through the parser, refuses it the same way:

# %% id="lab11-6-06"
print(tr("the parser: {outcome}").format(outcome=lab_helpers.outcome(lambda: course_lib.parse_session_entry(old))))
store = InMemorySessionStore()
for entry in path:
    store.append(entry)
print(tr("a store's append: {outcome}").format(outcome=lab_helpers.outcome(lambda: store.append(old))))

# %% [markdown] id="lab11-6-07"
# ## 2 · Two tempting shortcuts, and the check each one fails
#
# Why not teach the parser the old names? Because the parser is the one door every store, `create_compaction_entry` and `build_context` read through: whatever it tolerates, every later reader must tolerate too, and a typo of today's shape then passes as an "old" record. Lab 11.1's check 2 pins that the parser refuses the legacy aliases (R1). Here are the two shortcuts, each run against Lab 11.1's checks.
#
# **Shortcut 1: aliases in the parser.** Rename the old keys inside the parser, then parse:

# %% id="lab11-6-08"
ALIASES = {"invariants": "constraints", "files": "changedFiles", "nextSteps": "next"}


def parse_with_aliases(value):
    """The parser taught the old names: it renames them, then parses (not what this lab asks for)."""
    if isinstance(value, Mapping) and isinstance(value.get("summary"), Mapping):
        summary = {ALIASES.get(key, key): item for key, item in value["summary"].items()}
        value = {**value, "summary": summary}
    return course_lib.parse_session_entry(value)


def each_check(report):
    """A checklist run, one line per check: its number, name, status and what broke."""
    for record in report.records:
        why = f" — {record.message}" if record.message else ""
        print(tr("check {number} · {name}: {status}{why}").format(number=record.number, name=record.name, status=record.status, why=why))


each_check(checklist.run(lab="11.1", parse_session_entry=parse_with_aliases))

# %% [markdown] id="lab11-6-09"
# **Shortcut 2: a tolerant model.** Let the model ignore keys it does not know and give every list a default. The draft now "parses", but its `files`, `nextSteps` and `invariants` are silently dropped: the resumed context would tell the model there is nothing left to do.

# %% id="lab11-6-10"
class TolerantSummary(BaseModel):
    """Unknown keys ignored, every list optional (not what this lab asks for)."""

    model_config = ConfigDict(extra="ignore", frozen=True, alias_generator=to_camel, validate_by_name=True)
    goal: str
    constraints: tuple[str, ...] = ()
    completed: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    changed_files: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()
    next: tuple[str, ...] = ()


class TolerantEntry(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, alias_generator=to_camel, validate_by_name=True)
    type: str = "compaction"
    id: str
    parent_id: str | None = None
    timestamp: float | int
    summary: TolerantSummary
    first_kept_entry_id: str | None = None
    tokens_before: float | int = 0


def tolerant_parse(value):
    if isinstance(value, BaseModel):
        value = to_json_dict(value)
    if isinstance(value, Mapping) and value.get("type") == "compaction":
        return TolerantEntry.model_validate(value)
    return course_lib.parse_session_entry(value)


tolerated = tolerant_parse(old)
print(tr("next: {next} · constraints: {constraints} · firstKeptEntryId: {first}").format(
    next=list(tolerated.summary.next), constraints=list(tolerated.summary.constraints), first=tolerated.first_kept_entry_id))
each_check(checklist.run(lab="11.1", parse_session_entry=tolerant_parse))

# %% [markdown] id="lab11-6-11"
# Both shortcuts fail check 2 (R1). The tolerant model fails checks 1 and 3 as well: what it hands back is a class of its own, not the course's entry, so the checks cannot read it as one. Migrating **at the boundary** keeps one place that knows history's old shapes: the parser, the stores and `build_context` stay single-shaped, the migration can refuse what it cannot map with a clear error, and the original record is left as it was, so an audit can still show its bytes.
#
# ### Predict
#
# A draft's `compactedEntryIds` lists what it summarized; today's record names the first entry it **kept**, which must open an interaction group (R18, R27). On the opening path, the groups are `[u1, a1]`, `[u2, a2]` and `[u3, calls, r-test, r-read, a3]`; `sys` is in no group. For each list below, what is `firstKeptEntryId`, or is the draft refused? Write an entry id, or `"refused"`.

# %% id="lab11-6-12"
my_prediction = {"u1, a1": None, "u1": None, "u2, a2": None}  # write an entry id, or "refused"


# %% id="lab11-6-13"
compacted_cases = {", ".join(case.ids): case for case in drafts.OPENING_COMPACTED}
# the answers appear once your three predictions above are written: predict first, then look
lab_helpers.after_predicting(
    my_prediction, {what: case.first_kept or "refused" for what, case in compacted_cases.items()}, index="compactedEntryIds"
)

# %% [markdown] id="lab11-6-14"
# <details><summary>Check your prediction: why these answers</summary>
#
# `u1, a1` summarizes the first group, so the first kept entry is `u2`, the start of the second. `u1` alone would keep from `a1`, an assistant message in the middle of a group: no `firstKeptEntryId` can say that, so the draft is refused rather than migrated into something it never meant. `u2, a2` summarizes the second group but keeps the first: the kept part would not be one contiguous run of groups, so it is refused too. A system message such as `sys` may be listed or not: it is in no group, and the system prompt is replayed from the whole path anyway (R16).
#
# </details>
#
# ## 3 · Exercise: `migrate_entry`
#
# **Your task:** `migrate_entry(active_path, raw) -> dict`.
#
# - `active_path` is the list of parsed entries the record continues (root → its parent), as a store's `entries()` returns them; `raw` is one record as read from an old file (plain JSON data).
# - A **draft compaction** is a record with `"type": "compaction"` and a `compactedEntryIds` key. Any other record (today's compactions, messages, metadata) comes back as an equal copy, a new dict, for the parser to judge (M4).
# - For a draft compaction, return a **new** dict in today's shape, sharing nothing with `raw` and never changing it (M1). Its keys, in this order: `type`, `id`, `parentId`, `timestamp` (copied from `raw` when present), `summary`, `firstKeptEntryId`, `tokensBefore` (copied when present). Its `summary` has today's seven fields in today's order, each taken from the draft's name: `drafts.DRAFT_NAMES` maps each of today's names to the draft's (`"changedFiles": "files"`, …).
# - A missing summary list becomes `[]` only when it is one the draft left out when empty, `drafts.LEFT_OUT_WHEN_EMPTY` (`decisions`, `unresolved`). Any other missing one is an error (M3).
# - Refuse, with a `ValueError` whose message names the entry id and the field (`draft compaction compact-1.summary.files is required`): an entry key that is not one of the draft's (`drafts.DRAFT_ENTRY`; `firstKeptEntryId` beside `compactedEntryIds` included), a summary that is not an object, a summary key that is not a draft name (today's `changedFiles` included), and a missing required list (M3). `DraftRecordError` (imported) is a `ValueError` you may raise.
# - `firstKeptEntryId` (M2): take the path's message entries that are not system messages, in path order (these are exactly the entries of the path's groups, `group_interactions`). If the path holds a compaction, start from the **latest** one's `first_kept_entry_id` (R18): what it summarized need not be listed again. The first of those entries whose id is **not** in `compactedEntryIds` is the first kept entry. Refuse, naming the entry id, `compactedEntryIds` and the entry at fault, when `compactedEntryIds` is not a non-empty list of strings, names an id that is not on the path (name it), leaves nothing kept, keeps first an entry that does not open a group (not a group's first entry: name it), or lists an entry of a group that comes after the first kept one (name that entry). A system message or metadata entry it lists is in no group: it changes nothing.
#
# Values you copy (a timestamp, a list) are not checked here: the parser checks them next.
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Split the work: the summary, which is a renaming with a short list of allowed gaps; and the first kept entry, which needs the path's groups. Which inputs are not drafts at all and can leave at once?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Check the entry's keys and the summary's keys first, so nothing unknown is dropped. Build the summary by walking `drafts.DRAFT_NAMES` in order. For the first kept entry, list the grouped ids in path order (cut at the latest compaction's first kept entry), find the first one not summarized, then check that it opens a group and that nothing after it is summarized.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# `copy.deepcopy` every value you take from `raw`. A group start is the first entry of a group that `group_interactions` returns for the path's message entries that are not system messages (an entry's `type` is `"message"` and its `message.role` is not `"system"`). One helper `fail(field, problem)` that raises a `DraftRecordError` whose message starts with `draft compaction`, the entry's id, a dot and the field (`draft compaction compact-1.files …`) keeps every error naming both.
#
# </details>

# %% id="lab11-6-15" tags=["exercise"]
def migrate_entry(active_path, raw):
    """``raw`` in today's wire shape, as a new dict; a draft compaction migrated (M1–M4)."""
    ### BEGIN SOLUTION
    if not isinstance(raw, Mapping) or raw.get("type") != "compaction" or "compactedEntryIds" not in raw:
        return copy.deepcopy(dict(raw))  # M4: today's shape or another entry, for the parser to judge
    entry_id = raw.get("id")

    def fail(field, problem):
        return DraftRecordError(f"draft compaction {entry_id}.{field} {problem}")

    for key in raw:
        if key not in drafts.DRAFT_ENTRY:
            raise fail(key, "is not a field of the draft shape")  # M3: nothing dropped silently
    summary = raw.get("summary")
    if not isinstance(summary, Mapping):
        raise fail("summary", "must be an object")
    for key in summary:
        if key not in drafts.DRAFT_NAMES.values():
            raise fail(f"summary.{key}", "is not a field of the draft shape")
    migrated = {}
    for new, old_name in drafts.DRAFT_NAMES.items():  # M1: today's names, in today's order
        if old_name in summary:
            migrated[new] = copy.deepcopy(summary[old_name])
        elif new in drafts.LEFT_OUT_WHEN_EMPTY:
            migrated[new] = []  # M3: the draft left this list out when it was empty
        else:
            raise fail(f"summary.{old_name}", "is required: the draft always wrote it")

    compacted = raw["compactedEntryIds"]
    if not isinstance(compacted, list) or not compacted or not all(isinstance(i, str) for i in compacted):
        raise fail("compactedEntryIds", "must be a non-empty list of entry ids")
    on_path = [entry.id for entry in active_path]
    for summarized in compacted:
        if summarized not in on_path:
            raise fail("compactedEntryIds", f"names {summarized}, which is not on the path")
    messages = [e for e in active_path if e.type == "message" and e.message.role != "system"]
    starts = {group.entries[0].id for group in group_interactions(messages)}
    grouped = [entry.id for entry in messages]
    earlier = [entry.first_kept_entry_id for entry in active_path if entry.type == "compaction"]
    if earlier and earlier[-1] in grouped:
        grouped = grouped[grouped.index(earlier[-1]):]  # R18: only the latest compaction counts
    kept = [entry_id_ for entry_id_ in grouped if entry_id_ not in compacted]
    if not kept:
        raise fail("compactedEntryIds", "summarizes every message on the path: nothing is kept")
    first = kept[0]
    if first not in starts:
        raise fail("compactedEntryIds", f"leaves {first} first, which does not open a group (R27)")
    after = grouped[grouped.index(first):]
    late = [entry_id_ for entry_id_ in after if entry_id_ in compacted]
    if late:
        raise fail("compactedEntryIds", f"summarizes {late[0]}, after the first kept entry {first}")

    record = {key: copy.deepcopy(raw[key]) for key in ("type", "id", "parentId", "timestamp") if key in raw}
    record["summary"] = migrated
    record["firstKeptEntryId"] = first
    if "tokensBefore" in raw:
        record["tokensBefore"] = copy.deepcopy(raw["tokensBefore"])
    return record
    ### END SOLUTION


# %% [markdown] id="lab11-6-16"
# ### Run: every list of the catalogue
#
# Your `migrate_entry` on `compact-1`'s draft with each `compactedEntryIds` the course tries on the opening path. ✅ means it gives the hand-worked first kept entry, or refuses with a `ValueError` naming `compact-1`, `compactedEntryIds` and the entry at fault.

# %% id="lab11-6-17"
def judged(case):
    """Your migration of one draft: what it did (one line), and whether that is the hand-worked answer."""
    tried = lab_helpers.attempt(lambda: migrate_entry(path, drafts.draft_of(native, list(case.ids))))
    if case.first_kept is not None:
        if tried.accepted:
            got = tried.value.get("firstKeptEntryId") if isinstance(tried.value, Mapping) else tried.value
            return f"firstKeptEntryId {got}", got == case.first_kept
        return tried.shown, False
    return tried.shown, tried.rejected and tried.names("compact-1", "compactedEntryIds", case.named)


with lab_helpers.until_implemented():
    rows = {}
    for what, case in compacted_cases.items():
        got, ok = judged(case)
        rows[what] = case.first_kept or tr("refused, naming {entry}").format(entry=case.named), got, ok
    display(lab_helpers.verdict_table(rows, function="migrate_entry", index="compactedEntryIds"))

# %% [markdown] id="lab11-6-18"
# ### Your prediction
#
# Your three predictions against the worked answer (🎯 right, 🤔 not what it says), and, separately, your `migrate_entry` against the same answer (✅ agrees, ❌ your code is off, not your prediction: the checklist at the end names the rule).

# %% id="lab11-6-19"
lab_helpers.prediction_table(
    my_prediction,
    worked={what: compacted_cases[what].first_kept or "refused" for what in my_prediction},
    yours=lambda: {what: judged(compacted_cases[what])[0].removeprefix("firstKeptEntryId ") if compacted_cases[what].first_kept
                   else ("refused" if judged(compacted_cases[what])[1] else judged(compacted_cases[what])[0]) for what in my_prediction},
    function="migrate_entry",
)

# %% [markdown] id="lab11-6-20"
# ## 4 · The migrated session is a native one (M4)
#
# **Predict:** an old session file holds the opening path, `compact-1` in the draft shape, then `u4` and `a4`. Each record is migrated on the path so far, then appended to an in-memory store and a JSONL file. Does the reopened file equal the session written natively, and does `build_context` at 31 tokens project it the same way?

# %% id="lab11-6-21"
native_session = [to_json_dict(entry) for entry in fixtures.resumed_path()]
at = [entry["id"] for entry in native_session].index("compact-1")
old_session = [*native_session[:at], old, *native_session[at + 1:]]


def projected(entries):
    result = build_context(entries, max_tokens=31, reserved_output=4, safety_margin=2,
                           estimate_tokens=fixtures.teaching_estimator)
    return to_json_dict(list(result.messages)), list(result.kept_entry_ids), result.reason


with lab_helpers.until_implemented(), tempfile.TemporaryDirectory() as folder:
    memory = InMemorySessionStore()
    file = Path(folder) / "session.jsonl"
    with JsonlSessionStore.open(file) as jsonl:
        for record in old_session:
            record = migrate_entry(memory.entries(), record)
            memory.append(record)
            jsonl.append(record)
    reopened = JsonlSessionStore.open(file).entries()
    lab_helpers.compare(to_json_dict(memory.entries()) == native_session, True, tr("in-memory entries equal to the native session"))
    lab_helpers.compare(to_json_dict(reopened) == native_session, True, tr("reopened entries equal to the native session"))
    lab_helpers.compare(projected(reopened) == projected(fixtures.resumed_path()), True, tr("the same projection at 31 tokens"))
    lab_helpers.compare(old_session[at] == old, True, tr("the old record unchanged, for an audit"))
    display(lab_helpers.messages_table(build_context(reopened, max_tokens=31, reserved_output=4, safety_margin=2,
                                                     estimate_tokens=fixtures.teaching_estimator)))

# %% [markdown] id="lab11-6-22"
# ## 5 · Checklist
#
# Checks 20–23, Lab 11.6's own, against your `migrate_entry`. Each failing row says which rule broke and what was expected. They are not among the chapter's fifteen: `checklist.run()` without a lab leaves them out.

# %% id="lab11-6-23" tags=["checklist"]
checklist.run(lab="11.6", migrate_entry=migrate_entry)
