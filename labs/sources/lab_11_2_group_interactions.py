# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open labs/lab_11_2_group_interactions.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - group_interactions
#     lab: '11.2'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="lab11-2-01"
# # Lab 11.2 · Interaction groups: the unit a budget keeps or drops
#
# A budget must sometimes leave old messages out of the model's input. It may not cut just anywhere: a tool call sent without its result, or a result without its call, is a broken conversation. So messages are first split into **interaction groups**, one per user message, and a budget only ever keeps or drops whole groups.
#
# **You write:** `group_interactions(message_entries)` and its helper `check_tool_facts(group)`.
#
# | rule | what it asks |
# |---|---|
# | R11 | system messages are skipped; each user message closes the current group and opens a new one; anything else before the first user message is an error naming that entry |
# | R12 | tool facts are checked by id only: each call declared once, each result names a call in the same group, at most one result per call, every call answered when the group ends; errors name the call id and the entry ids |
# | R13 | groups keep path order and are copies |
# | R14 | a system message never splits or joins a group |
#
# The last cell runs checks 4–6 of the chapter's fifteen against your code.

# %% id="lab11-2-02"
import copy
from collections.abc import Iterable

import pandas as pd
from IPython.display import display

from course_lib import AssistantMessage, InteractionError, InteractionGroup, MessageEntry, SystemMessage, ToolCall, ToolResultMessage, UserMessage, checklist, fixtures, tool_facts
from course_lib.teaching import i18n, lab_helpers

pd.set_option("display.max_colwidth", None)
tr = i18n.notebook_messages("lab_11_2_group_interactions")  # this lab's sentences in your language

# %% [markdown] id="lab11-2-03"
# ## 1 · The example: ten entries
#
# The chapter's opening path: one system message, then nine conversation messages. The `cost` column is what the course's teaching estimator charges (one token per word, one per tool call); Lab 11.3 spends it.

# %% id="lab11-2-04"
opening = fixtures.opening_path()
lab_helpers.path_table(opening, fixtures.teaching_estimator)

# %% [markdown] id="lab11-2-05"
# `calls` declares `read-1`, then `test-1`. The test finishes first, so `r-test` comes before `r-read` on the path. Each result still finds its call through its `toolCallId` (shown in brackets).
#
# ### Predict
#
# How many groups are there? Where do `sys`, `r-test` and `r-read` go?
#
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# ### By hand
#
# | entry | what happens |
# |---|---|
# | `sys` | a system message is prompt state, not conversation: skip it (R14) |
# | `u1` | a user message: open group 1 |
# | `a1` | join group 1 |
# | `u2` | a user message: close group 1 (it has no tool calls to check), open group 2 |
# | `a2` | join group 2 |
# | `u3` | close group 2, open group 3 |
# | `calls` | join group 3; it declares `read-1` and `test-1` |
# | `r-test` | join group 3; it answers `test-1` |
# | `r-read` | join group 3; it answers `read-1` |
# | `a3` | join group 3 |
# | end | close group 3: `read-1` and `test-1` were each declared once and answered once |
#
# </details>

# %% id="33823862"
my_prediction = {"number of groups": None, "group of r-read": None}  # e.g. 2 and "u1" (the id opening its group)

# %% id="lab11-2-06"
hand_worked = [["u1", "a1"], ["u2", "a2"], ["u3", "calls", "r-test", "r-read", "a3"]]


# %% [markdown] id="lab11-2-07"
# A budget can therefore cut only between `a1`/`u2` or `a2`/`u3`. A cut between `calls`/`r-test`, `r-test`/`r-read` or `r-read`/`a3` would lose part of a tool round trip.
#
# ## 2 · Exercise
#
# **Your task:** two functions.
#
# - `check_tool_facts(group: list[MessageEntry]) -> None`: `group` is a list of the message entries
#   of one interaction. Return nothing when its tool facts pair up; raise `InteractionError` (a
#   `ValueError`) otherwise (R12). When a group breaks several rules, report the first of: a call
#   declared twice or a call with two results (whichever comes first on the path), then a result for
#   a call the group never declared, then a call without a result. Each message names the call id
#   and the entry id(s); pass them too: `InteractionError(message, entry_ids=(...), call_id=...)`
#   (both keywords optional; `entry_ids` a tuple of entry ids, `call_id` a string). The course's
#   own wording is ready for you in `tool_facts`: each helper in the second table below builds the
#   `InteractionError` with its ids, for you to `raise`.
# - `group_interactions(message_entries: Iterable[MessageEntry]) -> list[InteractionGroup]`:
#   `message_entries` is **any iterable** of `MessageEntry` (a list, or a generator as the start page
#   passes: read it only once). Return a `list` of `InteractionGroup(entries=...)`, each holding a
#   tuple of **copies** (`copy.deepcopy`), in path order (R13); no entries at all give `[]`. System
#   messages belong to no group and never split or join one (R14); a non-system message before the
#   first user message is an `InteractionError(message, entry_ids=(that id,))` naming it (R11).
#   Every group, the last one included, goes through `check_tool_facts` before it is returned.
#
# The course types, all imported by the setup cell:
#
# | type | what you use |
# |---|---|
# | `MessageEntry` | `.id`, `.message` (one of the four message classes below) |
# | `SystemMessage`, `UserMessage` | `isinstance(entry.message, UserMessage)` opens a group |
# | `AssistantMessage` | `.content`: text blocks and `ToolCall` blocks |
# | `ToolCall` | a block of an assistant message: `.id` (the call id), `.name`, `.arguments` |
# | `ToolResultMessage` | `.tool_call_id`: the call it answers |
# | `InteractionGroup(entries=...)` | one interaction: `.entries`, a tuple of `MessageEntry` |
# | `InteractionError(message, entry_ids=(...), call_id=...)` | the error (a `ValueError`) for R11 and R12 |
#
# The errors, ready-worded in `tool_facts` (imported too); each returns the `InteractionError`, e.g. `raise tool_facts.unanswered(call_id, call_entry, group_start)`:
#
# | helper | raise it when |
# |---|---|
# | `tool_facts.declared_twice(call_id, first_entry, second_entry)` | a call id is declared twice (R12) |
# | `tool_facts.answered_twice(call_id, first_result, second_result)` | a call has two results (R12) |
# | `tool_facts.unknown_call(result_id, call_id, group_start)` | a result answers a call its group never declared (R12) |
# | `tool_facts.unanswered(call_id, call_entry, group_start)` | a call has no result when its group ends (R12) |
# | `tool_facts.before_first_user(entry_id, role)` | a non-system message comes before the first user message (R11) |
#
# <details><summary>Hint 1 · a nudge</summary>
#
# What ends a group? And which piece of information ties a tool result to its call, if not its position?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Walk the entries once with a `current` list: skip system messages, let a user message close `current` and start a new one. To close a group, collect `call id → entry id` for calls and for results, then check the four relations of R12.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# The loop's shape: *system message* → skip; *user message* → close the open group, open a new one holding this entry; *anything else* → append it, or refuse it if no group is open yet. In `check_tool_facts`, two dicts from a call id to the entry id holding it (one for `ToolCall` blocks, one for results' `tool_call_id`), then compare their keys. Each closed group becomes an `InteractionGroup` of **copies** (`copy.deepcopy`), as a tuple.
#
# </details>

# %% id="lab11-2-08" tags=["exercise"]
def check_tool_facts(group: list[MessageEntry]) -> None:
    """Pair tool calls and results by id only; position and completion order do not matter (R12)."""
    ### BEGIN SOLUTION
    calls: dict[str, str] = {}  # call id -> the entry that declared it
    results: dict[str, str] = {}  # call id -> the entry that answered it
    for entry in group:
        message = entry.message
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if not isinstance(block, ToolCall):
                    continue
                if block.id in calls:
                    raise tool_facts.declared_twice(block.id, calls[block.id], entry.id)
                calls[block.id] = entry.id
        elif isinstance(message, ToolResultMessage):
            call_id = message.tool_call_id
            if call_id in results:
                raise tool_facts.answered_twice(call_id, results[call_id], entry.id)
            results[call_id] = entry.id

    start = group[0].id
    for call_id, result_id in results.items():
        if call_id not in calls:
            raise tool_facts.unknown_call(result_id, call_id, start)
    for call_id, call_entry in calls.items():
        if call_id not in results:
            raise tool_facts.unanswered(call_id, call_entry, start)
    ### END SOLUTION


def group_interactions(message_entries: Iterable[MessageEntry]) -> list[InteractionGroup]:
    """Split message entries into interaction groups, as independent copies (R11–R14)."""
    ### BEGIN SOLUTION
    groups: list[InteractionGroup] = []
    current: list[MessageEntry] = []

    def close(group: list[MessageEntry]) -> None:
        check_tool_facts(group)  # R12: a group is only complete when its tool facts pair up
        groups.append(InteractionGroup(entries=tuple(copy.deepcopy(entry) for entry in group)))  # R13

    for entry in message_entries:
        message = entry.message
        if isinstance(message, SystemMessage):
            continue  # R14: prompt state belongs to no group and never splits one
        if isinstance(message, UserMessage):
            if current:
                close(current)
            current = [entry]  # R11: a user message opens the next interaction
        elif not current:
            raise tool_facts.before_first_user(entry.id, message.role)
        else:
            current.append(entry)
    if current:
        close(current)
    return groups
    ### END SOLUTION


# %% [markdown] id="lab11-2-09"
# ## 3 · Run: the chapter's groups

# %% id="lab11-2-10"
with lab_helpers.until_implemented():
    groups = group_interactions(opening)
    display(lab_helpers.groups_table(groups, fixtures.teaching_estimator))
    lab_helpers.compare([[entry.id for entry in group.entries] for group in groups], hand_worked, "groups")
    by_id = {entry.id: entry for entry in opening}
    lab_helpers.compare([entry for group in groups for entry in group.entries], [by_id[i] for group in hand_worked for i in group],
                   tr("the groups' entries"),
                   brief=tr("u1 … a3, field by field equal to the path's"))


# %% [markdown] id="2e4f7f65"
# ### Your prediction
#
# Your two predictions against the worked answer above (🎯 right, 🤔 not what it says), and,
# separately, your `group_interactions` against the same answer (✅ agrees, ❌ your code is off,
# not your prediction: the checklist at the end names the rule).

# %% id="b6ee62a5"
def your_groups():
    groups = [[entry.id for entry in group.entries] for group in group_interactions(opening)]
    return {"number of groups": len(groups), "group of r-read": next((g[0] for g in groups if "r-read" in g), None)}


lab_helpers.prediction_table(
    my_prediction,
    worked={"number of groups": len(hand_worked), "group of r-read": next(g[0] for g in hand_worked if "r-read" in g)},
    yours=your_groups,
    function="group_interactions",
)

# %% [markdown] id="lab11-2-11"
# Costs 7, 7 and 15: these are the blocks Lab 11.3 will fit into a budget.
#
# **Copies (R13).** The groups are copies, so a caller who edits one cannot change the session. Below, the `read-1` call's arguments are changed inside group 3; the path keeps its own.

# %% id="lab11-2-12"
with lab_helpers.until_implemented():
    groups = group_interactions(opening)
    read_call = groups[2].entries[1].message.content[1]  # calls → its read-1 ToolCall
    read_call.arguments["path"] = "changed.ts"
    lab_helpers.compare(read_call.arguments, {"path": "changed.ts"}, tr("read-1 arguments in the group"))
    lab_helpers.compare(opening[6].message.content[1].arguments, {"path": "context.ts"}, tr("read-1 arguments on the path"))

# %% [markdown] id="lab11-2-13"
# ## 4 · Predict, then run: order does not matter, ids do
#
# Each row is a short path in the chapter's shorthand: `calls(read-1,test-1)` declares two calls, `r-test(test-1)` answers `test-1`, `patch` is a system message. Decide for each row: which groups, or which ids must the error name? Then run it.

# %% id="lab11-2-14"
cases = lab_helpers.tool_fact_cases()  # shorthand path -> its groups, or (a tuple) the ids the error must name

def what_happens(shorthand: str) -> lab_helpers.Attempt:
    """Your function on one row: the groups it returned, or the error it raised."""
    return lab_helpers.attempt(lambda: group_interactions(lab_helpers.shorthand_path(shorthand)))


def shown(tried: lab_helpers.Attempt) -> str:
    if not tried.accepted:
        return tried.shown  # one line, even for a long error
    return " | ".join(", ".join(entry.id for entry in group.entries) for group in tried.value)


def as_predicted(answer, tried: lab_helpers.Attempt) -> bool:
    if isinstance(answer, tuple):  # ids the error must name
        return tried.rejected and tried.names(*answer)
    return tried.accepted and [[entry.id for entry in group.entries] for group in tried.value] == answer


with lab_helpers.until_implemented():
    rows = {}
    for shorthand, answer in cases.items():
        tried = what_happens(shorthand)
        hand = tr("error naming {ids}").format(ids=", ".join(answer)) if isinstance(answer, tuple) else " | ".join(map(", ".join, answer))
        rows[shorthand] = hand, shown(tried), as_predicted(answer, tried)
    display(lab_helpers.verdict_table(rows, function="group_interactions", index=tr("path")))

# %% [markdown] id="lab11-2-15"
# The second row moves `r-test` before `calls` and is still one valid group: the pairing uses id sets, and `r-test` keeps its place on the path. The third row shows that an assistant progress message and a system patch between the results change nothing. The fourth keeps a system patch between two groups, where it joins neither. The last six each break one rule and are stopped before any budget sees them; in the very last, `read-1` is answered only in the next group: too late, its own group ended without the result.
#
# ## 5 · Checklist
#
# Checks 4–6 against your `group_interactions`.

# %% id="lab11-2-16" tags=["checklist"]
checklist.run(lab="11.2", group_interactions=group_interactions)
