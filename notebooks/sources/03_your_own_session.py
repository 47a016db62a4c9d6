# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="10b138e5"
# # Your own session — import a real agent log, explore it, count real tokens
#
# Notebooks 00–02 use the chapter's small, hand-checkable sessions. This one opens a
# **real agent log** and asks four questions about it:
#
# 1. **What did the import carry over, and what did it leave out?** A log written by a
#    real agent is messier than the course's entries; nothing may be dropped silently.
# 2. **What does one model call see?** The projection explorer from notebook 01, on
#    the whole session, a page at a time.
# 3. **How far off is `ceil(chars / 4)`?** The production heuristic against a real BPE
#    tokenizer, message by message and request by request, and a `safety_margin`
#    chosen from the measured error instead of guessed.
# 4. **What does `ceil(chars / 4)` do to Chinese?** The same counts on a Chinese coding
#    session with English code, and an estimator that charges a Chinese character what
#    the BPE tokenizer charges on average.
#
# By default it opens a small **pi** session that ships with the pack. To open your
# own, put its path in `SESSION_FILE` below and run the notebook again. These formats
# are read:
#
# | agent | where its logs usually are |
# |---|---|
# | pi | `~/.pi/agent/sessions/--<project path>--/<timestamp>_<id>.jsonl` |
# | Claude Code | `~/.claude/projects/<project>/<session>.jsonl` |
# | Codex CLI | `~/.codex/sessions/<year>/<month>/<day>/rollout-*.jsonl` |
# | this course | any file a `JsonlSessionStore` wrote |

# %% id="2e9b6445"
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import HTML, display

from course_lib import build_context, estimate_tokens_chars
from course_lib.teaching import i18n
from course_lib.importers.bpe import estimate_tokens_bpe
from course_lib.explorer import ProjectionExplorer, budget_bar_svg, project, readable, table_page
from course_lib.teaching.chart_font import chart_language
from course_lib.importers import FORMATS, load_session, sample_path

tr = i18n.notebook_messages("03_your_own_session")  # this notebook's sentences in your language
HEADERS = {  # the tables' column names as you read them; the code below keeps the English ones
    "session": tr("session"),
    "user turn": tr("user turn"),
    "messages sent": tr("messages sent"),
    "messages": tr("messages"),
    "error": tr("error"),
    "entries kept": tr("entries kept"),
    "input, estimated": tr("input, estimated"),
    "input, real (BPE)": tr("input, real (BPE)"),
    "room for input": tr("room for input"),
    "real input fits": tr("real input fits"),
    "estimator": tr("estimator"),
    "margin from": tr("margin from"),
}

SESSION_FILE = None  # your own log, e.g. "~/.claude/projects/my-project/0a1b2c.jsonl"

source = Path(SESSION_FILE).expanduser() if SESSION_FILE else sample_path("pi")
imported = load_session(source)
print(tr("{file}: read as {format!r}").format(file=source.name, format=imported.format))
print(tr("{entries} entries on the active path, {skipped} lines skipped, {notes} notes").format(
    entries=len(imported.entries), skipped=len(imported.skipped), notes=len(imported.notes)))

# %% [markdown] id="c3f81a35"
# ## 1. What the import carried over
#
# `load_session` follows the log's tree to the **active path** (the chain from the last
# entry back to the root, as the agent itself resumes) and turns each fact into one of
# the course's entries: messages, metadata and compactions (R10). The result is a chain
# that `build_context` accepts as it is: every interaction is a whole group, and every
# tool call has its result (R11, R12).

# %% id="4f133e54"
kinds = pd.Series([e.message.role if e.type == "message" else e.type for e in imported.entries])
kinds.value_counts().rename_axis(tr("carried over as")).to_frame(tr("entries"))

# %% [markdown] id="2ac4007d"
# Every line that was **not** carried over is listed with its line number and the
# reason: a branch the session abandoned, an entry type newer than the importer, a tool
# result whose call nobody made, a line the agent was still writing when it stopped.
# Lines that were carried over **with a change** are in the notes: an image became a
# short placeholder (its base64 text is not what the model pays for), a thinking block
# was dropped, a call that never got a result was given an error result so its group
# stays whole.

# %% id="dbb088e4"
def show_lines(rows, columns, none):
    """The lines as a table, or one sentence when there are none (never an empty table's repr)."""
    if not rows:
        print(none)
        return
    with pd.option_context("display.max_colwidth", None):
        display(pd.DataFrame(rows).rename(columns=columns))


show_lines(imported.skipped, {"line": tr("skipped line"), "reason": tr("reason")}, tr("No line was skipped."))
show_lines(imported.notes, {"line": tr("changed line"), "text": tr("note")}, tr("No line was carried over with a change."))

# %% [markdown] id="26a609b7"
# ## 2. What one model call sees
#
# The explorer works on any list of entries. Move `max_tokens` and watch the boundary
# between **dropped** (red) and **kept** (green) groups; for a long session the table
# shows the page around that boundary first, and the page slider walks through the
# rest. The costs here are `ceil(chars / 4)`, as a production agent would estimate.

# %% id="a8572027" tags=["nbval-ignore-output", "remove-output"]
explorer = ProjectionExplorer.from_session(imported.entries, max_tokens=150, reserved_output=20)
explorer.widget

# %% [markdown] id="10e34567"
# The same projection without widgets: the reason `build_context` gives, the budget
# bar, and the table's page around the boundary (R19, R22).
#
# The sliders need a live kernel: run the notebook in JupyterLab, or open it live with a
# launch button of the course website. Read without one, this is what they show at their
# starting values.

# %% id="e1699ebf"
view = project(imported.entries, max_tokens=150, reserved_output=20, safety_margin=0, estimate_tokens=estimate_tokens_chars)
print(view.reason)
display(HTML(budget_bar_svg(view.breakdown)))
readable(table_page(view.table, page_size=12))

# %% [markdown] id="847b587a"
# ## 3. How far is `ceil(chars / 4)` from a real tokenizer?
#
# `build_context` never counts tokens itself; it asks an estimator (R15). Agents use
# `ceil(chars / 4)` because it is instant and needs no tokenizer. A model, however,
# bills and limits real tokens. `estimate_tokens_bpe` counts them with `cl100k_base`,
# the byte-pair encoding tiktoken publishes. Its ranks file comes from an installed
# package and is checked against the hash tiktoken publishes before use, so nothing is
# downloaded.
#
# Both count the same text of a message: its text blocks, and for a tool call its
# name and its JSON arguments. The **error** of the heuristic on a message is
#
# `error = BPE tokens − ceil(chars / 4)`
#
# A positive error is the dangerous one: the heuristic promised fewer tokens than the
# model will see. Below, every message of the four English samples, one per format;
# section 4 takes the Chinese one. Your own file, if you set `SESSION_FILE`, goes where
# its language puts it, because that is what the estimator needs to know: with no CJK
# character (Chinese, Japanese or Korean script) it is measured here beside the English
# samples, with any it is measured in section 4 beside the Chinese one, and never in both.

# %% id="15d8bd33"
from course_lib.estimators import cjk_characters, message_texts


def cjk_in(entries):
    """How many CJK characters the messages of ``entries`` hold (0: text ceil(chars / 4) was made for)."""
    return sum(cjk_characters(text) for e in entries if e.type == "message" for text in message_texts(e.message))


yours_is_cjk = bool(SESSION_FILE) and cjk_in(imported.entries) > 0
if SESSION_FILE:
    print(
        tr("your session holds {count} CJK characters: section 4 measures it, beside the Chinese sample").format(
            count=cjk_in(imported.entries))
        if yours_is_cjk
        else tr("your session holds no CJK character: this section measures it, beside the English samples")
    )
logs = {fmt: sample_path(fmt) for fmt in FORMATS}
if SESSION_FILE and not yours_is_cjk:
    logs["your session"] = source
sessions = {name: list(load_session(path).entries) for name, path in logs.items()}

per_message = pd.DataFrame(
    [
        (name, entry.id, entry.message.role, estimate_tokens_chars(entry.message), estimate_tokens_bpe(entry.message))
        for name, path in sessions.items()
        for entry in path
        if entry.type == "message"
    ],
    columns=["session", "id", "role", "chars/4", "bpe"],
)
per_message["error"] = per_message["bpe"] - per_message["chars/4"]
per_message.groupby("session").agg(
    messages=("id", "count"), chars_4=("chars/4", "sum"), bpe=("bpe", "sum"), error=("error", "sum")
).rename(columns={"chars_4": "chars/4", **HEADERS}).rename_axis(HEADERS["session"])

# %% [markdown] id="6962fdfb"
# The messages the heuristic underestimates most. Tool results and code-heavy text
# tend to lead: short tokens such as punctuation, paths and numbers cost more than a
# quarter token per character.

# %% id="87cdd2d9"
per_message.sort_values(["error", "session", "id"], ascending=[False, True, True]).head(8).reset_index(drop=True).rename(
    columns=HEADERS)


# %% [markdown] id="8db590ae"
# One message is not what runs out of room, though; a **request** is. The request that
# answers a user's turn is what `build_context` would send at that point: the replayed
# system message, the latest compaction's summary, and the groups after it. For every
# user message of every session, the notebook builds that request with room for
# everything and adds up both counts over the messages it sends. Errors of single
# messages partly cancel in a request, and partly add up.

# %% id="bc54c68c"
def requests(name, path):
    for position, entry in enumerate(path):
        if entry.type == "message" and entry.message.role == "user":
            sent = build_context(
                path[: position + 1], max_tokens=10**9, reserved_output=0, safety_margin=0,
                estimate_tokens=estimate_tokens_chars,
            ).messages
            chars, bpe = sum(map(estimate_tokens_chars, sent)), sum(map(estimate_tokens_bpe, sent))
            yield name, entry.id, len(sent), chars, bpe


per_request = pd.DataFrame(
    [row for name, path in sessions.items() for row in requests(name, path)],
    columns=["session", "user turn", "messages sent", "chars/4", "bpe"],
)
per_request["error"] = per_request["bpe"] - per_request["chars/4"]
per_request.rename(columns=HEADERS)

# %% [markdown] id="33b1cee5"
# ## Choosing the safety margin from the errors
#
# `safety_margin` is the part of the budget kept free for exactly this: the gap
# between the estimate and the real count (R17). Too small, and a request the
# estimator thought fitted is refused by the model; too large, and history is dropped
# that would have fitted. A rule that can be defended: **the 95th percentile of the
# per-request error** — in 19 of 20 requests measured here, the real count exceeded
# the estimate by no more than the margin. It is computed, never typed in, so it
# changes when the samples (or your own session) do. A margin is never negative.

# %% id="747ce86c"
p95 = float(np.percentile(per_request["error"], 95, method="higher"))
safety_margin = max(0, int(np.ceil(p95)))
print(tr("{requests} requests; the 95th percentile of BPE − chars/4 is {p95:g} tokens").format(requests=len(per_request), p95=p95))
print(f"safety_margin = {safety_margin}")

# %% id="d53da95b"
drawn_in = chart_language()  # your language, or English where no installed font draws it
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
bins = np.arange(per_message["error"].min() - 0.5, per_message["error"].max() + 1.5)
left.hist(per_message["error"], bins=bins, color="#5c8dd6", edgecolor="white")
left.axvline(0, color="#333333", linewidth=1)
error_axis = tr("BPE − ceil(chars/4)  (tokens)", drawn_in)
left.set(title=tr("per message", drawn_in), xlabel=error_axis, ylabel=tr("messages", drawn_in))
ordered = np.sort(per_request["error"].to_numpy())
right.step(ordered, np.arange(1, len(ordered) + 1) / len(ordered), where="post", color="#4caf50")
right.axvline(p95, color="#d32f2f", linestyle="--", label=tr("95th percentile: {p95}", drawn_in).format(p95=f"{p95:g}"))
right.set(title=tr("per request (cumulative)", drawn_in), xlabel=error_axis, ylabel=tr("share of requests", drawn_in))
right.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown] id="1aa952fe"
# ## The margin at work
#
# Take the request the heuristic underestimated most, and a budget that this request
# fills exactly by the estimate: `max_tokens` is its `ceil(chars / 4)` total plus the
# reserved output. `build_context` estimates with `ceil(chars / 4)` in both rows; the
# last columns count what it sends with the real tokenizer. The input may use
# `max_tokens − reserved_output` tokens.
#
# What happens depends on the session, so the cell says it for the one at hand, row by
# row: what was kept, and whether the real input fits. A margin from the 95th percentile
# covers 19 of 20 requests measured, not every one: when the worst request still does not
# fit with it (text the heuristic underestimates far more than the rest; section 4 measures
# Chinese), the margin has to come from that session's own errors, or a higher percentile.

# %% id="066c5496"
worst = per_request.loc[per_request["error"].idxmax()]
path = sessions[worst["session"]]
request = path[: next(i for i, e in enumerate(path) if e.id == worst["user turn"]) + 1]
reserved_output = 20
max_tokens = int(worst["chars/4"]) + reserved_output
print(tr("{session}, the request for user turn {turn}: max_tokens={max_tokens}, reserved_output={reserved_output}").format(
    session=worst["session"], turn=worst["user turn"], max_tokens=max_tokens, reserved_output=reserved_output))


def with_margin(margin):
    result = build_context(
        request, max_tokens=max_tokens, reserved_output=reserved_output, safety_margin=margin,
        estimate_tokens=estimate_tokens_chars,
    )
    real = sum(map(estimate_tokens_bpe, result.messages))
    return {
        "safety_margin": margin,
        "reason": result.reason,
        "entries kept": len(result.kept_entry_ids),
        "input, estimated": result.tokens.system + result.tokens.messages,
        "input, real (BPE)": real,
        "room for input": max_tokens - reserved_output,
        "real input fits": real <= max_tokens - reserved_output,
    }


def outcome(row):
    """What the real input did: the words of one line below and of section 5's."""
    kept = tr("{count} entry kept") if row["entries kept"] == 1 else tr("{count} entries kept")
    fits = tr("the real input, {real} tokens, fits in {room}") if row["real input fits"] else tr(
        "the real input, {real} tokens, does NOT fit in {room}")
    return kept.format(count=row["entries kept"]), fits.format(real=row["input, real (BPE)"], room=row["room for input"])


rows = [with_margin(0), with_margin(safety_margin)]
for row in rows:
    kept, fits = outcome(row)
    print(f"safety_margin={row['safety_margin']}: {kept} ({row['reason']}); {fits}")
pd.DataFrame(rows).rename(columns=HEADERS)

# %% [markdown] id="cjk-01"
# ## 4. What `ceil(chars / 4)` does to Chinese
#
# `ceil(chars / 4)` charges a quarter token per character, whatever the character. The
# pack ships one more pi sample, `sample_path("pi", language="zh")`: a coding session in
# Chinese, with English code, commands and tool output, as a Chinese-speaking developer's
# session looks. (If you set `SESSION_FILE` to a session that holds CJK characters, it is
# measured beside it.)
#
# The cell splits each message's text into **CJK characters** (Chinese, Japanese and Korean
# script, and the punctuation written with them, such as `，` and `。`) and the rest, and
# counts with the BPE tokenizer what the CJK characters cost.

# %% id="cjk-02"
from course_lib.estimators import CJK_TOKENS_PER_CHAR, estimate_tokens_cjk
from course_lib.importers.calibration import CalibrationError, calibrate

mixed_logs = {"pi-zh": sample_path("pi", language="zh")}
if yours_is_cjk:
    mixed_logs["your session"] = source
mixed_sessions = {name: list(load_session(path).entries) for name, path in mixed_logs.items()}
for name, path in mixed_logs.items():
    try:
        found = calibrate(path)
    except CalibrationError:
        print(tr("{session}: no CJK character").format(session=name))
        continue
    print(tr("{session}: {characters} CJK characters cost {tokens} BPE tokens, {measured:.2f} per character; "
             "ceil(chars / 4) charges 0.25").format(
        session=name, characters=found.characters, tokens=found.tokens, measured=float(found.measured)))
print(tr("estimate_tokens_cjk charges a CJK character {cost:.2f}").format(cost=float(CJK_TOKENS_PER_CHAR)))

# %% [markdown] id="cjk-03"
# `estimate_tokens_cjk` (in `course_lib.estimators`) is `ceil(chars / 4)` with one change:
# a CJK character costs `CJK_TOKENS_PER_CHAR` tokens instead of a quarter. That coefficient
# is the pi-zh figure above, rounded to hundredths; `python -m course_lib.importers.calibration`
# recomputes it from the sample, and a test holds the two equal. Text without a CJK
# character costs exactly `ceil(chars / 4)`; the first line below checks it on every
# message of section 3.
#
# Then the three counts, message by message, added up by role; the last columns are the
# errors `BPE − estimate` of the two rough estimators.

# %% id="cjk-04"
ESTIMATES = {"chars/4": estimate_tokens_chars, "cjk-aware": estimate_tokens_cjk}
same = [estimate_tokens_cjk(e.message) == estimate_tokens_chars(e.message) for p in sessions.values() for e in p if e.type == "message"]
print(tr("section 3's {messages} messages: estimate_tokens_cjk gives ceil(chars / 4) on {same} of them").format(
    messages=len(same), same=sum(same)))
mixed_messages = pd.DataFrame(
    [
        {"session": name, "role": entry.message.role,
         **{label: estimate(entry.message) for label, estimate in ESTIMATES.items()},
         "bpe": estimate_tokens_bpe(entry.message)}
        for name, path in mixed_sessions.items()
        for entry in path
        if entry.type == "message"
    ]
)
by_role = mixed_messages.groupby(["session", "role"])[["chars/4", "cjk-aware", "bpe"]].sum()
for name in mixed_sessions:
    by_role.loc[(name, "whole session"), :] = by_role.loc[name].sum()
by_role = by_role.sort_index().astype(int)
for label in ESTIMATES:
    by_role[f"bpe − {label}"] = by_role["bpe"] - by_role[label]
by_role.rename(index={"whole session": tr("whole session")}).rename_axis([HEADERS["session"], "role"])

# %% [markdown] id="cjk-05"
# As in section 3, what runs out of room is a request. For every user turn, the request
# `build_context` would send, counted three ways, and for each rough estimator the margin
# its errors call for: the 95th percentile of `BPE − estimate` over these requests. The
# last line is the English samples' margin from section 3, for comparison.

# %% id="cjk-06"
def mixed_requests(name, path):
    for position, entry in enumerate(path):
        if entry.type == "message" and entry.message.role == "user":
            sent = build_context(
                path[: position + 1], max_tokens=10**9, reserved_output=0, safety_margin=0,
                estimate_tokens=estimate_tokens_chars,
            ).messages
            counts = {label: sum(map(estimate, sent)) for label, estimate in ESTIMATES.items()}
            yield {"session": name, "user turn": entry.id, "messages sent": len(sent), **counts,
                   "bpe": sum(map(estimate_tokens_bpe, sent))}


mixed_per_request = pd.DataFrame(
    [row for name, path in mixed_sessions.items() for row in mixed_requests(name, path)]
)
margins = {}
for label in ESTIMATES:
    error = mixed_per_request["bpe"] - mixed_per_request[label]
    mixed_per_request[f"bpe − {label}"] = error
    margins[label] = max(0, int(np.ceil(np.percentile(error, 95, method="higher"))))
    worst_share = (error / mixed_per_request["bpe"]).max()
    print(tr("{estimator}: margin {margin} tokens; at worst, the estimate misses {share:.0%} of a request's real count").format(
        estimator=label, margin=margins[label], share=worst_share))
print(tr("the English samples' margin (section 3): {margin} tokens").format(margin=safety_margin))
mixed_per_request.rename(columns=HEADERS)

# %% [markdown] id="cjk-07"
# ### The margins at work on Chinese
#
# The same experiment as above, on the request whose `ceil(chars / 4)` estimate fell
# shortest: `max_tokens` is that estimate plus the reserved output, so by `ceil(chars / 4)`
# the whole request just fits. Each rough estimator builds the context twice, with the
# English samples' margin and with the margin from this session's own errors. The lines
# say, from the rows, what each kept and whether the real input fits.

# %% id="cjk-08"
mixed_worst = mixed_per_request.loc[mixed_per_request["bpe − chars/4"].idxmax()]
mixed_path = mixed_sessions[mixed_worst["session"]]
mixed_request = mixed_path[: next(i for i, e in enumerate(mixed_path) if e.id == mixed_worst["user turn"]) + 1]
mixed_max_tokens = int(mixed_worst["chars/4"]) + reserved_output
print(tr("{session}, the request for user turn {turn}: max_tokens={max_tokens}, reserved_output={reserved_output}").format(
    session=mixed_worst["session"], turn=mixed_worst["user turn"], max_tokens=mixed_max_tokens, reserved_output=reserved_output))


def mixed_with_margin(label, margin_from, margin):
    result = build_context(
        mixed_request, max_tokens=mixed_max_tokens, reserved_output=reserved_output, safety_margin=margin,
        estimate_tokens=ESTIMATES[label],
    )
    real = sum(map(estimate_tokens_bpe, result.messages))
    return {
        "estimator": label,
        "margin from": margin_from,
        "safety_margin": margin,
        "reason": result.reason,
        "entries kept": len(result.kept_entry_ids),
        "input, estimated": result.tokens.system + result.tokens.messages,
        "input, real (BPE)": real,
        "room for input": mixed_max_tokens - reserved_output,
        "real input fits": real <= mixed_max_tokens - reserved_output,
    }


mixed_rows = [
    mixed_with_margin(label, margin_from, margin)
    for label in ESTIMATES
    for margin_from, margin in ((tr("English samples"), safety_margin), (tr("this session"), margins[label]))
]
for row in mixed_rows:
    kept, fits = outcome(row)
    print(f"{row['estimator']}, safety_margin={row['safety_margin']} ({row['margin from']}): {kept} ({row['reason']}); {fits}")
pd.DataFrame(mixed_rows).rename(columns=HEADERS)

# %% [markdown] id="24998b9e"
# ## What to take away
#
# * How far the heuristic is off depends on the text: the tables above show where it
#   fell short for these sessions (code, paths and tool output cost more than a quarter
#   token per character; section 4 measures what Chinese characters cost). What matters
#   is the error of a whole **request**, not of one message.
# * A margin is measured on one kind of text: section 4 printed the margin each rough
#   estimator needs on the Chinese sample beside the English samples' margin, and what
#   each pair of estimator and margin kept. Measure the margin with the estimator you
#   will use, on text like yours.
# * A margin taken from measured errors says what it protects against ("95% of the
#   requests measured"); a round number typed in says nothing.
# * Measure on sessions like yours. The bundled samples are tiny, so their 95th
#   percentile is nearly their largest error, and the error of a request grows with
#   its length: on a real session of 100,000 tokens, recompute it (set `SESSION_FILE`)
#   and consider the error as a **share** of the request as well.
# * `cl100k_base` is one tokenizer; the model you call may use another. The method
#   stays the same: count with the real tokenizer, compare, choose the percentile.
