# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="cee6747a"
# # Chapter 11 — History stays, context is rebuilt for every call
#
# A coding agent talks to a model many times in one session. Everything that
# happened — user requests, assistant answers, tool calls and their results — is
# recorded as **entries** in an append-only session tree. Nothing is ever edited or
# deleted.
#
# The model, however, has a bounded input. So before **every** call the agent
# *projects* the history onto a token budget and sends only that projection:
#
# | the history (session) | the projection (one model call) |
# |---|---|
# | append-only, grows forever | rebuilt from scratch each call |
# | a tree: branches, retries, compactions | one path: root → chosen leaf |
# | every entry, in full | system prompt + summary? + the newest **whole** interaction groups that fit |
#
# This chapter builds that projection, `build_context`, and the one thing that lets
# it reach back further than the budget allows: a **compaction** entry, a summary
# appended to the history like any other fact.
#
# This notebook walks the chapter's ten-entry example with pictures and tables;
# the labs (last section) have you write each piece yourself.

# %% id="de3fdb9b"
import pandas as pd
from IPython.display import HTML, SVG, display

from course_lib import build_context, checklist, compaction_summary_text, group_interactions, path_to, system_message_text, to_json_dict
from course_lib.teaching import i18n
from course_lib.builders import PathBuilder
from course_lib.explorer import budget_bar_svg, project, readable
from course_lib.fixtures import OPENING_BUDGET, RESUME_BUDGET, TIGHT_BUDGET, compact_1, opening_path, resumed_path, teaching_estimator
from course_lib.explorer.tree_svg import session_tree_svg

tr = i18n.notebook_messages("00_start_here")  # this notebook's sentences in your language

# %% [markdown] id="4119eb4c"
# ## 1. The ten-entry story
#
# A user asks the agent to review session-restore code. Two quick questions, then a
# request that makes the agent call two tools (`read-1`, `test-1`); the test finishes
# first, so its result `r-test` lands on the path before `r-read`.
#
# Costs come from the **teaching estimator**: one token per word, one per tool call.
# It is not a real tokenizer; it just makes every number below checkable by hand.

# %% id="484585ab"
path = opening_path()


def says(message):
    if message.role == "system":
        return system_message_text(message)
    return " ".join(b.text if b.type == "text" else f"[call {b.id}: {b.name}]" for b in message.content)


story = pd.DataFrame(
    [(e.id, e.message.role, says(e.message), teaching_estimator(e.message)) for e in path],
    columns=["id", "role", tr("says"), tr("cost")],
)
story

# %% id="20bad6fc"
print(tr("{entries} entries, {tokens} tokens in all").format(entries=len(path), tokens=story[tr("cost")].sum()))

# %% [markdown] id="563a8af3"
# ## 2. Interaction groups: the unit that is kept or dropped
#
# A group starts at a user message and holds everything up to the next one (R11).
# Cutting inside a group could send a tool call without its result, or a result
# without its call, so the budget only ever keeps or drops **whole groups** (R19).
# Inside a group, calls and results are matched by id, not position (R12), and the
# system message belongs to no group (R14).

# %% id="8ac87000"
groups = group_interactions(e for e in path if e.type == "message")
pd.DataFrame(
    {
        tr("group"): range(1, len(groups) + 1),
        tr("entries"): [" → ".join(g.entry_ids) for g in groups],
        tr("cost"): [sum(teaching_estimator(e.message) for e in g.entries) for g in groups],
    }
)

# %% [markdown] id="a3ac8419"
# ## 3. The 31-token budget
#
# `build_context(path, max_tokens=31, reserved_output=4, safety_margin=2, …)` pays the
# fixed costs first (R16, R17):
#
# | `max_tokens` | − system | − reserved output | − safety margin | = left for messages |
# |---:|---:|---:|---:|---:|
# | 31 | 3 | 4 | 2 | **22** |
#
# then picks groups **newest first** and stops at the first one that does not fit (R19):
#
# | step | group | cost | left before | fits? | left after |
# |---|---|---:|---:|---|---:|
# | 1 | 3 (`u3 … a3`) | 15 | 22 | yes | 7 |
# | 2 | 2 (`u2, a2`) | 7 | 7 | yes | 0 |
# | 3 | 1 (`u1, a1`) | 7 | 0 | **no — stop** | |
#
# So the model sees `sys → u2 → a2 → u3 → calls → r-test → r-read → a3`, and the reason is `trimmed` (R20).

# %% id="4875b41a"
result = build_context(path, **OPENING_BUDGET, estimate_tokens=teaching_estimator)
print("reason:         ", result.reason)
print("kept_entry_ids: ", list(result.kept_entry_ids))
print(tr("messages sent:").ljust(16), [m.role for m in result.messages])
to_json_dict(result)["tokens"]

# %% [markdown] id="63a19be0"
# The same projection, entry by entry, with where the budget went. The table and the
# bar come from `course_lib.explorer`, which asks `build_context` and only labels its
# answer; notebook `01_projection_explorer` puts them under sliders.

# %% id="85487cc7"
opening = project(path, **OPENING_BUDGET)
display(HTML(budget_bar_svg(opening.breakdown)))
print(opening.reason)
readable(opening.table)  # its columns and statuses in your language

# %% [markdown] id="14e0b5c7"
# **A budget too small for the newest group.** At `max_tokens=19` only 10 tokens are
# left for messages, but group 3 alone costs 15. Dropping it would leave the model
# with no request at all, so it is sent whole anyway and the total goes over
# `max_tokens` (R20: `single_group_overflow`). The red line marks `max_tokens`.

# %% id="a72bb47d"
tight = project(path, **TIGHT_BUDGET)
display(HTML(budget_bar_svg(tight.breakdown)))
print(tight.reason)

# %% [markdown] id="c521d1b4"
# ## 4. Compaction: a summary appended, nothing deleted
#
# Trimming forgets `u1, a1` silently. A **compaction** entry keeps their gist instead.
# It is appended at the end of the path (its `parentId` is the last entry, `a3`) and
# says: *“from now on, start the context at `u2`; here is a summary of what came
# before.”* The old entries stay in the session (R24).

# %% id="8d06c383"
entry = compact_1()
{key: value for key, value in to_json_dict(entry).items() if key != "summary"}

# %% [markdown] id="808a74f1"
# In a later call the summary becomes **one synthetic user message** placed right after
# the system message; its cost is paid before any group is chosen (R18):

# %% id="24c69eb9"
print(compaction_summary_text(entry.summary))

# %% [markdown] id="fa58e709"
# ### The session tree
#
# Below, the session after the compaction and one more exchange `u4 → a4`. While
# working on `a3` the user had also tried another direction (`u4-alt → a4-alt`): a
# **sibling branch**, still stored, but not on the active path that `path_to(tree,
# "a4")` walks (R10). The orange arrow is `compact-1`'s `firstKeptEntryId`, pointing
# back to `u2`: the summary stands in for everything before it. Colours are the
# statuses of the projection at `max_tokens=80`.

# %% id="cdd965a4"
sibling = PathBuilder(opening_path()).user("u4-alt", "Try the sibling branch.").assistant("a4-alt", "Sibling answer.")
tree = resumed_path() + sibling.entries[len(path):]
SVG(session_tree_svg(tree, "a4", budget=RESUME_BUDGET))

# %% id="43a20247"
active = path_to(tree, "a4")
resumed = project(active, **RESUME_BUDGET)
print(tr("messages sent: {roles}").format(roles=["summary" if i == 1 else m.role for i, m in enumerate(resumed.result.messages)]))
print(resumed.reason)
display(HTML(budget_bar_svg(resumed.breakdown)))
readable(resumed.table)

# %% [markdown] id="e3816a8e"
# Read the table from the top: `sys` is replayed; `u1, a1` are **summarized** (they
# come before `firstKeptEntryId`); `compact-1` itself is **skipped** and its synthetic
# summary row costs 40; groups 2–4 fit in the 31 tokens left. The sibling branch is
# not on the path at all, so it has no row.
#
# ## 5. Working through the labs
#
# Each lab is a notebook in `labs/`. You write the chapter's functions (and, in Lab 11.1,
# its models) in the cells tagged `exercise`; the lab's `checklist` cell runs its part of the
# chapter's fifteen-test checklist **against your code** and shows which pass. Every rule is
# stated in [docs/rules.md](../docs/rules.md), with the checks that test it.
#
# | lab | notebook | you write | checklist tests | rules |
# |---|---|---|---|---|
# | 11.1 | [lab_11_1_compaction_record](../labs/lab_11_1_compaction_record.ipynb) | the models `WireModel`, `CompactionSummary`, `CompactionEntry`, and `parse_session_entry`: the strict parser, compaction entries included | 1–3 | R1–R4, R7, R9 |
# | 11.2 | [lab_11_2_group_interactions](../labs/lab_11_2_group_interactions.ipynb) | `group_interactions` and its helper `check_tool_facts` (the tool-fact pairing) | 4–6 | R11–R14 |
# | 11.3 | [lab_11_3_build_context](../labs/lab_11_3_build_context.ipynb) | `build_context` with a budget, and its helper `token_count` | 7–9 | R15–R17, R19–R23 |
# | 11.4 | [lab_11_4_create_compaction_entry](../labs/lab_11_4_create_compaction_entry.ipynb) | `create_compaction_entry` | 10–11 | R24–R28 |
# | 11.5 | [lab_11_5_resume_from_compaction](../labs/lab_11_5_resume_from_compaction.ipynb) | the resume helpers `latest_compaction`, `summary_message`, `resume_candidates`, then `build_context` (with `token_count`) resuming from the latest compaction | 12–15 | R5, R6, R10, R16, R18, R19, R21, R23, R24, R27 |
# | capstone | [02_lifecycle_capstone](02_lifecycle_capstone.ipynb) | `should_compact`, `find_cut_point`, `retry_after_overflow` | 16–19 (not in the fifteen) | L1–L6 |
# | 11.6 | [lab_11_6_migrate_old_records](../labs/lab_11_6_migrate_old_records.ipynb) (optional) | `migrate_entry`: an old draft-shaped compaction moved into today's shape before the parser sees it | 20–23 (optional, not in the fifteen) | R9, R18, R27, M1–M4 |
#
# How to work:
#
# 1. `make lab` opens JupyterLab on this notebook; open the labs in order.
# 2. Fill the `exercise` cells until each raises no `NotImplementedError`, then run the `checklist` cell.
# 3. From a shell, `python -m course_lib.checklist --lab 11.3` runs one lab's tests and
#    `python -m course_lib.checklist` runs all fifteen (exit status 0 only when all pass).
# 4. Then play with `01_projection_explorer.ipynb`, finish with `02_lifecycle_capstone.ipynb`, where you
#    write the three decisions of a runtime (when to compact, where to cut, how often to retry) and run
#    a whole session with them, and open a real agent's log in `03_your_own_session.ipynb`.
#
# ### The chapter's names in Python
#
# The chapter's reference is TypeScript; this course is Python. The same functions and
# tests, by the names you will meet here:
#
# | in the chapter (TypeScript) | in this course (Python) |
# |---|---|
# | `groupInteractions()` | `group_interactions()` (Lab 11.2) |
# | `buildContext()` | `build_context()` (Labs 11.3 and 11.5) |
# | `createCompactionEntry()` | `create_compaction_entry()` (Lab 11.4) |
# | `node --test --test-name-pattern="Lab 11.3" …` | `python -m course_lib.checklist --lab 11.3`, or the lab's `checklist` cell |
# | camelCase fields such as `firstKeptEntryId`, `reservedOutput` | snake_case arguments and attributes: `first_kept_entry_id`, `reserved_output` (the JSON on disk keeps camelCase) |
#
# Here is the whole checklist run against the reference implementation — the state your labs aim for:

# %% id="ff72941b"
checklist.run()
