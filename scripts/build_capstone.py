"""Write notebooks/02_lifecycle_capstone.ipynb from the cells below (outputs come from execute_notebooks.py).

Usage:
    python scripts/build_capstone.py
    python scripts/execute_notebooks.py notebooks/02_lifecycle_capstone.ipynb
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "notebooks" / "02_lifecycle_capstone.ipynb"

CELLS: list[tuple[str, str]] = [
    ("md", r"""
# Capstone — the compaction lifecycle: history is only ever appended

Chapter 11 built the parts: a strict compaction record, interaction groups, a
budgeted projection, and resume-from-summary. This notebook runs them the way an
agent runtime does, for a whole session, and asks two questions:

1. **When** does the runtime compact, and what exactly happens, in what order?
2. **Why** does it append a summary instead of rewriting the old messages?

The one idea to take away:

> When the context fills up, nothing is deleted. A summary is **appended** to the
> session as a compaction entry that says where the live history starts again
> (`firstKeptEntryId`), and the agent carries on. The cut is logical; the log stays
> physically whole.

Everything here is simulated and deterministic: a scripted model, scripted tools,
and an offline summarizer. The numbers are small (an 800-token window) so you can
check them by hand. The rules cited as L1–L6 are in `spec/lifecycle.md`.
"""),
    ("code", r"""
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from course_lib import build_context, compaction_summary_text, estimate_tokens_chars, parse_session_entry, path_to, to_json_dict
from course_lib.lifecycle import (
    AgentEndConsumer,
    CompactionSettings,
    CompactionSettingsError,
    MessageEndConsumer,
    OfflineSummarizer,
    compaction_threshold,
    capstone_session,
    demonstrate_prefix_reuse,
    demonstrate_replay,
    demonstrate_single_writer,
    events_frame,
    prefix_reuse_table,
    should_compact,
)
from course_lib.lifecycle.scenario import CAPSTONE_SETTINGS, CAPSTONE_SUMMARY_TOKENS, CAPSTONE_WINDOW

pd.set_option("display.max_rows", 80)
pd.set_option("display.width", 200)
pd.set_option("display.max_colwidth", 120)
"""),
    ("md", r"""
## 1. Two triggers

A runtime compacts for one of two reasons, whichever comes first:

| trigger | condition | what follows |
|---|---|---|
| **threshold** (maintenance) | `context_tokens > context_window - reserve_tokens` | compact, keep about `keep_recent_tokens` of the newest history verbatim |
| **overflow** (recovery) | the response stopped with `error`/`length` *because the prompt did not fit* | compact, drop the failed response from the retry, retry — a bounded number of times |

The production defaults are `reserve_tokens = 16384` and `keep_recent_tokens = 20000`.
The reserve is window space kept free for the compaction itself: writing the summary
is one more model call, and it needs room too. Those numbers only make sense for a
window of 100k tokens or more, so the capstone scales everything down.
"""),
    ("code", r"""
defaults = CompactionSettings()
settings = CAPSTONE_SETTINGS
threshold = compaction_threshold(CAPSTONE_WINDOW, settings)
pd.DataFrame(
    {
        "production defaults": [defaults.enabled, "(the model's, e.g. 200000)", defaults.reserve_tokens, defaults.keep_recent_tokens],
        "this capstone": [settings.enabled, CAPSTONE_WINDOW, settings.reserve_tokens, settings.keep_recent_tokens],
    },
    index=["enabled", "context_window", "reserve_tokens", "keep_recent_tokens"],
)
"""),
    ("md", r"""
The threshold is therefore 800 − 160 = **640 tokens**. The comparison is strict:
a context of exactly 640 still leaves the whole reserve free (L2).
"""),
    ("code", r"""
print("threshold:", threshold)
for tokens in (639, 640, 641):
    print(f"context of {tokens} tokens -> compact? {should_compact(tokens, CAPSTONE_WINDOW, settings)}")

assert should_compact(640, CAPSTONE_WINDOW, settings) is False, "exactly at the threshold must not compact (L2)"
assert should_compact(641, CAPSTONE_WINDOW, settings) is True, "one token above the threshold must compact (L2)"
"""),
    ("md", r"""
### Where the token numbers come from

The runtime never knows the true size of a prompt before sending it. It
*estimates* with the heuristic `ceil(characters / 4)` per message (a tool call
counts its name plus its JSON arguments). The provider *counts*, and its count is
what the response reports as `usage`. In this simulation the scripted provider
also charges 4 tokens of chat framing per message, which the heuristic does not
see. That gap is realistic, and it is exactly why overflow recovery exists: the
estimate can say "fits" while the provider says "prompt is too long".

The threshold check uses the **reported** usage of the last response, and it runs
only between runs, after the agent's run has ended — never in the middle of a
streaming turn.
"""),
    ("md", r"""
## 2. Forty turns

The scripted session is a small coding task: add a `--dry-run` flag to a sync
tool. Most turns are short; some read or edit files; turn 25 reads a long log
file. The session starts with a `context_budget` metadata entry and the system
prompt, then each `prompt()` runs one user turn to its end.
"""),
    ("code", r"""
session, model, prompts = capstone_session()
results = [session.prompt(text) for text in prompts]
entries = session.store.entries()
timeline = events_frame(session.events)

print(f"{len(prompts)} turns, {len(model.requests)} model requests, {len(entries)} entries in the log, {len(timeline)} events")
"""),
    ("md", r"""
### The event timeline

Every turn emits `agent_start`, a `message_end` per appended message, and
`agent_end`. The full table is long, so here are only the events of the turns in
which something other than that happened.
"""),
    ("code", r"""
special = timeline[~timeline["type"].isin(["agent_start", "message_end", "agent_end"])]
print("turns with a compaction:", sorted(set(special["turn"])))
special.drop(columns=["detail"])
"""),
    ("code", r"""
ends = [e for e in session.events if e.type == "compaction_end"]
assert [e.reason for e in ends] == ["threshold", "overflow", "threshold"], "expected: threshold, overflow, threshold"
assert all(r.answer.stop_reason == "stop" for r in results), "every turn should end with a real answer"
"""),
    ("md", r"""
Three compactions: the context crossed the threshold twice (turns 16 and 34), and
turn 25 overflowed and was recovered. Here is the whole of turn 25, the overflow
turn, event by event:
"""),
    ("code", r"""
columns = ["type", "entry_id", "role", "stop_reason", "reason", "attempt", "context_tokens", "tokens_after", "first_kept_entry_id", "will_retry"]
timeline[timeline["turn"] == 25][columns]
"""),
    ("md", r"""
Read it against the six steps of the lesson:

1. the run ends (`agent_end` after `a25.2`) → the post-run hook checks for compaction;
   `a25.2` stopped with `error`, and the provider said the prompt was too long
   (852 tokens for an 800-token window): an **overflow**;
2. `compaction_start {reason: overflow, attempt: 1}` is emitted;
3. the summarizer writes the 7-field summary of everything before the cut;
4. the compaction entry `c2` is **appended** through the same `store.append` as
   every message (L5);
5. the context is rebuilt for accounting: `compaction_end` reports `tokens_after`;
6. the agent continues (`agent_start` again, `will_retry` is true) and `a25.3` is
   the real answer.

The failed response `a25.2` is still in the log — but it is *not* in the retry's
context. The compaction's parent is the entry before the failure, so the failure
sits on a side branch of the session tree: audit can still see it, the model never
sees it again.
"""),
    ("code", r"""
by_id = {e.id: e for e in entries}
c2 = by_id["c2"]
retry_request = model.requests[42]  # request 43: the retry
print("failed response in the log:", "a25.2" in by_id, "| stop reason:", by_id["a25.2"].message.stop_reason)
print("c2.parentId:", c2.parent_id, "(the failed response's parent is", by_id["a25.2"].parent_id + ")")
print("roles sent in the retry:", [m["role"] for m in retry_request.messages])

active = {e.id for e in path_to(entries, session.leaf_id)}
assert "a25.2" in by_id and "a25.2" not in active, "the failure stays in the log but leaves the active path"
assert all(m.get("stopReason") != "error" for m in retry_request.messages), "the retry must not resend the failed response"
"""),
    ("md", r"""
### Context size over time

Each point is one request: the prompt tokens the provider counted. The dashed
lines are the threshold (640) and the window (800); a vertical line marks each
compaction.
"""),
    ("code", r"""
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

fig, ax = plt.subplots(figsize=(10, 4))
ok = requests[requests["outcome"] == "reply"]
bad = requests[requests["outcome"] != "reply"]
ax.plot(ok["request"], ok["prompt_tokens"], marker=".", linewidth=1, label="prompt tokens (reported)")
ax.scatter(bad["request"], bad["prompt_tokens"], marker="x", s=80, color="red", zorder=3, label="overflow (prompt is too long)")
ax.axhline(threshold, linestyle="--", color="orange", label=f"threshold = window - reserve = {threshold}")
ax.axhline(CAPSTONE_WINDOW, linestyle="--", color="red", linewidth=0.8, label=f"window = {CAPSTONE_WINDOW}")
for entry_id, (after, reason) in requests_before.items():
    ax.axvline(after + 0.5, color="grey", linewidth=0.8)
    ax.annotate(f"{entry_id} ({reason})", (after + 0.6, 60), rotation=90, fontsize=8, color="grey")
ax.set_xlabel("model request")
ax.set_ylabel("tokens")
ax.set_ylim(0, CAPSTONE_WINDOW + 100)
ax.legend(loc="upper left", fontsize=8)
ax.set_title("The context grows, is compacted, grows again — the log never shrinks")
plt.show()
"""),
    ("md", r"""
The saw-tooth is the context; the log behind it only grows. Look closely at the
overflow. Turn 25's first request (641 tokens) was already above the threshold,
yet nothing happened: the check runs only when a run ends, never in the middle of
one. The model asked to read a long log, the tool result arrived mid-run, and the
next request (852 tokens) no longer fit the window. The threshold is maintenance;
overflow recovery is the safety net for what maintenance cannot see coming.

## 3. The compaction entries

Each compaction is one appended entry. `firstKeptEntryId` is the boundary: from
that entry on, the raw messages still count; everything before it is represented
by the summary. The cut always falls on the first user message of a whole
interaction group (L3): walking groups newest → oldest, the runtime keeps just
enough groups to reach `keep_recent_tokens` (120 here).
"""),
    ("code", r"""
compactions = [e for e in entries if e.type == "compaction"]
pd.DataFrame(
    [
        {"id": e.id, "parentId": e.parent_id, "firstKeptEntryId": e.first_kept_entry_id, "tokensBefore": e.tokens_before,
         "goal": e.summary.goal, "changed files": ", ".join(e.summary.changed_files)}
        for e in compactions
    ]
).set_index("id")
"""),
    ("code", r"""
print(compaction_summary_text(compactions[0].summary))
"""),
    ("md", r"""
That text is what the model reads in place of turns 1–11: one synthetic user
message right after the system prompt. It was written by the offline summarizer,
which fills the seven fields from the transcript itself: the goal from the first
user message, constraints from sentences with *must / never / only*, changed files
from the `path` argument of edit and write tool calls, unresolved items from tool
results that failed and were not later fixed. In production this is a model call,
and any callable with the same shape can take its place.

## 4. Why append? Three benefits, each measured

### Benefit 1 — replay and audit

Every response entry's `parentId` is the leaf its request was built from, and the
budget is a `context_budget` entry in the log. So the log alone can rebuild the
exact message list the model received at **any** past request — including the one
that overflowed. The scripted model kept a copy of everything it was sent; compare.
"""),
    ("code", r"""
checks = demonstrate_replay(entries, model.requests)
replay = pd.DataFrame([vars(c) for c in checks]).set_index("request")
print(f"{replay['matches'].sum()} of {len(replay)} requests rebuilt exactly from the log")
replay.loc[[1, 41, 42, 43, 65]]
"""),
    ("code", r"""
assert replay["matches"].all(), "every past request must be rebuilt exactly from the log"
"""),
    ("md", r"""
A history that was rewritten in place could not do this: the messages of request
20 would be gone or changed by request 40, and "what did the model see when it
made that edit?" would need a backup.

### Benefit 2 — a stable prompt prefix

Providers cache prompts by **prefix**: if a request starts with exactly the same
messages as the previous one, that part is cheap and fast. Append-only history
makes each request the previous one plus something new, so the prefix only breaks
when a compaction replaces the head. The comparison strategy rewrites history at
every request instead — it re-summarises everything but the newest interaction —
so the message right after the system prompt changes whenever a new interaction
starts. Same session, same requests, two strategies:
"""),
    ("code", r"""
append_only, rewrite = demonstrate_prefix_reuse(entries)
prefix_reuse_table(append_only, rewrite)
"""),
    ("code", r"""
assert append_only.prefix_breaks == len(compactions), "append-only breaks the prefix only at compactions"
assert append_only.token_ratio > rewrite.token_ratio, "append-only should reuse more of each prompt"
"""),
    ("md", r"""
*Reused tokens* is the share of each request's (estimated) tokens that repeat the
previous request's prefix, summed over all requests after the first. The
append-only prefix breaks three times — once per compaction — and the rewrite
strategy breaks at almost every new interaction.

### Benefit 3 — one writer at a time

Appending is safe when exactly one writer owns the session file. A second writer
is refused at once with a clear error instead of interleaving its lines with the
first one's. The lock is an `fcntl.flock` on a sidecar `.lock` file, wrapped around
a `JsonlSessionStore`.
"""),
    ("code", r"""
with tempfile.TemporaryDirectory() as folder:
    writer_demo = demonstrate_single_writer(Path(folder) / "session.jsonl", entries[:6])

print("second writer refused:", writer_demo.refused)
print("error:", writer_demo.error)
print(f"the first writer appended {writer_demo.first_writer_appended} entries; lines on disk: {writer_demo.lines_on_disk}")
assert writer_demo.refused, "a second writer must be refused while the first holds the session"
assert writer_demo.lines_on_disk == writer_demo.first_writer_appended, "only the first writer's lines are on disk"
"""),
    ("md", r"""
## 5. Three pitfalls, provoked

### Pitfall 1 — treating a compaction as a failure, ending the turn early

An outside consumer (a UI, an orchestrator) must decide when a turn is over. Two
candidates listen to the events of turn 25: one ends the turn at the first final
assistant `message_end`; the other waits for `agent_end`, and lets a
`compaction_end {will_retry: true}` reopen the turn.
"""),
    ("code", r"""
turn_25 = [e for e in session.events if e.turn == 25]
early, patient = MessageEndConsumer(), AgentEndConsumer()
for event in turn_25:
    early(event)
    patient(event)

pd.DataFrame(
    [
        {"consumer": "stops at message_end", "verdict": early.verdict, "events seen": len(early.seen),
         "events missed": ", ".join(e.type for e in early.missed)},
        {"consumer": "waits for agent_end", "verdict": patient.verdict, "events seen": len(patient.seen), "events missed": ""},
    ]
).set_index("consumer")
"""),
    ("code", r"""
assert early.verdict.startswith("failed"), "the message_end consumer should have mistaken the overflow for the end"
assert patient.verdict == "answered (a25.3)", "the agent_end consumer should report the retry's real answer"
"""),
    ("md", r"""
The first consumer tells the user the turn failed, while the runtime quietly
compacts and answers. A compaction is maintenance, not an error; it happens
*between* the last `message_end` and the end of the turn.

### Pitfall 2 — a summary stored without `firstKeptEntryId`

Suppose an implementation stores only the summary. The course's parser refuses
such an entry outright:
"""),
    ("code", r"""
broken = to_json_dict(compactions[0])
del broken["firstKeptEntryId"]
try:
    parse_session_entry(broken)
except ValueError as error:
    print(f"{type(error).__name__}: {error}")
"""),
    ("md", r"""
And it is right to. Without the boundary, a resume has to guess which raw messages
still count. At the end of the session there are only two guesses, and both are
wrong:
"""),
    ("code", r"""
final_path = path_to(entries, session.leaf_id)
budget = dict(max_tokens=CAPSTONE_WINDOW, reserved_output=0, safety_margin=0, estimate_tokens=estimate_tokens_chars)
with_boundary = build_context(final_path, **budget)

messages = [e for e in final_path if e.type == "message" and e.message.role != "system"]
summary_cost = estimate_tokens_chars(with_boundary.messages[1])
system_cost = with_boundary.tokens.system
guess_all = system_cost + summary_cost + sum(estimate_tokens_chars(e.message) for e in messages)
guess_none = system_cost + summary_cost

pd.DataFrame(
    [
        {"resume": "with firstKeptEntryId", "raw messages kept": len(with_boundary.kept_entry_ids), "estimated tokens": with_boundary.tokens.system + with_boundary.tokens.messages, "problem": ""},
        {"resume": "guess: every raw message still counts", "raw messages kept": len(messages), "estimated tokens": guess_all, "problem": "summarised twice; over the window"},
        {"resume": "guess: no raw message counts", "raw messages kept": 0, "estimated tokens": guess_none, "problem": "recent detail lost"},
    ]
).set_index("resume")
"""),
    ("code", r"""
assert guess_all > CAPSTONE_WINDOW, "without the boundary, 'keep everything' no longer fits"
"""),
    ("md", r"""
### Pitfall 3 — `reserve_tokens = 0`

With no reserve, the threshold is the window itself: compaction would start only
when there is no room left to produce the summary. The settings refuse it, and a
session also refuses a reserve smaller than what its summarizer says it needs:
"""),
    ("code", r"""
try:
    CompactionSettings(reserve_tokens=0)
except CompactionSettingsError as error:
    print(f"{type(error).__name__}: {error}")

try:
    capstone_session(settings=CompactionSettings(reserve_tokens=60, keep_recent_tokens=120))
except CompactionSettingsError as error:
    print(f"{type(error).__name__}: {error}")

print("the capstone's summarizer needs", OfflineSummarizer(max_summary_tokens=CAPSTONE_SUMMARY_TOKENS).min_reserve_tokens, "tokens")
"""),
    ("md", r"""
## 6. Exit questions

Answer each in two or three sentences, out loud or in a cell of your own, before
opening the hint.

1. **Walk through one compaction in six steps**, from the end of a run to the
   agent carrying on. Where in that sequence is the entry written, and why is it
   written with the same call as every other entry?

<details><summary>Hint</summary>
Run ends → post-run check → <code>compaction_start</code> → summary → the entry is
appended (one append path, so the single-writer rule covers it too) →
<code>compaction_end</code> with <code>tokens_after</code> → continue (retry after an overflow).
Compare with the turn-25 table above.
</details>

2. **For each of the three benefits, describe how a rewrite-the-history design
   would break it.** One concrete scenario each: an audit question that can no
   longer be answered, a bill that goes up, a corrupted file.

<details><summary>Hint</summary>
Replay: the request that made a bad edit can no longer be reconstructed. Cache: the
rewrite row of the prefix table. Concurrency: a rewrite needs the whole file, so two
writers race on it; an append needs one line and one lock.
</details>

3. **What signal tells an outside consumer that a turn is over, and why not a
   `message_end`?**

<details><summary>Hint</summary>
<code>agent_end</code> — and a <code>compaction_end</code> with <code>will_retry</code>
means the runtime continues. A compaction can sit between the last
<code>message_end</code> and the real end of the turn (pitfall 1).
</details>
"""),
]


def build() -> nbformat.NotebookNode:
    notebook = new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, source in CELLS:
        text = source.strip("\n")
        notebook.cells.append(new_markdown_cell(text) if kind == "md" else new_code_cell(text))
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"capstone-{index:02d}"  # stable ids: rebuilding does not churn the file
    return notebook


if __name__ == "__main__":
    nbformat.write(build(), TARGET)
    print(f"wrote {TARGET.relative_to(ROOT)}")
