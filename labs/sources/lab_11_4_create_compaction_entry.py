# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open labs/lab_11_4_create_compaction_entry.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - create_compaction_entry
#     lab: '11.4'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="lab11-4-01"
# # Lab 11.4 · `create_compaction_entry`: the summary becomes one more fact
#
# `build_context` only reads: it never writes a summary on its own. When the caller has a structured summary of the older turns, it asks for a **compaction entry** and then appends it like any other entry. The entry records where a resumed context starts keeping original messages: `firstKeptEntryId`.
#
# **You write:** `create_compaction_entry(active_path, *, id, timestamp, summary, first_kept_entry_id, tokens_before)`.
#
# | rule | what it asks |
# |---|---|
# | R24 | pure: returns a new entry, never changes the path, never writes a store |
# | R25 | `parentId` is the id of the path's last entry (the caller does not pass one); an empty path is an error |
# | R26 | the new id must not already be on the path |
# | R27 | `firstKeptEntryId` must be the first entry of one of the path's interaction groups; anything else is rejected with an error naming it |
# | R28 | the result goes through the same strict parser and shares nothing with the inputs |
#
# The last cell runs checks 10–11 of the chapter's fifteen against your code.

# %% id="lab11-4-02"
from typing import Any

import pandas as pd
from IPython.display import display

from course_lib import CompactionEntry, CompactionError, InMemorySessionStore, PathBuilder, checklist, fixtures, group_interactions, parse_session_entry, to_json_dict
from course_lib.teaching import i18n, lab_helpers

pd.set_option("display.max_colwidth", None)
tr = i18n.notebook_messages("lab_11_4_create_compaction_entry")  # this lab's sentences in your language

# %% [markdown] id="lab11-4-03"
# ## 1 · The example: `compact-1`
#
# The opening path, and the summary the caller prepared after the 31-token budget dropped group 1:

# %% id="lab11-4-04"
opening = fixtures.opening_path()
summary = to_json_dict(fixtures.compact_1_summary())
display(lab_helpers.path_table(opening))
lab_helpers.fields_table(summary)

# %% [markdown] id="lab11-4-05"
# The chapter's call:
#
# ```python
# compact_1 = create_compaction_entry(opening, id="compact-1", timestamp=100, summary=summary,
#                                     first_kept_entry_id="u2", tokens_before=29)
# ```
#
# ### Predict
#
# What is `compact_1.parent_id`? And which of the ten ids could be a `firstKeptEntryId`?
#
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# ### By hand
#
# The parent is the path's last entry, `a3`. The caller does not pass it, so there is only one answer: the entry can never be appended after `a3` while claiming another parent (R25).
#
# `firstKeptEntryId` is where a resumed context starts sending original messages. Starting inside a group would send a tool result without its call, so only the first entry of a group qualifies: `u1`, `u2` or `u3` (R27).
#
# </details>

# %% id="9bb34e2e"
my_prediction = {"parent_id": None, "group starts": None}  # e.g. "u1" and ["u1", "a1"]

# %% id="lab11-4-06"
opens, inside = tr("opens group {number}"), tr("inside group {number}")
hand_first_kept = {  # accepted?, and why
    "sys": (False, tr("a system message is in no group")),
    "u1": (True, opens.format(number=1)),
    "a1": (False, inside.format(number=1)),
    "u2": (True, opens.format(number=2)),
    "a2": (False, inside.format(number=2)),
    "u3": (True, opens.format(number=3)),
    "calls": (False, inside.format(number=3)),
    "r-test": (False, inside.format(number=3)),
    "r-read": (False, inside.format(number=3)),
    "a3": (False, inside.format(number=3)),
    "nope": (False, tr("not on the path")),
}


# %% [markdown] id="lab11-4-07"
# ## 2 · Exercise
#
# **Your task:** `create_compaction_entry(active_path, *, id, timestamp, summary, first_kept_entry_id, tokens_before)`.
#
# - `active_path`: a list of session entries, root first (messages, metadata, maybe compactions);
#   `id`: a string; `timestamp`: a number; `summary`: a `CompactionSummary` or its wire `dict`;
#   `first_kept_entry_id`: a string; `tokens_before`: a number.
# - Return a new `CompactionEntry` whose `parent_id` is the id of the path's last entry (R25),
#   built through the strict parser so it shares nothing with the arguments (R28). Change nothing:
#   neither the path nor any store (R24).
# - Raise `CompactionError(message, entry_id=...)` (a `ValueError`; `entry_id` is keyword-only)
#   naming the offending id in the message and in `entry_id`, checking in this order: an empty path
#   (R25; there is no id to name, so `CompactionError(message)`), an `id` already on the path (R26,
#   `entry_id=id`), a `first_kept_entry_id` that does not open one of the path's interaction groups
#   (R27, `entry_id=first_kept_entry_id`), whether it is inside a group, a system message, a
#   metadata entry or not on the path at all.
# - Any other bad argument (a blank `id`, a `summary` missing a field, a `timestamp` or
#   `tokens_before` that is not a finite number, `tokens_before` < 0) is the parser's to refuse: it
#   raises its `SessionEntryError` (also a `ValueError`); let it through.
#
# The course helpers and types, all imported by the setup cell:
#
# | name | signature | note |
# |---|---|---|
# | `group_interactions` | `(message_entries) -> list[InteractionGroup]` | takes the path's **message** entries (`type == "message"`); `group.entries[0]` opens a group |
# | `parse_session_entry` | `(value) -> SessionEntry` | the strict parser (Lab 11.1): a wire `dict` with camelCase keys in, a new `CompactionEntry` out |
# | `to_json_dict` | `(value) -> Any` | a `CompactionSummary` (or any model) as its wire `dict`; a `dict` comes back as a copy |
# | `CompactionError` | `(message, *, entry_id=None)` | the error for R25–R27 |
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Which entries can a resumed context start from without sending half of a tool round trip?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Check the empty path and the id first; then compute the group starts with `group_interactions` over the path's message entries; then build the wire form and let the parser check the rest.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# The group starts are a set: the id of the first entry of each group that `group_interactions` makes of the path's **message** entries. The new entry is built as wire data (camelCase keys: `type`, `id`, `parentId` = the last entry's id, `timestamp`, `summary` as wire data, `firstKeptEntryId`, `tokensBefore`) and handed to `parse_session_entry`, which checks every field for you.
#
# </details>

# %% id="lab11-4-08" tags=["exercise"]
def create_compaction_entry(
    active_path, *, id: str, timestamp: int | float, summary: Any, first_kept_entry_id: str, tokens_before: int | float
) -> CompactionEntry:
    """A new compaction entry for the end of the path; the path and any store are left alone (R24)."""
    ### BEGIN SOLUTION
    path = list(active_path)
    if not path:
        raise CompactionError("cannot compact an empty path: a compaction entry needs a parent (R25)")
    if any(entry.id == id for entry in path):
        raise CompactionError(f"entry id {id!r} is already on the path (R26)", entry_id=id)

    # R27: a resumed context must start at a whole interaction, so only a group's first entry qualifies
    message_entries = [entry for entry in path if entry.type == "message"]
    group_starts = {group.entries[0].id for group in group_interactions(message_entries)}
    if first_kept_entry_id not in group_starts:
        entry = next((e for e in path if e.id == first_kept_entry_id), None)
        if entry is None:
            what = "not on the path"
        else:
            kind = f"{entry.message.role} message" if entry.type == "message" else f"{entry.type} entry"
            what = ("an " if kind[0] in "aeiou" else "a ") + kind
        raise CompactionError(
            f"firstKeptEntryId {first_kept_entry_id!r} is {what}, "
            "not the first user message of an interaction group (R27)",
            entry_id=first_kept_entry_id,
        )

    # R25: the parent is the path's last entry. R28: the strict parser checks and copies everything.
    return parse_session_entry({
        "type": "compaction",
        "id": id,
        "parentId": path[-1].id,
        "timestamp": timestamp,
        "summary": to_json_dict(summary),
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    })
    ### END SOLUTION


# %% [markdown] id="lab11-4-09"
# ## 3 · Run: `compact-1`

# %% id="lab11-4-10"
with lab_helpers.until_implemented():
    before = to_json_dict(opening)
    compact_1 = create_compaction_entry(opening, id="compact-1", timestamp=100, summary=summary,
                                        first_kept_entry_id="u2", tokens_before=29)
    display(lab_helpers.fields_table(compact_1))
    lab_helpers.compare(compact_1.parent_id, "a3", "parent_id")
    lab_helpers.compare(compact_1, fixtures.compact_1_wire(), tr("every field"), brief=tr("the chapter's compact-1"))
    lab_helpers.compare(len(opening), 10, tr("entries on the path afterwards (nothing appended)"))
    lab_helpers.compare(to_json_dict(opening) == before, True, tr("the path is unchanged"))

    callers_summary = to_json_dict(fixtures.compact_1_summary())
    entry = create_compaction_entry(opening, id="compact-1", timestamp=100, summary=callers_summary,
                                    first_kept_entry_id="u2", tokens_before=29)
    callers_summary["next"].append("changed by the caller later")  # the caller keeps editing its dict
    lab_helpers.compare(entry.summary.next, ["Add a regression test."], tr("the entry's summary.next after the caller's edit"))


# %% [markdown] id="6534ea62"
# ### Your prediction
#
# Your two predictions against the worked answer above (🎯 right, 🤔 not what it says), and,
# separately, your `create_compaction_entry` against the same answer (✅ agrees, ❌ your code is off,
# not your prediction: the checklist at the end names the rule). "Group starts" are the ids your
# function accepts as `first_kept_entry_id`.

# %% id="cfab53fa"
def your_entry():
    def create(first_kept):
        return create_compaction_entry(opening, id="compact-1", timestamp=100, summary=summary,
                                       first_kept_entry_id=first_kept, tokens_before=29)

    accepted = [entry.id for entry in opening if lab_helpers.attempt(lambda i=entry.id: create(i)).accepted]
    return {"parent_id": create("u2").parent_id, "group starts": accepted}


lab_helpers.prediction_table(
    my_prediction,
    worked={"parent_id": "a3", "group starts": [i for i, (accepted, _) in hand_first_kept.items() if accepted]},
    yours=your_entry,
    function="create_compaction_entry",
)


# %% [markdown] id="lab11-4-11"
# ## 4 · Run: which entries may be kept first?

# %% id="lab11-4-12"
def try_first_kept(entry_id: str) -> lab_helpers.Attempt:
    return lab_helpers.attempt(lambda: create_compaction_entry(
        opening, id="compact-1", timestamp=100, summary=summary, first_kept_entry_id=entry_id, tokens_before=29))


def as_worked(entry_id: str, accepted: bool, tried: lab_helpers.Attempt) -> bool:
    if accepted:  # R27: accepted, and kept from that very entry
        return tried.accepted and tried.value.first_kept_entry_id == entry_id
    return tried.rejected and tried.names(entry_id)  # a ValueError naming the id


with lab_helpers.until_implemented():
    rows = {}
    for entry_id, (accepted, why) in hand_first_kept.items():
        tried = try_first_kept(entry_id)
        answer = (tr("accepted: {why}") if accepted else tr("rejected: {why}")).format(why=why)
        rows[entry_id] = answer, tried.shown, as_worked(entry_id, accepted, tried)
    display(lab_helpers.verdict_table(rows, function="create_compaction_entry", index="firstKeptEntryId"))

# %% [markdown] id="lab11-4-13"
# Two more rejections: there is nothing to compact on an empty path (no parent), and `a3` is already taken as an id. ✅ means a `ValueError` (your `CompactionError`), naming `a3` for the second.

# %% id="lab11-4-14"
with lab_helpers.until_implemented():
    for what, call, names in (
        (tr("an empty path"), lambda: create_compaction_entry(
            [], id="compact-1", timestamp=100, summary=summary, first_kept_entry_id="u2", tokens_before=29), ()),
        (tr("id 'a3' (already on the path)"), lambda: create_compaction_entry(
            opening, id="a3", timestamp=100, summary=summary, first_kept_entry_id="u2", tokens_before=29), ("a3",)),
    ):
        tried = lab_helpers.attempt(call)
        ok = tried.rejected and tried.names(*names)
        print(tr("{mark} {what}: {outcome}").format(mark="✅" if ok else "❌", what=what, outcome=tried.shown))

# %% [markdown] id="lab11-4-15"
# ## 5 · The caller appends it
#
# The function never touched a store. The caller can show the summary, log it or ask for confirmation, and only then append. After that, the conversation simply continues after `compact-1`. Nothing was deleted: all ten original entries are still on the path, and the arrow marks where a resumed context starts (Lab 11.5).

# %% id="lab11-4-16"
with lab_helpers.until_implemented():
    store = InMemorySessionStore()
    for entry in opening:
        store.append(entry)
    compact_1 = create_compaction_entry(store.path_to("a3"), id="compact-1", timestamp=100, summary=summary,
                                        first_kept_entry_id="u2", tokens_before=29)
    print(tr("entries in the store before the caller appends: {count}").format(count=len(store)))
    store.append(compact_1)  # the write is the caller's decision
    for entry in PathBuilder(store.path_to("compact-1")).user("u4", "Add a regression test.").assistant(
            "a4", "Added the regression test.").entries[-2:]:
        store.append(entry)
    print(lab_helpers.session_chain(store.path_to("a4")))

# %% [markdown] id="lab11-4-17"
# ## 6 · Checklist
#
# Checks 10–11 against your `create_compaction_entry`.

# %% id="lab11-4-18" tags=["checklist"]
checklist.run(lab="11.4", create_compaction_entry=create_compaction_entry)
