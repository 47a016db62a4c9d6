# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open labs/lab_11_3_build_context.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - build_context
#     lab: '11.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="lab11-3-01"
# # Lab 11.3 · `build_context`: a bounded input from an intact history
#
# The session keeps every message. The model's window does not hold them all, so for every call the agent builds a **context projection**: a short list of messages derived from the history, sized to a token budget. Nothing is deleted; a different budget gives a different projection of the same history.
#
# **You write:** `build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens)`, without compaction (Lab 11.5 adds it), and its helper `token_count`.
#
# | rule | what it asks |
# |---|---|
# | R15 | the three options and every estimate are finite numbers ≥ 0 (a bool is not a number); the estimator gets copies |
# | R16 | the system message is replayed from the whole path and costs `tokens.system` (0 without one) |
# | R17 | `available_for_messages = max(0, max_tokens − system − reserved_output − safety_margin)` |
# | R19 | whole groups, newest first, stopping at the first group that does not fit |
# | R20 | `reason`: `within_budget`, `trimmed` or `single_group_overflow` (the newest group alone is too big: sent whole anyway) |
# | R21 | `messages = [system?, *kept messages]` as deep copies; `kept_entry_ids` lists original entries only |
# | R22 | `tokens = {maxTokens, system, messages, reservedOutput, safetyMargin, availableForMessages, total}` |
# | R23 | equal inputs give equal results, and each result is independent of the session and of other results |
#
# The last cell runs checks 7–9 of the chapter's fifteen against your code.

# %% id="lab11-3-02"
import copy
import math
from typing import Any

import pandas as pd
from IPython.display import display

from course_lib import BuildContextResult, TokenProjection, checklist, current_system_message, fixtures, group_interactions
from course_lib.teaching import i18n, lab_helpers

pd.set_option("display.max_colwidth", None)
tr = i18n.notebook_messages("lab_11_3_build_context")  # this lab's sentences in your language

# %% [markdown] id="lab11-3-03"
# ## 1 · The example: 31 tokens
#
# The caller picks the active path (Chapter 10's `path_to`) and passes it with a budget. There is no prompt option: the system prompt is already on the path.
#
# ```python
# build_context(opening, max_tokens=31, reserved_output=4, safety_margin=2,
#               estimate_tokens=fixtures.teaching_estimator)
# ```
#
# The teaching estimator charges one token per word and one per tool call, so every cost can be checked by hand:

# %% id="lab11-3-04"
opening = fixtures.opening_path()
lab_helpers.path_table(opening, fixtures.teaching_estimator)

# %% [markdown] id="lab11-3-05"
# ### Predict
#
# Which entries are sent, with what `reason` and which `tokens`? For `reason`, write `"within_budget"`, `"trimmed"` or `"single_group_overflow"`.
#
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# ### By hand
#
# First the fixed costs. The replayed system message (`sys`, three words) costs 3; the answer needs room (`reserved_output`); the estimate may be off (`safety_margin`).
#
# | | tokens |
# |---|---:|
# | `max_tokens` | 31 |
# | − system (replayed `sys`) | 3 |
# | − `reserved_output` | 4 |
# | − `safety_margin` | 2 |
# | = `available_for_messages` | **22** |
#
# Then whole groups (Lab 11.2), newest first:
#
# | group | entries | cost | running total | fits in 22? |
# |---|---|---:|---:|---|
# | 3 | `u3, calls, r-test, r-read, a3` | 15 | 15 | yes |
# | 2 | `u2, a2` | 7 | 22 | yes |
# | 1 | `u1, a1` | 7 | 29 | no: stop |
#
# So the model gets `sys → u2 → a2 → u3 → calls → r-test → r-read → a3`. `sys` leads the messages but is not in `kept_entry_ids`: the replayed system message may be folded from several entries, so no single id stands for it. `u1` and `a1` stay in the session; they just are not in this request.
#
# </details>

# %% id="dfb9f813"
my_prediction = {"reason": None, "first kept entry": None, "tokens.total": None}  # e.g. "trimmed", "u2", 31

# %% id="lab11-3-06"
hand_worked = {
    "kept_entry_ids": ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"],
    "reason": "trimmed",
    "tokens": {"maxTokens": 31, "system": 3, "messages": 22, "reservedOutput": 4,
               "safetyMargin": 2, "availableForMessages": 22, "total": 31},
}

# %% [markdown] id="lab11-3-07"
# ### A tighter budget
#
# With `max_tokens=19` only 19 − 3 − 4 − 2 = **10** are left, and the newest group alone costs 15. Cutting inside it would break a tool round trip, so the function sends group 3 whole and says so: `reason = "single_group_overflow"`, and `total` = 3 + 15 + 4 + 2 = 24 is **above** `max_tokens`. The caller decides what to do next (summarise, shorten tool output, switch model).

# %% id="lab11-3-08"
hand_tight = {
    "kept_entry_ids": ["u3", "calls", "r-test", "r-read", "a3"],
    "reason": "single_group_overflow",
    "tokens": {"maxTokens": 19, "system": 3, "messages": 15, "reservedOutput": 4,
               "safetyMargin": 2, "availableForMessages": 10, "total": 24},
}


# %% [markdown] id="lab11-3-09"
# ## 2 · Exercise
#
# **Your task:** `build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens)`
# and its helper `token_count(what, value)`.
#
# - `active_path`: a list of session entries, root first. It may hold **metadata** entries too:
#   only entries whose `type == "message"` are messages (no compactions in this lab; Lab 11.5 adds them).
# - `max_tokens`, `reserved_output`, `safety_margin`: numbers; `estimate_tokens(message)` returns one.
#   All must be finite and ≥ 0, and a `bool` is not a number: otherwise raise a `ValueError` naming
#   the option (`max_tokens`, …; a bad estimate names `estimate_tokens`) (R15). The three options are
#   checked on **every** call, before anything else, even for an empty path. Estimate **every**
#   message of every group, on a copy (`copy.deepcopy`), even one the selection never reaches (R15).
# - Return `BuildContextResult(messages=..., kept_entry_ids=..., reason=..., tokens=TokenProjection(...))`:
#   `messages` are copies, system first (R21); `kept_entry_ids` may be a list or a tuple (both are
#   accepted); `reason` per R20; `tokens` per R17 and R22. A path with no groups at all (empty, or
#   only a system message) keeps nothing and is `within_budget`.
# - `token_count(what: str, value) -> int | float`: `value` itself when it is a finite number ≥ 0
#   (not a `bool`), else a `ValueError` whose message names `what`.
#
# The course helpers and types, all imported by the setup cell:
#
# | name | signature | note |
# |---|---|---|
# | `current_system_message` | `(messages) -> SystemMessage \| None` | takes **messages** (`entry.message`), not entries: the replayed system message (R5, R6), `None` without one |
# | `group_interactions` | `(message_entries) -> list[InteractionGroup]` | takes **entries** (`type == "message"`); each group's `.entries` are `MessageEntry` copies (Lab 11.2) |
# | `TokenProjection` | `(*, max_tokens=..., system=..., messages=..., reserved_output=..., safety_margin=..., available_for_messages=..., total=...)` | Python keywords are **snake_case**; R22's camelCase names (`maxTokens`, …) are the wire form `to_json_dict` writes |
# | `BuildContextResult` | `(*, messages=..., kept_entry_ids=..., reason=..., tokens=...)` | `reason` one of `"within_budget"`, `"trimmed"`, `"single_group_overflow"` |
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Which costs must be paid before any conversation is chosen, and in what order are the groups considered?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Replay the system message from all message entries, subtract the fixed costs (never below 0), cost every group, then take groups newest first until one does not fit; if none fits, send the newest whole.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# Three quantities in order: `available` (R17: the budget less the three fixed costs, never below 0); one cost per group, all computed before the selection (R15); then a loop over the groups **newest first** that stops (`break`, not `continue`) at the first group whose cost would take `used` past `available`, and otherwise puts the group in front of the kept ones. The reason comes from comparing how many groups were kept with how many there are.
#
# </details>

# %% id="lab11-3-10" tags=["exercise"]
def token_count(what: str, value: Any) -> int | float:
    """Budgets and estimates must be finite numbers >= 0; a bool is not a number (R15)."""
    ### BEGIN SOLUTION
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {value!r} (R15)")
    return value
    ### END SOLUTION


def build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens) -> BuildContextResult:
    """Project the active path onto a token budget: fixed costs first, then whole groups, newest first."""
    ### BEGIN SOLUTION
    max_tokens = token_count("max_tokens", max_tokens)
    reserved_output = token_count("reserved_output", reserved_output)
    safety_margin = token_count("safety_margin", safety_margin)

    def cost(message) -> int | float:
        # R15: the estimator sees a copy, so it can never change the session
        return token_count("estimate_tokens(...)", estimate_tokens(copy.deepcopy(message)))

    message_entries = [entry for entry in active_path if entry.type == "message"]

    # R16: the system prompt is replayed from the whole path and belongs to no group
    system = current_system_message([entry.message for entry in message_entries])
    system_cost = cost(system) if system is not None else 0

    # R17: fixed costs come first; what is left is never negative
    available = max(0, max_tokens - system_cost - reserved_output - safety_margin)

    # R19: whole groups, newest first, stopping at the first that does not fit
    groups = group_interactions(message_entries)
    costs = [sum(cost(entry.message) for entry in group.entries) for group in groups]  # R15: every candidate
    kept = []
    used = 0
    for group, group_cost in zip(reversed(groups), reversed(costs)):
        if used + group_cost > available:
            break
        kept.insert(0, group)
        used += group_cost

    # R20: say what happened
    if len(kept) == len(groups):
        reason = "within_budget"
    elif kept:
        reason = "trimmed"
    else:
        reason = "single_group_overflow"  # sent whole anyway: total may exceed max_tokens
        kept = [groups[-1]]
        used = costs[-1]

    # R21: [system?, *kept messages] as deep copies; only original entries have ids to report
    kept_entries = [entry for group in kept for entry in group.entries]
    head = [system] if system is not None else []
    return BuildContextResult(
        messages=head + [copy.deepcopy(entry.message) for entry in kept_entries],
        kept_entry_ids=[entry.id for entry in kept_entries],
        reason=reason,
        tokens=TokenProjection(  # R22
            max_tokens=max_tokens,
            system=system_cost,
            messages=used,
            reserved_output=reserved_output,
            safety_margin=safety_margin,
            available_for_messages=available,
            total=system_cost + used + reserved_output + safety_margin,
        ),
    )
    ### END SOLUTION


# %% [markdown] id="lab11-3-11"
# ## 3 · Run: 31 tokens

# %% id="lab11-3-12"
with lab_helpers.until_implemented():
    result = build_context(opening, **fixtures.OPENING_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    display(lab_helpers.messages_table(result, fixtures.teaching_estimator))
    display(lab_helpers.tokens_table(result))
    for field in ("kept_entry_ids", "reason", "tokens"):
        lab_helpers.compare(getattr(result, field), hand_worked[field], field)
    by_id = {entry.id: entry.message for entry in opening}  # the table's messages: sys, then the kept entries
    lab_helpers.compare(result.messages, [by_id["sys"], *(by_id[i] for i in hand_worked["kept_entry_ids"])], "messages",
                   brief=tr("sys, then u2 … a3, field by field"))


# %% [markdown] id="de659216"
# ### Your prediction
#
# Your three predictions against the worked answer above (🎯 right, 🤔 not what it says), and,
# separately, your `build_context` against the same answer (✅ agrees, ❌ your code is off, not your
# prediction: the checklist at the end names the rule).

# %% id="d4303c32"
def your_build():
    result = build_context(opening, **fixtures.OPENING_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    first = result.kept_entry_ids[0] if result.kept_entry_ids else None
    return {"reason": result.reason, "first kept entry": first, "tokens.total": result.tokens.total}


lab_helpers.prediction_table(
    my_prediction,
    worked={"reason": hand_worked["reason"], "first kept entry": hand_worked["kept_entry_ids"][0],
            "tokens.total": hand_worked["tokens"]["total"]},
    yours=your_build,
    function="build_context",
)

# %% [markdown] id="lab11-3-13"
# ## 4 · Run: 19 tokens

# %% id="lab11-3-14"
with lab_helpers.until_implemented():
    tight = build_context(opening, **fixtures.TIGHT_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    display(lab_helpers.tokens_table(tight))
    for field in ("kept_entry_ids", "reason", "tokens"):
        lab_helpers.compare(getattr(tight, field), hand_tight[field], field)

# %% [markdown] id="lab11-3-15"
# ## 5 · Predict, then run: only whole groups
#
# The next cell builds the opening path at seven budgets, `max_tokens` 16 to 38. **Predict:** from which `max_tokens` does each group fit, and what happens below the first of those?
#
# <details><summary>Check your prediction: the thresholds worked by hand</summary>
#
# Fixed costs take 9 of every budget here. Group 3 needs 15 more, group 2 another 7, group 1 another 7. So group 3 fits from `max_tokens` 24, group 2 joins at 31 and group 1 at 38; below 24 the newest group overflows. In between, the kept part only ever grows by a whole group, `available` is `max_tokens − 9`, and `total` is 9 plus the kept groups' cost.
#
# </details>

# %% id="lab11-3-16"
GROUP_3 = ["u3", "calls", "r-test", "r-read", "a3"]
hand_sweep = {  # max_tokens: (kept entries, reason, available, total), worked out from the costs above
    16: (GROUP_3, "single_group_overflow", 7, 24),
    23: (GROUP_3, "single_group_overflow", 14, 24),
    24: (GROUP_3, "trimmed", 15, 24),
    30: (GROUP_3, "trimmed", 21, 24),
    31: (["u2", "a2", *GROUP_3], "trimmed", 22, 31),
    37: (["u2", "a2", *GROUP_3], "trimmed", 28, 31),
    38: (["u1", "a1", "u2", "a2", *GROUP_3], "within_budget", 29, 38),
}

with lab_helpers.until_implemented():
    rows = {}
    for max_tokens, hand in hand_sweep.items():
        result = build_context(opening, **(fixtures.OPENING_BUDGET | {"max_tokens": max_tokens}),
                               estimate_tokens=fixtures.teaching_estimator)
        shown = (list(result.kept_entry_ids), result.reason, result.tokens.available_for_messages, result.tokens.total)
        ok = shown == hand
        rows[max_tokens] = {"availableForMessages": result.tokens.available_for_messages,
                            "kept_entry_ids": ", ".join(result.kept_entry_ids), "reason": result.reason,
                            "total": result.tokens.total, "ok": "✅" if ok else "❌"}
    display(pd.DataFrame.from_dict(rows, orient="index").rename_axis("max_tokens"))

# %% [markdown] id="lab11-3-17"
# ## 6 · Each result is independent (R23)
#
# A caller may edit what it got back, for example to shorten a tool argument before sending. **Predict:** does that change the session, or the next build?

# %% id="lab11-3-18"
SHAPE = tr("a BuildContextResult whose messages are sys, u2, a2, u3, calls, … (the tool call `calls` fifth, its arguments in content[1])")
with lab_helpers.until_implemented(expects=SHAPE):
    first = build_context(opening, **fixtures.OPENING_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    calls = first.messages[4]  # sys, u2, a2, u3, calls
    calls.content[1].arguments["path"] = "changed.ts"
    second = build_context(opening, **fixtures.OPENING_BUDGET, estimate_tokens=fixtures.teaching_estimator)
    lab_helpers.compare(opening[6].message.content[1].arguments, {"path": "context.ts"}, tr("read-1 arguments in the session"))
    lab_helpers.compare(second.messages[4].content[1].arguments, {"path": "context.ts"}, tr("read-1 arguments in a later build"))

# %% [markdown] id="lab11-3-19"
# ## 7 · Checklist
#
# Checks 7–9 against your `build_context`.

# %% id="lab11-3-20" tags=["checklist"]
checklist.run(lab="11.3", build_context=build_context)
