# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="fc52c3dc"
# # Projection explorer — what does one model call see?
#
# Pick a scenario and move the sliders. Every change runs `build_context` again on
# the same, unchanged history and redraws:
#
# * the **budget bar** — where the `max_tokens` go: system, summary, kept messages,
#   reserved output, safety margin, unused (a red line marks `max_tokens` when the newest group overflows it);
# * the **reason** — `within_budget`, `trimmed` or `single_group_overflow` (R20), with the arithmetic;
# * the **table** — one row per entry of the active path, plus one synthetic row for the compaction summary.
#
# | status | meaning |
# |---|---|
# | replayed system | a system message: merged into the one replayed system prompt, never in a group (R14, R16) |
# | kept | sent to the model in this call (R19, R21) |
# | dropped | left out by the budget: an older whole group (R19) |
# | summarized | before the latest compaction's `firstKeptEntryId`: the summary stands in for it (R18) |
# | skipped | a compaction or metadata entry: never sent as itself (R18) |
# | summary | the synthetic user message built from the latest compaction (R18) |
#
# Choosing a scenario moves the sliders to the budget the chapter uses for it.
# Run all cells (the widget needs a live kernel).

# %% id="92207d92"
import pandas as pd
from IPython.display import display

from course_lib.explorer import ProjectionExplorer, budget_breakdown, project, projection_table, scenario_table
from course_lib.teaching import i18n
from course_lib.fixtures import OPENING_BUDGET, opening_path

tr = i18n.notebook_messages("01_projection_explorer")  # this notebook's sentences in your language

# %% id="ea9ee56f" tags=["nbval-ignore-output", "remove-output"]
explorer = ProjectionExplorer()
explorer.widget

# %% [markdown] id="9687a767"
# **Reading this as a web page, or before running it?** The sliders need a live kernel:
# run the notebook in JupyterLab, or open it live with a launch button of the course website.
# Without one, here is what the widget draws at its starting values (the opening path at the
# chapter's 31-token budget); *The budgets above, drawn* below shows every budget the list of
# things to try mentions.

# %% id="9e648248" tags=["hide-input"]
from IPython.display import HTML

from course_lib.explorer import SCENARIOS, budget_bar_svg, table_html


def drawn(scenario, **budget):
    """What the widget shows for one scenario and budget, as static HTML: the bar, the reason, the table."""
    budget = {**SCENARIOS[scenario].budget, **budget}
    view = project(SCENARIOS[scenario].path(), **budget)
    title = f"<p><b>{scenario}</b> · max_tokens {budget['max_tokens']}, reserved_output {budget['reserved_output']}, safety_margin {budget['safety_margin']}</p>"
    return HTML(title + budget_bar_svg(view.breakdown) + f"<p>{view.reason}</p>" + table_html(view.table))


drawn("opening path")

# %% [markdown] id="6b37c885"
# ## Things to try
#
# 1. **Opening path, `max_tokens` 31 → 30.** 21 tokens are left for messages: group 3 (15)
#    still fits, group 2 (7) no longer does, so two more rows turn red. Back up to 38 and
#    everything fits (29 tokens of messages).
# 2. **`reserved_output` up.** Every token reserved for the answer is one fewer for history —
#    the table loses whole groups, never single rows.
# 3. **`max_tokens` 19.** Only 10 are left, the newest group costs 15: it is sent whole and the
#    bar runs past the red `max_tokens` line (`single_group_overflow`).
# 4. **After `compact-1`, then `u4 → a4`.** The summary (40 tokens) is paid first. At 80 everything
#    fits; what is the smallest `max_tokens` that keeps the summary and all three groups?
# 5. **System-replay path.** Three system rows (3 + 2 + 3 tokens on their own) replay into one
#    system prompt that costs 6 — look at the grey segment of the bar.
#
# The scenarios:

# %% id="9e5a0733"
with pd.option_context("display.max_colwidth", None, "display.width", 200):  # whole descriptions, not 50 characters
    display(scenario_table())

# %% [markdown] id="146dc332"
# ### The budgets above, drawn
#
# The widget at each budget of the list, in its order (question 4 is yours to answer with the
# sliders): `max_tokens` 30 and 38, `reserved_output` up to 8, `max_tokens` 19, then the
# other two scenarios at their own budget.

# %% id="050664f6" tags=["hide-input"]
for scenario, budget in [
    ("opening path", {"max_tokens": 30}),
    ("opening path", {"max_tokens": 38}),
    ("opening path", {"reserved_output": 8}),
    ("opening path", {"max_tokens": 19}),
    ("after compact-1, then u4 → a4", {}),
    ("system-replay path", {}),
]:
    display(drawn(scenario, **budget))

# %% [markdown] id="b4dabe18"
# ## The same, without widgets
#
# The widget only draws what two pure functions return, so everything it shows can be
# computed — and tested — directly:

# %% id="e87cb8f6"
projection_table(opening_path(), **OPENING_BUDGET)

# %% id="59339ada"
budget_breakdown(opening_path(), **OPENING_BUDGET)

# %% [markdown] id="f7642a5b"
# A sweep over `max_tokens` for the opening path shows the steps: nothing changes until
# a whole group fits (R19), and below 24 the newest group alone overflows (R20): its `total`
# stays 24 whatever `max_tokens` says. Only the budgets where the answer changes are shown.

# %% id="b9b11c82"
rows = []
for max_tokens in range(10, 45):
    projection = project(opening_path(), max_tokens=max_tokens, reserved_output=4, safety_margin=2)
    kept = projection.table[projection.table["status"] == "kept"]
    groups = ", ".join(str(g) for g in sorted(set(kept["group"])))
    rows.append((max_tokens, projection.result.reason, groups, len(kept), projection.result.tokens.total))
sweep = pd.DataFrame(rows, columns=["max_tokens", "reason", "kept groups", "kept entries", "total"])
changed = sweep[["reason", "kept groups"]].ne(sweep[["reason", "kept groups"]].shift()).any(axis=1)
sweep[changed].reset_index(drop=True).rename(columns={"kept groups": tr("kept groups"), "kept entries": tr("kept entries")})

# %% [markdown] id="403324e9"
# The widget is an ordinary Python object too: setting a slider's `.value` redraws it,
# exactly as dragging it does. (This is how its tests drive it; the widget above moves as well.)

# %% id="e7058304"
for value in (30, 38, 31):
    explorer.max_tokens.value = value
    kept = tr("{count} entries kept").format(count=len(explorer.projection.result.kept_entry_ids))
    print(f"max_tokens={value}: {kept}, {explorer.projection.result.reason}")
