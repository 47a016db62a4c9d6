# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open labs/lab_11_5_resume_from_compaction.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - build_context
#     lab: '11.5'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="lab11-5-01"
# # Lab 11.5 · Resume from the latest compaction
#
# `compact-1` deleted nothing: the ten original entries are still on the path, followed by the compaction and whatever came after it. When the agent resumes, `build_context` reads the **latest** compaction on the path, puts its summary right after the system message, and sends the original messages from `firstKeptEntryId` on, as budget allows.
#
# **You write:** the full `build_context`, now with resume, using three helpers: `latest_compaction`, `summary_message` and `resume_candidates`.
#
# | rule | what it asks |
# |---|---|
# | R16 | the system message is replayed from the **whole** path, including entries before any compaction |
# | R18 | only the latest compaction is read; its summary becomes one synthetic user message right after the system message, paid for before any group; candidates are the message entries from `firstKeptEntryId` on (which must be a user message before that compaction); metadata and compaction entries are skipped; system messages in the suffix fold into the replayed head |
# | R5, R6 | replay: non-empty contents joined by a blank line, sections override by name, the first system message's timestamp |
# | R21 | `messages = [system?, summary?, *kept]`; `kept_entry_ids` never names the system message or the summary |
# | R23 | equal inputs give equal, independent results |
# | R10, R19, R24, R27 | checked again on resumed paths: `path_to` picks the branch, trimming keeps whole groups, and a resumed path can be compacted again (with the course's `create_compaction_entry`) |
#
# The last cell runs checks 12–15 of the chapter's fifteen against your code.

# %% id="lab11-5-02"
import copy
import math
from typing import Any

import pandas as pd
from IPython.display import display

from course_lib import BuildContextResult, CompactionEntry, CompactionError, PathBuilder, TextContent, TokenProjection, UserMessage, checklist, compaction_summary_text, create_compaction_entry, current_system_message, fixtures, group_interactions, to_json_dict
from course_lib.teaching import i18n, lab_helpers

pd.set_option("display.max_colwidth", None)
tr = i18n.notebook_messages("lab_11_5_resume_from_compaction")  # this lab's sentences in your language

# %% [markdown] id="lab11-5-03"
# ## 1 · The example: the resumed path
#
# The opening path, then `compact-1` (keeping from `u2`), then the conversation continued with `u4 → a4`:

# %% id="lab11-5-04"
resumed = fixtures.resumed_path()
print(lab_helpers.session_chain(resumed))
lab_helpers.path_table(resumed, fixtures.teaching_estimator)

# %% [markdown] id="lab11-5-05"
# The next `build_context` call finds the latest compaction and does three things:
#
# 1. turns its seven-field summary into one synthetic **user** message, in a fixed text format;
# 2. collects the original messages from `u2` on, across the compaction, so `u4` and `a4` come too;
# 3. skips metadata and compaction entries, groups that suffix and applies the budget.
#
# This is the summary message's text. It carries none of the system prompt, and it has its own cost (one token per word):

# %% id="lab11-5-06"
summary_text = compaction_summary_text(fixtures.compact_1_summary())
print(summary_text)
print("\n" + tr("cost: {tokens} tokens").format(tokens=len(summary_text.split())))

# %% [markdown] id="lab11-5-07"
# ### Predict
#
# With `max_tokens=80, reserved_output=4, safety_margin=2`, what is sent? For `reason`, write `"within_budget"`, `"trimmed"` or `"single_group_overflow"`.
#
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# ### By hand
#
# | | tokens |
# |---|---:|
# | `max_tokens` | 80 |
# | − system (replayed `sys`) | 3 |
# | − `reserved_output` | 4 |
# | − `safety_margin` | 2 |
# | = `available_for_messages` | **71** |
# | − the summary, paid before any group | 40 |
# | = room for groups | **31** |
#
# | group (newest first) | cost | running total | fits in 31? |
# |---|---:|---:|---|
# | `u4, a4` | 8 | 8 | yes |
# | `u3, calls, r-test, r-read, a3` | 15 | 23 | yes |
# | `u2, a2` | 7 | 30 | yes |
#
# Everything fits: `within_budget`. `tokens.messages` = 40 + 30 = 70 (the summary counts as a message), `total` = 3 + 70 + 4 + 2 = 79. `u1` and `a1` are not candidates at all: the summary stands for them.
#
# </details>

# %% id="b5e4a810"
my_prediction = {"reason": None, "tokens.messages": None, "first kept entry": None}  # e.g. "trimmed", 40, "u4"

# %% id="lab11-5-08"
AFTER_U2 = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]
hand_resumed = {
    "kept_entry_ids": AFTER_U2,
    "reason": "within_budget",
    "tokens": {"maxTokens": 80, "system": 3, "messages": 70, "reservedOutput": 4,
               "safetyMargin": 2, "availableForMessages": 71, "total": 79},
}

# %% [markdown] id="lab11-5-09"
# **Predict: and with the chapter's 31 tokens?** What is the `reason`, and which groups are sent?
#
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# Only 22 are available, and the summary alone costs 40, so no group fits after it. The newest group, `u4, a4`, is sent whole anyway: `single_group_overflow`, messages 40 + 8 = 48, total 57. A summary is not free: the caller must budget for it.
#
# </details>

# %% id="lab11-5-10"
hand_resumed_31 = {
    "kept_entry_ids": ["u4", "a4"],
    "reason": "single_group_overflow",
    "tokens": {"maxTokens": 31, "system": 3, "messages": 48, "reservedOutput": 4,
               "safetyMargin": 2, "availableForMessages": 22, "total": 57},
}

# %% [markdown] id="lab11-5-11"
# ## 2 · The system prompt crosses the compaction
#
# `sys` comes before `u2`, so it is in the part the summary replaced. If the system message were collected only from the kept suffix, a resumed request would lose its base prompt. This path makes the problem bigger: the prompt changes on both sides of the compaction.

# %% id="lab11-5-12"
replay_path = fixtures.system_replay_path()
lab_helpers.path_table(replay_path, fixtures.teaching_estimator)

# %% [markdown] id="lab11-5-13"
# ### Predict
#
# A build of this path sends one system message first. What are its `content` and its `rules` section, and which messages follow it, in order? Write it down, then open the box.
#
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# ### By hand
#
# Replay all three system messages in path order (R5): `sys` gives content `BASE` and section `rules = RULE v1`; `patch-1` has empty content (skipped) and overrides `rules` with `RULE v2`; `patch-2` appends `Prefer small diffs.` after a blank line. The timestamp is the first system message's.
#
# The messages are then: the replayed system message, the summary, and `u2 → a2 → u3 → a3`. `patch-2` is already folded into the head, so it is not repeated in the suffix, and it is in no group.
#
# </details>

# %% id="lab11-5-14"
hand_replay = {
    "system": {"role": "system", "content": "BASE\n\nPrefer small diffs.", "sections": {"rules": "RULE v2"}, "timestamp": 1},
    "roles": ["system", "user", "user", "assistant", "user", "assistant"],
    "kept_entry_ids": ["u2", "a2", "u3", "a3"],
}


# %% [markdown] id="lab11-5-15"
# ## 3 · Exercise: the resume helpers
#
# **Your task:** three helpers, each a step of R18.
#
# - `latest_compaction(active_path) -> CompactionEntry | None`: the newest compaction on the path
#   (entries with `type == "compaction"`), `None` when there is none.
# - `summary_message(compaction) -> UserMessage`:
#   `UserMessage(content=[TextContent(text=...)], timestamp=compaction.timestamp)`, its one text block being
#   `compaction_summary_text(compaction.summary)` (the course's fixed text format, a `str`).
# - `resume_candidates(active_path, compaction) -> list`: the entries whose `type == "message"`,
#   from `firstKeptEntryId` on (system messages included: `group_interactions` skips them). Raise
#   `CompactionError(message, entry_id=first_kept)` (a `ValueError`; `entry_id` keyword-only),
#   naming that id in the message too, when it is not on the path before the compaction, or is not
#   a user message.
#
# All of `CompactionEntry`, `CompactionError`, `UserMessage`, `TextContent` and
# `compaction_summary_text` are imported by the setup cell.
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Which compaction matters when there are several, and where does the resumed conversation start?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Walk the path from the end for the compaction; find the position of `firstKeptEntryId`, check it, then keep the message entries from there.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# `latest_compaction`: walk the path from its end and return the first compaction you meet (or `None`). `summary_message`: one `UserMessage` with a single `TextContent` block holding `compaction_summary_text(...)`, stamped with the **compaction's** timestamp. `resume_candidates`: refuse a `firstKeptEntryId` that is missing or placed after the compaction (compare the two positions in the list of ids), then one that is no user message; the candidates are the message entries from that position on, **that entry included**.
#
# </details>

# %% id="lab11-5-16" tags=["exercise"]
def latest_compaction(active_path) -> CompactionEntry | None:
    """Only the newest compaction on the path is read (R18)."""
    ### BEGIN SOLUTION
    for entry in reversed(active_path):
        if entry.type == "compaction":
            return entry
    return None
    ### END SOLUTION


def summary_message(compaction: CompactionEntry) -> UserMessage:
    """The summary as one synthetic user message; no prompt text, the compaction's timestamp (R18)."""
    ### BEGIN SOLUTION
    text = compaction_summary_text(compaction.summary)
    return UserMessage(content=[TextContent(text=text)], timestamp=compaction.timestamp)
    ### END SOLUTION


def resume_candidates(active_path, compaction: CompactionEntry) -> list:
    """Message entries from firstKeptEntryId on, across the compaction (R18)."""
    ### BEGIN SOLUTION
    ids = [entry.id for entry in active_path]
    first_kept = compaction.first_kept_entry_id
    if first_kept not in ids or ids.index(first_kept) > ids.index(compaction.id):
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not on the path before it (R18)",
            entry_id=first_kept,
        )
    start = ids.index(first_kept)
    first = active_path[start]
    if first.type != "message" or first.message.role != "user":
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not a user message (R18)",
            entry_id=first_kept,
        )
    # Metadata and compaction entries are not messages; system messages stay for group_interactions to skip.
    return [entry for entry in active_path[start:] if entry.type == "message"]
    ### END SOLUTION


# %% [markdown] id="lab11-5-17"
# ## 4 · Exercise: `build_context` with resume
#
# **Your task:** the full `build_context`, with the signature and result of Lab 11.3, now reading
# the latest compaction. Start from your Lab 11.3 code (copy `token_count` and `build_context` here).
#
# - The system message is replayed from the **whole** path, compacted part included (R16).
# - With a compaction, `messages` starts `[system?, summary]`, and the summary's cost comes out of
#   `available_for_messages` before any group is chosen; the room left for groups is never below 0
#   (R17, R18). The groups come from `resume_candidates`; `tokens.messages` is the summary's cost plus
#   the kept groups' (R22).
# - After a compaction there is always at least one group (the one `firstKeptEntryId` opens). If
#   even the newest group does not fit in what the summary left, it is still sent whole:
#   `single_group_overflow` (R20).
# - Bad input, with or without a compaction: the three options and every estimate are checked as
#   in Lab 11.3 (a `ValueError` naming the option, on every call, before anything else); a
#   compaction whose `firstKeptEntryId` is wrong raises `resume_candidates`'s `CompactionError`.
#
# As in Lab 11.3 (the setup cell imported them all): the result is a
# `BuildContextResult(messages=..., kept_entry_ids=..., reason=..., tokens=TokenProjection(...))`;
# `current_system_message(messages)` takes **messages** (`entry.message`), not
# entries; `group_interactions(message_entries)` takes entries; `TokenProjection(...)` takes
# **snake_case** keywords (`max_tokens=`, `system=`, `messages=`, `reserved_output=`,
# `safety_margin=`, `available_for_messages=`, `total=`), and R22's camelCase names
# (`maxTokens`, …) are its wire form.
#
# <details><summary>Hint 1 · a nudge</summary>
#
# What changes when the head of the request holds two fixed parts instead of one?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Keep Lab 11.3's structure; insert the summary into the head, subtract its cost from the room for groups (clamped at 0), and take the candidates from `resume_candidates`.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# Only three places change from Lab 11.3: with a compaction, the candidates come from `resume_candidates` and the summary message joins the head right after the system message; the room for groups is what is available **less the summary's cost**, clamped like `available`; and `tokens.messages` counts the summary too.
#
# </details>

# %% id="lab11-5-18" tags=["exercise"]
def token_count(what: str, value: Any) -> int | float:
    """Budgets and estimates must be finite numbers >= 0; a bool is not a number (R15)."""
    ### BEGIN SOLUTION
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r} (R15)")
    return value
    ### END SOLUTION


def build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens) -> BuildContextResult:
    """Project the active path onto a budget, resuming from its latest compaction (R15–R23)."""
    ### BEGIN SOLUTION
    max_tokens = token_count("max_tokens", max_tokens)
    reserved_output = token_count("reserved_output", reserved_output)
    safety_margin = token_count("safety_margin", safety_margin)

    def cost(message) -> int | float:
        # R15: the estimator sees a copy, so it can never change the session
        return token_count("estimate_tokens(...)", estimate_tokens(copy.deepcopy(message)))

    message_entries = [entry for entry in active_path if entry.type == "message"]

    # R16: replay the prompt from the WHOLE path, so a compaction never loses the base prompt
    system = current_system_message([entry.message for entry in message_entries])
    system_cost = cost(system) if system is not None else 0
    available = max(0, max_tokens - system_cost - reserved_output - safety_margin)  # R17

    # R18: the latest compaction's summary comes right after the system message and is paid for first
    head = [system] if system is not None else []
    summary_cost = 0
    candidates = message_entries
    compaction = latest_compaction(active_path)
    if compaction is not None:
        # a compaction that keeps from nowhere fails before anything else is estimated
        candidates = resume_candidates(active_path, compaction)
        summary = summary_message(compaction)
        summary_cost = cost(summary)
        head.append(summary)
    room = max(0, available - summary_cost)  # R17: the summary may use up the allowance, never more

    # R19: whole groups, newest first, stopping at the first that does not fit
    groups = group_interactions(candidates)
    costs = [sum(cost(entry.message) for entry in group.entries) for group in groups]  # R15: every candidate
    kept = []
    used = 0
    for group, group_cost in zip(reversed(groups), reversed(costs)):
        if used + group_cost > room:
            break
        kept.insert(0, group)
        used += group_cost

    # R20
    if len(kept) == len(groups):
        reason = "within_budget"
    elif kept:
        reason = "trimmed"
    else:
        reason = "single_group_overflow"  # sent whole anyway: total may exceed max_tokens
        kept = [groups[-1]]
        used = costs[-1]

    # R21: [system?, summary?, *kept messages]; kept ids name original entries only
    kept_entries = [entry for group in kept for entry in group.entries]
    messages_cost = summary_cost + used
    return BuildContextResult(
        messages=head + [copy.deepcopy(entry.message) for entry in kept_entries],
        kept_entry_ids=[entry.id for entry in kept_entries],
        reason=reason,
        tokens=TokenProjection(  # R22
            max_tokens=max_tokens,
            system=system_cost,
            messages=messages_cost,
            reserved_output=reserved_output,
            safety_margin=safety_margin,
            available_for_messages=available,
            total=system_cost + messages_cost + reserved_output + safety_margin,
        ),
    )
    ### END SOLUTION


# %% [markdown] id="lab11-5-19"
# ## 5 · Run: the resumed path

# %% id="lab11-5-20"
with lab_helpers.until_implemented():
    result = build_context(resumed, **fixtures.RESUME_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    display(lab_helpers.messages_table(result, fixtures.teaching_estimator))
    for field in ("kept_entry_ids", "reason", "tokens"):
        lab_helpers.compare(getattr(result, field), hand_resumed[field], field)
    lab_helpers.compare(result.messages[1].content[0].text == summary_text, True, tr("message 2 is the summary text"))
    by_id = {entry.id: entry.message for entry in resumed if entry.type == "message"}
    lab_helpers.compare(result.messages[0], by_id["sys"], tr("message 1 (the replayed system)"))
    lab_helpers.compare(result.messages[2:], [by_id[i] for i in AFTER_U2], tr("messages 3–11"),
                   brief=tr("u2 … a4, field by field"))


# %% [markdown] id="7b441ef5"
# ### Your prediction
#
# Your three predictions against the worked answer above (🎯 right, 🤔 not what it says), and,
# separately, your `build_context` against the same answer (✅ agrees, ❌ your code is off, not your
# prediction: the checklist at the end names the rule).

# %% id="be83a8d4"
def your_build():
    result = build_context(resumed, **fixtures.RESUME_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    first = result.kept_entry_ids[0] if result.kept_entry_ids else None
    return {"reason": result.reason, "tokens.messages": result.tokens.messages, "first kept entry": first}


lab_helpers.prediction_table(
    my_prediction,
    worked={"reason": hand_resumed["reason"], "tokens.messages": hand_resumed["tokens"]["messages"],
            "first kept entry": hand_resumed["kept_entry_ids"][0]},
    yours=your_build,
    function="build_context",
)

# %% [markdown] id="lab11-5-21"
# And with 31 tokens:

# %% id="lab11-5-22"
with lab_helpers.until_implemented():
    result = build_context(resumed, **fixtures.OPENING_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    for field in ("kept_entry_ids", "reason", "tokens"):
        lab_helpers.compare(getattr(result, field), hand_resumed_31[field], field)

# %% [markdown] id="lab11-5-23"
# ## 6 · Run: system replay across the compaction

# %% id="lab11-5-24"
with lab_helpers.until_implemented():
    result = build_context(replay_path, max_tokens=200, reserved_output=4, safety_margin=2,
                           estimate_tokens=fixtures.teaching_estimator)
    display(lab_helpers.messages_table(result, fixtures.teaching_estimator))
    lab_helpers.compare(result.messages[0], hand_replay["system"], tr("the replayed system message"))
    lab_helpers.compare([message.role for message in result.messages], hand_replay["roles"], "roles")
    lab_helpers.compare(result.kept_entry_ids, hand_replay["kept_entry_ids"], "kept_entry_ids")
    lab_helpers.compare(result.messages[1].content[0].text, summary_text, tr("message 2"), brief=tr("compact-1's summary text"))
    by_id = {entry.id: entry.message for entry in replay_path if entry.type == "message"}
    lab_helpers.compare(result.messages[2:], [by_id[i] for i in hand_replay["kept_entry_ids"]], tr("messages 3–6"),
                   brief=tr("u2, a2, u3, a3, field by field"))

# %% [markdown] id="lab11-5-25"
# The compaction needs no copy of the prompt: the prompt is whatever the system messages on the path say, so replaying the whole path gives the same answer a snapshot would. For the same reason a system message can never be a cut point: Lab 11.4's `create_compaction_entry` rejects `firstKeptEntryId: "patch-2"`.
#
# ## 7 · Predict, then run: two compactions
#
# The session goes on: `compact-2` keeps from `u3` and is followed by `u5 → a5`. Both compactions stay in the session. **Predict:** how many summary messages are sent, and from which entry does the kept part start?
#
# **By hand.** Only one summary, `compact-2`'s (goal *Finish the regression test.*): it already carries forward what mattered from earlier summaries, and two summaries in one window would repeat facts and could contradict each other. The kept part starts at `u3`; with 80 tokens all of it fits: 71 available, 29 for the summary, and the groups from `u3` cost 15 + 8 + 5 = 28.

# %% id="lab11-5-26"
twice = fixtures.twice_compacted_path()  # the resumed path, compact-2 (keeping from u3), then u5 → a5
print(lab_helpers.session_chain(twice))

with lab_helpers.until_implemented():
    result = build_context(twice, **fixtures.RESUME_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    display(lab_helpers.messages_table(result, fixtures.teaching_estimator))
    summaries = [m for m in result.messages if m.role == "user" and m.content[0].text.startswith("[Compaction summary]")]
    lab_helpers.compare(len(summaries), 1, tr("summary messages sent"))
    lab_helpers.compare([m.role for m in result.messages[:2]], ["system", "user"], tr("the head: the replayed system message, then the summary"))
    goals = [line for m in summaries for line in m.content[0].text.split("\n") if line.startswith("Goal:")]
    lab_helpers.compare(goals, ["Goal: Finish the regression test."], tr("the summary sent (compact-2's goal)"))
    lab_helpers.compare(result.kept_entry_ids[:1], ["u3"], tr("first kept entry"))
    by_id = {entry.id: entry.message for entry in twice if entry.type == "message"}
    kept = ["u3", "calls", "r-test", "r-read", "a3", "u4", "a4", "u5", "a5"]
    lab_helpers.compare(result.messages[2:], [by_id[i] for i in kept], tr("the kept messages"), brief=tr("u3 … a5, field by field"))

# %% [markdown] id="lab11-5-27"
# ## 8 · Each build is independent (R23)
#
# Two builds of the same path are deep-equal, and editing one (here, a tool argument) changes neither the next build nor the session.

# %% id="lab11-5-28"
SHAPE = tr("a BuildContextResult whose messages are sys, summary, u2, a2, u3, calls, … (the tool call `calls` sixth, its arguments in content[1])")
with lab_helpers.until_implemented(expects=SHAPE):
    first = build_context(resumed, **fixtures.RESUME_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    second = build_context(resumed, **fixtures.RESUME_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    lab_helpers.compare(to_json_dict(first) == to_json_dict(second), True, tr("two builds are deep-equal"))
    first.messages[5].content[1].arguments["path"] = "changed.ts"  # sys, summary, u2, a2, u3, calls
    third = build_context(resumed, **fixtures.RESUME_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    lab_helpers.compare(third.messages[5].content[1].arguments, {"path": "context.ts"}, tr("read-1 arguments in a later build"))
    lab_helpers.compare(resumed[6].message.content[1].arguments, {"path": "context.ts"}, tr("read-1 arguments in the session"))

# %% [markdown] id="lab11-5-29"
# ## 9 · Checklist
#
# Checks 12–15 against your `build_context`. With these, all fifteen of the chapter's checks have run against your own code.

# %% id="lab11-5-30" tags=["checklist"]
checklist.run(lab="11.5", build_context=build_context)
