# INSTRUCTOR'S SOLUTION SOURCE: the full solutions. Learners open notebooks/02_lifecycle_capstone.ipynb (make learner-labs writes it from this file).
# ---
# jupyter:
#   course:
#     functions:
#     - should_compact
#     - find_cut_point
#     - retry_after_overflow
#     lab: capstone
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="capstone-00"
# # Capstone — the compaction lifecycle: history is only ever appended
#
# Chapter 11 built the parts: a strict compaction record, interaction groups, a
# budgeted projection, and resume-from-summary. This notebook runs them the way an
# agent runtime does, for a whole session, and asks two questions:
#
# 1. **When** does the runtime compact, and what exactly happens, in what order?
# 2. **Why** does it append a summary instead of rewriting the old messages?
#
# The one idea to take away:
#
# > When the context fills up, nothing is deleted. A summary is **appended** to the
# > session as a compaction entry that says where the live history starts again
# > (`firstKeptEntryId`), and the agent carries on. The cut is logical; the log stays
# > physically whole.
#
# You write the three decisions yourself first (part 0): when to compact, where to
# cut, and how to recover from an overflow without looping. Then the rest of the
# notebook runs a whole session with them and looks at what the log keeps.
#
# Everything here is simulated and deterministic: a scripted model, scripted tools,
# and an offline summarizer. The numbers are small (an 800-token window) so you can
# check them by hand. The rules cited as L1–L6 are stated in `docs/rules.md`.

# %% id="capstone-01"
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from course_lib import checklist, fixtures
from course_lib.teaching import i18n, lab_helpers
from course_lib.teaching.chart_font import chart_language
from course_lib import lifecycle as course
from course_lib import build_context, compaction_summary_text, estimate_tokens_chars, parse_session_entry, path_to, to_json_dict
from course_lib.lifecycle import (
    AgentEndConsumer,
    CompactionSettings,
    CompactionSettingsError,
    OverflowRecoveryError,
    MessageEndConsumer,
    OfflineSummarizer,
    compaction_threshold,
    context_groups,
    group_cost,
    is_context_overflow,
    capstone_session,
    demonstrate_prefix_reuse,
    demonstrate_replay,
    demonstrate_single_writer,
    events_frame,
    prefix_reuse_table,
)
from course_lib.lifecycle.scenario import CAPSTONE_SETTINGS, CAPSTONE_SUMMARY_TOKENS, CAPSTONE_WINDOW

pd.set_option("display.max_rows", 80)
pd.set_option("display.width", 200)
pd.set_option("display.max_colwidth", 120)

tr = i18n.notebook_messages("02_lifecycle_capstone")  # this notebook's sentences in your language

# %% [markdown] id="5977ccdc"
# ## 0. Your turn: the three decisions of a runtime
#
# A runtime that keeps an append-only log has to decide three things on its own:
#
# 1. **whether** to compact after a run (`should_compact`, L1 and L2);
# 2. **where** to cut: which entry the resumed context starts from (`find_cut_point`, L3);
# 3. **how often** to try again when the provider says the prompt did not fit
#    (`retry_after_overflow`, L4).
#
# You write all three here. The checks at the end of this part run against your
# functions. The forty-turn session in the rest of the notebook runs with your
# `should_compact` and `find_cut_point` once they compact exactly as the course's do (its
# first cell says whose functions it ran and counts their calls); until then it runs with
# the course's, so its numbers still hold. The session's overflow recovery (turn 25) is the
# runtime's own loop, which follows the same rule L4: your `retry_after_overflow` runs on
# scripted answers, in its prediction cell and in check 18. The rules L1–L6 are stated in
# `docs/rules.md`.

# %% [markdown] id="51b7ed3a"
# ### Exercise 1 · `should_compact`
#
# **Your task:** `should_compact(context_tokens, context_window, settings) -> bool`.
#
# | argument | type | what it is |
# |---|---|---|
# | `context_tokens` | `int` or `float` | the tokens the last response reported as used (its `usage.total_tokens`) |
# | `context_window` | `int` or `float` | the model's window |
# | `settings` | `CompactionSettings` | `.enabled` (`bool`), `.reserve_tokens`, `.keep_recent_tokens` |
#
# Return `True` when compaction is enabled **and** the context is above the threshold
# `context_window − reserve_tokens` (L2). The ready-made helper
# `compaction_threshold(context_window, settings) -> int | float` returns that threshold, and
# refuses a window that is not larger than the reserve (L1: compaction needs room too) with a
# `CompactionSettingsError`, which is a `ValueError`.
#
# Bad input is refused in **every** mode, compaction disabled included: `enabled=False` only
# changes the answer for good input (`False`), never whether an input is accepted:
#
# - a `context_tokens` that is not a finite number ≥ 0 (a `bool` is not a number) raises a
#   `ValueError` whose message names `context_tokens`;
# - a window no larger than the reserve raises `compaction_threshold`'s `CompactionSettingsError`.
#
# So check both before you look at `settings.enabled`: an early `return False` for disabled
# settings would let a broken caller's numbers through unnoticed.
#
# **Predict** before you write it: for the capstone's window of 800 and reserve of 160,
# which of these contexts compact? Replace each `None` by `True` or `False`.

# %% id="e86c1c8e"
my_prediction = {639: None, 640: None, 641: None}  # write True or False for each

# %% [markdown] id="00085f8c"
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# The threshold is 800 − 160 = 640, and only a context strictly above it compacts (L2): 639 and
# 640 do not (at exactly 640 the whole reserve is still free), 641 does.
#
# </details>
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Which comparison leaves the whole reserve free when the context is *exactly* at the threshold?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Check the number first (`isinstance`, not a `bool`, `math.isfinite`, ≥ 0), then compute the threshold, then combine `settings.enabled` with one comparison.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# Three steps, in this order: refuse a bad `context_tokens` (a `ValueError` whose message names it); get the threshold from `compaction_threshold` (which refuses the window for you); then one boolean expression joining `settings.enabled` and a **strict** comparison of the context with the threshold.
#
# </details>

# %% id="5f342063" tags=["exercise"]
import math


def should_compact(context_tokens, context_window, settings) -> bool:
    """Compact after a run when the context is above window - reserve and compaction is on (L1, L2)."""
    ### BEGIN SOLUTION
    number = isinstance(context_tokens, (int, float)) and not isinstance(context_tokens, bool)
    if not number or not math.isfinite(context_tokens) or context_tokens < 0:
        raise ValueError(f"context_tokens must be a finite number >= 0, got {context_tokens!r} (L2)")
    threshold = compaction_threshold(context_window, settings)  # L1: refuses a window within the reserve
    return settings.enabled and context_tokens > threshold  # L2: strictly above; at the threshold the reserve is intact
    ### END SOLUTION


# %% id="bb2d8edb"
lab_helpers.prediction_table(
    my_prediction,
    worked={639: False, 640: False, 641: True},  # the answer worked by hand, above
    yours=lambda: {tokens: should_compact(tokens, CAPSTONE_WINDOW, CAPSTONE_SETTINGS) for tokens in my_prediction},
    function="should_compact",
)

# %% [markdown] id="e791e438"
# ### Exercise 2 · `find_cut_point`
#
# **Your task:** `find_cut_point(active_path, *, keep_recent_tokens, estimate_tokens) -> str | None`.
#
# - `active_path`: a list of session entries (messages, metadata, compactions), root first;
# - `keep_recent_tokens`: how much of the newest history to keep word for word (a number > 0);
# - `estimate_tokens(message) -> number`: the estimator.
#
# Return the **id of the first kept entry**: walking the context's interaction groups from
# the newest, add up their costs; the first group whose cost brings the total to at least
# `keep_recent_tokens` is the oldest one kept, and its first entry (a user message) is the
# cut. If every group is needed, return `None`: there is nothing older to summarize (L3).
# Only **whole groups**: never cut inside a tool round trip.
#
# Bad input: a `keep_recent_tokens` that is not a finite number > 0 (a `bool` is not a number)
# raises a `ValueError` naming `keep_recent_tokens`, on every call, before the path is looked at
# (even a path with no groups). A bad estimate is `group_cost`'s to refuse (its `ValueError`).
#
# Two helpers are ready (imported by the setup cell):
#
# | helper | signature | what it gives |
# |---|---|---|
# | `context_groups` | `(active_path) -> list[tuple[MessageEntry, ...]]` | the groups the current context is built from, oldest first; after a compaction they start at its `firstKeptEntryId`, as in Lab 11.5; `group[0]` is the group's user message |
# | `group_cost` | `(group, estimate_tokens) -> int \| float` | a group's cost: the sum of its messages' estimates |
#
# **Predict:** on the chapter's opening path (groups of 7, 7 and 15 tokens), what does
# `keep_recent_tokens=16` return? And `23`?

# %% id="c9060eed"
my_cut_prediction = {16: None, 23: None}  # write an entry id such as "u1", or "nothing" for None


# %% [markdown] id="bedbde63"
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# Newest first: group 3 costs 15 (15 < 16), group 2 brings the total to 22 ≥ 16, so 16 keeps
# groups 2 and 3 and cuts at `u2`. For 23: 15, 22, then group 1 brings it to 29 ≥ 23, but that
# is the oldest group: every group is needed, nothing is left to summarize, `None` ("nothing").
#
# </details>
#
# <details><summary>Hint 1 · a nudge</summary>
#
# Walk backwards: the newest group first. When do you stop, and which group's first entry do you return?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Loop over the group positions from the last down to the first, keep a running total with `group_cost`, and return as soon as the total reaches the target; if that happens at the oldest group, nothing is left to summarize.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# Inside the loop, once the running total is **at least** the target there are two answers: the oldest group (position 0) means `None`; any other group means the id of that group's first entry (its user message). If the loop ends without reaching the target, every group is needed: `None` again.
#
# </details>

# %% id="81b6d99a" tags=["exercise"]
def find_cut_point(active_path, *, keep_recent_tokens, estimate_tokens) -> str | None:
    """The first kept entry for about keep_recent_tokens of the newest whole groups, or None (L3)."""
    ### BEGIN SOLUTION
    number = isinstance(keep_recent_tokens, (int, float)) and not isinstance(keep_recent_tokens, bool)
    if not number or not math.isfinite(keep_recent_tokens) or keep_recent_tokens <= 0:
        raise ValueError(f"keep_recent_tokens must be a finite number > 0, got {keep_recent_tokens!r} (L3)")
    groups = context_groups(active_path)
    kept = 0
    for index in range(len(groups) - 1, -1, -1):  # newest group first
        kept += group_cost(groups[index], estimate_tokens)
        if kept >= keep_recent_tokens:
            return None if index == 0 else groups[index][0].id  # a whole group: its first user message
    return None  # everything fits: nothing to compact
    ### END SOLUTION


# %% id="ba6a8b1c"
def your_cuts():
    cuts = {keep: find_cut_point(fixtures.opening_path(), keep_recent_tokens=keep, estimate_tokens=fixtures.teaching_estimator)
            for keep in my_cut_prediction}
    return {keep: "nothing" if cut is None else cut for keep, cut in cuts.items()}


lab_helpers.prediction_table(
    my_cut_prediction,
    worked={16: "u2", 23: "nothing"},  # the answer worked by hand, above
    yours=your_cuts,
    function="find_cut_point",
)

# %% [markdown] id="d2455c43"
# ### Exercise 3 · `retry_after_overflow`
#
# **Your task:** `retry_after_overflow(send, compact, *, context_window, max_attempts) -> (answer, attempts)`.
#
# - `send()` sends the current context and returns the model's `AssistantMessage`;
# - `compact(attempt)` compacts the session (you are told which attempt it is: 1, 2, …);
# - `context_window`: the model's window (a number), for the helper below;
# - `max_attempts`: how many compact-and-retry attempts are allowed, an `int` ≥ 0.
#
# The ready-made helper `is_context_overflow(answer, context_window) -> bool` says whether the
# answer failed because the prompt did not fit (another error, such as a refused key, is not
# cured by compacting: return that answer as it is).
#
# Send; while the answer is an overflow, compact and send again, but at most `max_attempts`
# times. Return the final answer and how many compact-and-retry attempts ran. When the cap is
# spent and it still overflows, raise `OverflowRecoveryError(message, attempts=...)` (a
# `RuntimeError`; `attempts` is keyword-only) instead of compacting once more: that is what rules
# out the compact → overflow → compact loop (L4).
#
# Bad input: a `max_attempts` that is not an `int` ≥ 0 (a `bool` is not one) raises a
# `ValueError` naming `max_attempts`, before anything is sent.
#
# **Predict:** with a model that overflows every time and `max_attempts=3`, how many times
# is `compact` called, and how many times `send`?

# %% id="c8935fba"
my_loop_prediction = {"compact calls": None, "send calls": None}  # write two numbers


# %% [markdown] id="7225725b"
# <details><summary>Check your prediction: the answer worked by hand</summary>
#
# The first `send` overflows; then three attempts, each one `compact` and one `send`, all
# overflowing; the cap is spent, so the loop raises instead of compacting a fourth time:
# 3 `compact` calls and 1 + 3 = 4 `send` calls.
#
# </details>
#
# <details><summary>Hint 1 · a nudge</summary>
#
# What must be checked *before* compacting again, so that the loop cannot run forever?
#
# </details>
#
# <details><summary>Hint 2 · the approach</summary>
#
# Send once; then loop `while is_context_overflow(answer, context_window)`: if `attempts` has reached the cap, raise; else count the attempt, `compact(attempts)`, and send again.
#
# </details>
#
# <details><summary>Hint 3 · the shape of the code</summary>
#
# Inside the loop the cap test comes **first**: once the attempts made reach `max_attempts`, raise `OverflowRecoveryError` (a message, and the attempts as the keyword argument); only otherwise count one more attempt, compact with its number, and send again. After the loop, return the answer together with the count.
#
# </details>

# %% id="b70a920d" tags=["exercise"]
def retry_after_overflow(send, compact, *, context_window, max_attempts):
    """Send; on a context overflow compact and retry, at most max_attempts times, then fail clearly (L4)."""
    ### BEGIN SOLUTION
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 0:
        raise ValueError(f"max_attempts must be an int >= 0, got {max_attempts!r} (L4)")
    attempts = 0
    answer = send()
    while is_context_overflow(answer, context_window):
        if attempts >= max_attempts:  # L4: a bounded number of attempts, then a clear failure
            raise OverflowRecoveryError(
                f"the context still overflows after {attempts} attempt(s); the cap of {max_attempts} is spent (L4)",
                attempts=attempts,
            )
        attempts += 1
        compact(attempts)
        answer = send()
    return answer, attempts
    ### END SOLUTION


# %% id="c7c3382e"
from course_lib.checklist.capstone import OVERFLOW

RUNAWAY = 20  # far beyond the cap of 3: a loop without a cap is stopped here instead of hanging the kernel


class RunawayLoop(Exception):
    """Raised by the scripted send() once it has been called RUNAWAY times."""


def your_loop():
    calls = {"compact calls": 0, "send calls": 0}

    def send():
        calls["send calls"] += 1
        if calls["send calls"] > RUNAWAY:
            raise RunawayLoop(f"send() was called {RUNAWAY} times")
        return OVERFLOW  # "prompt is too long", every time

    def compact(attempt):
        calls["compact calls"] += 1

    try:
        retry_after_overflow(send, compact, context_window=CAPSTONE_WINDOW, max_attempts=3)
        print(tr("❌ retry_after_overflow returned although every answer overflowed: it must raise (L4)"))
    except OverflowRecoveryError as error:
        print(tr("OverflowRecoveryError after {attempts} attempts: {error}").format(attempts=error.attempts, error=error))
    except RunawayLoop as error:
        print(tr("❌ the loop has no cap: {error} with max_attempts=3 (L4)").format(error=error))
    return calls


lab_helpers.prediction_table(
    my_loop_prediction,
    worked={"compact calls": 3, "send calls": 4},  # the answer worked by hand, above
    yours=your_loop,
    function="retry_after_overflow",
)

# %% [markdown] id="3a30da25"
# ### Checks L1–L6
#
# Four checks run against your three functions (they are the capstone's own, not part of
# the chapter's fifteen). The last one runs the first 18 turns of the session below with
# your `should_compact` and `find_cut_point` and checks that one compaction is appended,
# after the run ended and in the right order (L5, L6).

# %% id="3ac155ef" tags=["checklist"]
checklist.run(lab="capstone", should_compact=should_compact, find_cut_point=find_cut_point,
              retry_after_overflow=retry_after_overflow)


# %% [markdown] id="1b503a31"
# ### Your functions in the whole session
#
# The same forty turns as the rest of this notebook, with your two decisions plugged into
# the runtime, next to the same turns with the course's, and how often the runtime called
# each of your functions. When your functions pass the checks, the compactions match the
# course's, and the rest of the notebook runs with yours.

# %% id="71f145db"
def compactions_of(runtime, turns):
    for text in turns:
        runtime.prompt(text)
    return [(e.id, e.first_kept_entry_id) for e in runtime.store.entries() if e.type == "compaction"]


def counting(function, calls, name):
    """``function``, counting its calls in ``calls[name]``: the runtime calls it, the table shows how often."""
    def counted(*args, **kwargs):
        calls[name] += 1
        return function(*args, **kwargs)
    return counted


courses_run = capstone_session()
courses = compactions_of(courses_run[0], courses_run[2])
yours = None
calls = {"should_compact": 0, "find_cut_point": 0}
with lab_helpers.until_implemented(expects="functions that run a whole session without raising on good input"):
    mine, _, turns = capstone_session(should_compact=counting(should_compact, calls, "should_compact"),
                                      find_cut_point=counting(find_cut_point, calls, "find_cut_point"))
    yours = compactions_of(mine, turns)
if yours is not None:
    display(pd.DataFrame({tr("calls in the 40 turns"): calls}).rename_axis(tr("your function")))
    lab_helpers.compare(yours, courses, tr("compactions with your functions (id, firstKeptEntryId), against the course's"))

# %% [markdown] id="capstone-02"
# ## 1. Two triggers
#
# A runtime compacts for one of two reasons, whichever comes first:
#
# | trigger | condition | what follows |
# |---|---|---|
# | **threshold** (maintenance) | `context_tokens > context_window - reserve_tokens` | compact, keep about `keep_recent_tokens` of the newest history verbatim |
# | **overflow** (recovery) | the response stopped with `error`/`length` *because the prompt did not fit* | compact, drop the failed response from the retry, retry — a bounded number of times |
#
# The production defaults are `reserve_tokens = 16384` and `keep_recent_tokens = 20000`.
# The reserve is window space kept free for the compaction itself: writing the summary
# is one more model call, and it needs room too. Those numbers only make sense for a
# window of 100k tokens or more, so the capstone scales everything down.

# %% id="capstone-03"
defaults = CompactionSettings()
settings = CAPSTONE_SETTINGS
threshold = compaction_threshold(CAPSTONE_WINDOW, settings)
pd.DataFrame(
    {
        tr("production defaults"): [defaults.enabled, tr("(the model's, e.g. 200000)"), defaults.reserve_tokens, defaults.keep_recent_tokens],
        tr("this capstone"): [settings.enabled, CAPSTONE_WINDOW, settings.reserve_tokens, settings.keep_recent_tokens],
    },
    index=["enabled", "context_window", "reserve_tokens", "keep_recent_tokens"],
)

# %% [markdown] id="capstone-04"
# The threshold is therefore 800 − 160 = **640 tokens**. The comparison is strict:
# a context of exactly 640 still leaves the whole reserve free (L2).

# %% id="capstone-05"
print(tr("threshold: {threshold}").format(threshold=threshold))
for tokens in (639, 640, 641):
    print(tr("context of {tokens} tokens -> compact? {verdict}").format(tokens=tokens, verdict=course.should_compact(tokens, CAPSTONE_WINDOW, settings)))

assert course.should_compact(640, CAPSTONE_WINDOW, settings) is False, "exactly at the threshold must not compact (L2)"
assert course.should_compact(641, CAPSTONE_WINDOW, settings) is True, "one token above the threshold must compact (L2)"

# %% [markdown] id="capstone-04b"
# ### Two reserves, two lessons
#
# Chapter 11's `build_context` also keeps room free: `reserved_output`. The names are
# close and the ideas differ, so here they are side by side.

# %% id="capstone-04c"
pd.DataFrame(
    {
        tr("reserved_output (Chapter 11, build_context)"): [
            tr("every model call"),
            tr("the answer the model writes to this call"),
            tr("subtracted from max_tokens before any group is chosen (R17)"),
            tr("{reserved} of the chapter's 31 tokens").format(reserved=fixtures.OPENING_BUDGET["reserved_output"]),
        ],
        tr("reserve_tokens (this lesson, compaction)"): [
            tr("the check after a run ends"),
            tr("the compaction call itself: the summary it writes"),
            tr("sets the threshold window − reserve_tokens; compact when the context is above it (L2)"),
            tr("{reserve} of the capstone's {window}: threshold {threshold}").format(
                reserve=settings.reserve_tokens, window=CAPSTONE_WINDOW, threshold=threshold
            ),
        ],
    },
    index=[tr("applies to"), tr("keeps room for"), tr("how it is used"), tr("value")],
)

# %% [markdown] id="capstone-06"
# ### Where the token numbers come from
#
# The runtime never knows the true size of a prompt before sending it. It
# *estimates* with the heuristic `ceil(characters / 4)` per message (a tool call
# counts its name plus its JSON arguments). The provider *counts*, and its count is
# what the response reports as `usage`. In this simulation the scripted provider
# also charges 4 tokens of chat framing per message, which the heuristic does not
# see. That gap is realistic, and it is exactly why overflow recovery exists: the
# estimate can say "fits" while the provider says "prompt is too long".
#
# The threshold check uses the **reported** usage of the last response, and it runs
# only between runs, after the agent's run has ended — never in the middle of a
# streaming turn.

# %% [markdown] id="capstone-07"
# ## 2. Forty turns
#
# The scripted session is a small coding task: add a `--dry-run` flag to a sync
# tool. Most turns are short; some read or edit files; turn 25 reads a long log
# file. The session starts with a `context_budget` metadata entry and the system
# prompt, then each `prompt()` runs one user turn to its end.

# %% id="capstone-08"
runs_yours = yours == courses  # your should_compact and find_cut_point, once they compact as the course's do
calls = {"should_compact": 0, "find_cut_point": 0}
functions = {"should_compact": counting(should_compact, calls, "should_compact"),
             "find_cut_point": counting(find_cut_point, calls, "find_cut_point")} if runs_yours else {}
session, model, prompts = capstone_session(**functions)
results = [session.prompt(text) for text in prompts]
entries = session.store.entries()
timeline = events_frame(session.events)

print(tr("{turns} turns, {requests} model requests, {entries} entries in the log, {events} events").format(
    turns=len(prompts), requests=len(model.requests), entries=len(entries), events=len(timeline)))
if runs_yours:
    counted = ", ".join(tr("{name} called {count} times").format(name=name, count=count) for name, count in calls.items())
    print(tr("run with your functions: {calls}").format(calls=counted))
else:
    print(tr("run with the course's should_compact and find_cut_point (yours do not compact as the course's do yet)"))
print(tr("overflow recovery: the runtime's own loop (L4); your retry_after_overflow runs in check 18"))

# %% [markdown] id="capstone-09"
# ### The event timeline
#
# Every turn emits `agent_start`, a `message_end` per appended message, and
# `agent_end`. The full table is long, so here are only the events of the turns in
# which something other than that happened.

# %% id="capstone-10"
special = timeline[~timeline["type"].isin(["agent_start", "message_end", "agent_end"])]
print(tr("turns with a compaction: {turns}").format(turns=sorted(set(special["turn"]))))
special.drop(columns=["detail"])

# %% id="capstone-11"
ends = [e for e in session.events if e.type == "compaction_end"]
assert [e.reason for e in ends] == ["threshold", "overflow", "threshold"], "expected: threshold, overflow, threshold"
assert all(r.answer.stop_reason == "stop" for r in results), "every turn should end with a real answer"

# %% [markdown] id="capstone-12"
# Three compactions: the context crossed the threshold twice (turns 16 and 33), and
# turn 25 overflowed and was recovered. Here is the whole of turn 25, the overflow
# turn, event by event:

# %% id="capstone-13"
columns = ["type", "entry_id", "role", "stop_reason", "reason", "attempt", "context_tokens", "tokens_after", "first_kept_entry_id", "will_retry"]
timeline[timeline["turn"] == 25][columns]

# %% [markdown] id="capstone-14"
# Read it against the six steps of the compaction sequence:
#
# 1. the run ends (`agent_end` after `a25.2`) → the post-run hook checks for compaction;
#    `a25.2` stopped with `error`, and the provider said the prompt was too long
#    (849 tokens for an 800-token window): an **overflow**;
# 2. `compaction_start {reason: overflow, attempt: 1}` is emitted;
# 3. the summarizer writes the 7-field summary of everything before the cut;
# 4. the compaction entry `c2` is **appended** through the same `store.append` as
#    every message (L5);
# 5. the context is rebuilt for accounting: `compaction_end` reports `tokens_after`;
# 6. the agent continues (`agent_start` again, `will_retry` is true) and `a25.3` is
#    the real answer.
#
# The failed response `a25.2` is still in the log — but it is *not* in the retry's
# context. The compaction's parent is the entry before the failure, so the failure
# sits on a side branch of the session tree: audit can still see it, the model never
# sees it again.

# %% id="capstone-15"
by_id = {e.id: e for e in entries}
c2 = by_id["c2"]
retry_request = model.requests[42]  # request 43: the retry
print(tr("failed response in the log: {logged} | stop reason: {reason}").format(
    logged="a25.2" in by_id, reason=by_id["a25.2"].message.stop_reason))
print("c2.parentId:", c2.parent_id, tr("(the failed response's parent is {parent})").format(parent=by_id["a25.2"].parent_id))
print(tr("roles sent in the retry: {roles}").format(roles=[m["role"] for m in retry_request.messages]))

active = {e.id for e in path_to(entries, session.leaf_id)}
assert "a25.2" in by_id and "a25.2" not in active, "the failure stays in the log but leaves the active path"
assert all(m.get("stopReason") != "error" for m in retry_request.messages), "the retry must not resend the failed response"

# %% [markdown] id="capstone-16"
# ### Context size over time
#
# Each point is one request: the prompt tokens the provider counted. The dashed
# lines are the threshold (640) and the window (800); a vertical line marks each
# compaction.

# %% id="capstone-17"
requests = pd.DataFrame(
    {"request": [r.index for r in model.requests], "prompt_tokens": [r.prompt_tokens for r in model.requests], "outcome": [r.outcome for r in model.requests]}
)

# a compaction happens after the request whose response ended the run
requests_before = {}
count = 0
for event in session.events:
    if event.type == "message_end" and event.role == "assistant":
        count += 1
    if event.type == "compaction_end":
        requests_before[event.entry_id] = (count, event.reason)

drawn_in = chart_language()  # your language, or English where no installed font draws it
fig, ax = plt.subplots(figsize=(10, 4))
ok = requests[requests["outcome"] == "reply"]
bad = requests[requests["outcome"] != "reply"]
ax.plot(ok["request"], ok["prompt_tokens"], marker=".", linewidth=1, label=tr("prompt tokens (reported)", drawn_in))
ax.scatter(bad["request"], bad["prompt_tokens"], marker="x", s=80, color="red", zorder=3, label=tr("overflow (prompt is too long)", drawn_in))
ax.axhline(threshold, linestyle="--", color="orange", label=tr("threshold = window − reserve = {threshold}", drawn_in).format(threshold=threshold))
ax.axhline(CAPSTONE_WINDOW, linestyle="--", color="red", linewidth=0.8, label=tr("window = {window}", drawn_in).format(window=CAPSTONE_WINDOW))
for entry_id, (after, reason) in requests_before.items():
    ax.axvline(after + 0.5, color="grey", linewidth=0.8)
    ax.annotate(f"{entry_id} ({reason})", (after + 0.6, 60), rotation=90, fontsize=8, color="grey")
ax.set_xlabel(tr("model request", drawn_in))
ax.set_ylabel(tr("tokens", drawn_in))
ax.set_ylim(0, CAPSTONE_WINDOW + 100)
ax.legend(loc="upper left", fontsize=8)
ax.set_title(tr("The context grows, is compacted, grows again — the log never shrinks", drawn_in))
plt.show()

# %% [markdown] id="capstone-18"
# The saw-tooth is the context; the log behind it only grows. Look closely at the
# overflow. Turn 25's first request (638 tokens) was just under the threshold, and
# the check would not have run before the next request anyway: it runs only when a
# run ends, never in the middle of one. The model asked to read a long log, the tool
# result arrived mid-run, and the next request (849 tokens) no longer fit the window. The threshold is maintenance;
# overflow recovery is the safety net for what maintenance cannot see coming.
#
# ## 3. The compaction entries
#
# Each compaction is one appended entry. `firstKeptEntryId` is the boundary: from
# that entry on, the raw messages still count; everything before it is represented
# by the summary. The cut always falls on the first user message of a whole
# interaction group (L3): walking groups newest → oldest, the runtime keeps just
# enough groups to reach `keep_recent_tokens` (120 here).

# %% id="capstone-19"
compactions = [e for e in entries if e.type == "compaction"]
pd.DataFrame(
    [
        {"id": e.id, "parentId": e.parent_id, "firstKeptEntryId": e.first_kept_entry_id, "tokensBefore": e.tokens_before,
         tr("goal"): e.summary.goal, tr("changed files"): ", ".join(e.summary.changed_files)}
        for e in compactions
    ]
).set_index("id")

# %% id="capstone-20"
print(compaction_summary_text(compactions[0].summary))

# %% [markdown] id="capstone-21"
# That text is what the model reads in place of turns 1–11: one synthetic user
# message right after the system prompt. It was written by the offline summarizer,
# which fills the seven fields from the transcript itself: the goal from the first
# user message, constraints from sentences with *must / never / only*, changed files
# from the `path` argument of edit and write tool calls, unresolved items from tool
# results that failed and were not later fixed. In production this is a model call,
# and any callable with the same shape can take its place.
#
# ## 4. Why append? Three benefits, each measured
#
# ### Benefit 1 — replay and audit
#
# Every response entry's `parentId` is the leaf its request was built from, and the
# budget is a `context_budget` entry in the log. So the log alone can rebuild the
# exact message list the model received at **any** past request — including the one
# that overflowed. The scripted model kept a copy of everything it was sent; compare.

# %% id="capstone-22"
checks = demonstrate_replay(entries, model.requests)
replay = pd.DataFrame([vars(c) for c in checks]).set_index("request")
print(tr("{matching} of {requests} requests rebuilt exactly from the log").format(matching=replay["matches"].sum(), requests=len(replay)))
replay.loc[[1, 41, 42, 43, 65]]

# %% id="capstone-23"
assert replay["matches"].all(), "every past request must be rebuilt exactly from the log"

# %% [markdown] id="capstone-24"
# A history that was rewritten in place could not do this: the messages of request
# 20 would be gone or changed by request 40, and "what did the model see when it
# made that edit?" would need a backup.
#
# ### Benefit 2 — a stable prompt prefix
#
# Providers cache prompts by **prefix**: if a request starts with exactly the same
# messages as the previous one, that part is cheap and fast. Append-only history
# makes each request the previous one plus something new, so the prefix only breaks
# when a compaction replaces the head. The comparison strategy rewrites history at
# every request instead — it re-summarises everything but the newest interaction —
# so the message right after the system prompt changes whenever a new interaction
# starts. Same session, same requests, two strategies:

# %% id="capstone-25"
append_only, rewrite = demonstrate_prefix_reuse(entries)
prefix_reuse_table(append_only, rewrite)

# %% id="capstone-26"
assert append_only.prefix_breaks == len(compactions), "append-only breaks the prefix only at compactions"
assert append_only.token_ratio > rewrite.token_ratio, "append-only should reuse more of each prompt"

# %% [markdown] id="capstone-27"
# *Reused tokens* is the share of each request's (estimated) tokens that repeat the
# previous request's prefix, summed over all requests after the first. The
# append-only prefix breaks three times — once per compaction — and the rewrite
# strategy breaks at almost every new interaction.
#
# ### Benefit 3 — one writer at a time
#
# Appending is safe when exactly one writer owns the session file. A second writer
# is refused at once with a clear error instead of interleaving its lines with the
# first one's. The `JsonlSessionStore` itself locks the session file (not its name,
# so a symlink is refused too) from its first append until `close()`.

# %% id="capstone-28"
with tempfile.TemporaryDirectory() as folder:
    writer_demo = demonstrate_single_writer(Path(folder) / "session.jsonl", entries[:6])

print(tr("second writer refused: {refused}").format(refused=writer_demo.refused))
print(tr("the error it raised, as the code words it: {error}").format(error=writer_demo.error))
print(tr("the first writer appended {appended} entries; lines on disk: {lines}").format(
    appended=writer_demo.first_writer_appended, lines=writer_demo.lines_on_disk))
assert writer_demo.refused, "a second writer must be refused while the first holds the session"
assert writer_demo.lines_on_disk == writer_demo.first_writer_appended, "only the first writer's lines are on disk"

# %% [markdown] id="capstone-29"
# ## 5. Three pitfalls, provoked
#
# ### Pitfall 1 — treating a compaction as a failure, ending the turn early
#
# An outside consumer (a UI, an orchestrator) must decide when a turn is over. Two
# candidates listen to the events of turn 25: one ends the turn at the first final
# assistant `message_end`; the other waits for `agent_end`, and lets a
# `compaction_end {will_retry: true}` reopen the turn.

# %% id="capstone-30"
turn_25 = [e for e in session.events if e.turn == 25]
early, patient = MessageEndConsumer(), AgentEndConsumer()
for event in turn_25:
    early(event)
    patient(event)

pd.DataFrame(
    [
        {tr("consumer"): tr("stops at message_end"), tr("verdict"): early.said, tr("events seen"): len(early.seen),
         tr("events missed"): ", ".join(e.type for e in early.missed)},
        {tr("consumer"): tr("waits for agent_end"), tr("verdict"): patient.said, tr("events seen"): len(patient.seen),
         tr("events missed"): ""},
    ]
).set_index(tr("consumer"))

# %% id="capstone-31"
assert early.verdict.startswith("failed"), "the message_end consumer should have mistaken the overflow for the end"
assert patient.verdict == "answered (a25.3)", "the agent_end consumer should report the retry's real answer"

# %% [markdown] id="capstone-32"
# The first consumer tells the user the turn failed, while the runtime quietly
# compacts and answers. A compaction is maintenance, not an error; it happens
# *between* the last `message_end` and the end of the turn.
#
# ### Pitfall 2 — a summary stored without `firstKeptEntryId`
#
# Suppose an implementation stores only the summary. The course's parser refuses
# such an entry outright:

# %% id="capstone-33"
broken = to_json_dict(compactions[0])
del broken["firstKeptEntryId"]
try:
    parse_session_entry(broken)
except ValueError as error:
    print(f"{type(error).__name__}: {error}")

# %% [markdown] id="capstone-34"
# And it is right to. Without the boundary, a resume has to guess which raw messages
# still count. At the end of the session there are only two guesses, and both are
# wrong:

# %% id="capstone-35"
final_path = path_to(entries, session.leaf_id)
budget = {"max_tokens": CAPSTONE_WINDOW, "reserved_output": 0, "safety_margin": 0, "estimate_tokens": estimate_tokens_chars}
with_boundary = build_context(final_path, **budget)

messages = [e for e in final_path if e.type == "message" and e.message.role != "system"]
summary_cost = estimate_tokens_chars(with_boundary.messages[1])
system_cost = with_boundary.tokens.system
guess_all = system_cost + summary_cost + sum(estimate_tokens_chars(e.message) for e in messages)
guess_none = system_cost + summary_cost

pd.DataFrame(
    [
        {tr("resume"): tr("with firstKeptEntryId"), tr("raw messages kept"): len(with_boundary.kept_entry_ids),
         tr("estimated tokens"): with_boundary.tokens.system + with_boundary.tokens.messages, tr("problem"): ""},
        {tr("resume"): tr("guess: every raw message still counts"), tr("raw messages kept"): len(messages),
         tr("estimated tokens"): guess_all, tr("problem"): tr("summarised twice; over the window")},
        {tr("resume"): tr("guess: no raw message counts"), tr("raw messages kept"): 0,
         tr("estimated tokens"): guess_none, tr("problem"): tr("recent detail lost")},
    ]
).set_index(tr("resume"))

# %% id="capstone-36"
assert guess_all > CAPSTONE_WINDOW, "without the boundary, 'keep everything' no longer fits"

# %% [markdown] id="capstone-37"
# ### Pitfall 3 — `reserve_tokens = 0`
#
# With no reserve, the threshold is the window itself: compaction would start only
# when there is no room left to produce the summary. The settings refuse it, and a
# session also refuses a reserve smaller than what its summarizer says it needs:

# %% id="capstone-38"
try:
    CompactionSettings(reserve_tokens=0)
except CompactionSettingsError as error:
    print(f"{type(error).__name__}: {error}")

try:
    capstone_session(settings=CompactionSettings(reserve_tokens=60, keep_recent_tokens=120))
except CompactionSettingsError as error:
    print(f"{type(error).__name__}: {error}")

print(tr("the capstone's summarizer needs {tokens} tokens").format(
    tokens=OfflineSummarizer(max_summary_tokens=CAPSTONE_SUMMARY_TOKENS).min_reserve_tokens))

# %% [markdown] id="capstone-39"
# ## 6. Exit questions
#
# Answer each in two or three sentences, out loud or in a cell of your own, before
# opening the hint.
#
# 1. **Walk through one compaction in six steps**, from the end of a run to the
#    agent carrying on. Where in that sequence is the entry written, and why is it
#    written with the same call as every other entry?
#
# <details><summary>Hint</summary>
# Run ends → post-run check → <code>compaction_start</code> → summary → the entry is
# appended (one append path, so the single-writer rule covers it too) →
# <code>compaction_end</code> with <code>tokens_after</code> → continue (retry after an overflow).
# Compare with the turn-25 table above.
# </details>
#
# 2. **For each of the three benefits, describe how a rewrite-the-history design
#    would break it.** One concrete scenario each: an audit question that can no
#    longer be answered, a bill that goes up, a corrupted file.
#
# <details><summary>Hint</summary>
# Replay: the request that made a bad edit can no longer be reconstructed. Cache: the
# rewrite row of the prefix table. Concurrency: a rewrite needs the whole file, so two
# writers race on it; an append needs one line and one lock.
# </details>
#
# 3. **What signal tells an outside consumer that a turn is over, and why not a
#    `message_end`?**
#
# <details><summary>Hint</summary>
# <code>agent_end</code> — and a <code>compaction_end</code> with <code>will_retry</code>
# means the runtime continues. A compaction can sit between the last
# <code>message_end</code> and the real end of the turn (pitfall 1).
# </details>
