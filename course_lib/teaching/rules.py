"""The course's rules, in one table: what each rule asks, and which checks test it.

Every notebook, docstring, error message and check cites rules by these ids
(R1–R28 for the chapter, L1–L6 for the compaction lifecycle, M1–M4 for the optional migration lab). docs/rules.md is
generated from this table (``python -m course_lib.checklist.rules_page``), and so are the rule
ranges the README and the start page show for each lab; a test keeps them equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    topic: str
    text: str


RULES: tuple[Rule, ...] = (
    # --- entries and their wire format
    Rule(
        "R1",
        "parsing",
        "The parser is strict: an unknown key anywhere (old names such as `summary.files` or an "
        "entry-level `compactedEntryIds` included), a missing key, a NaN or infinite number, a boolean where a "
        "number belongs, or a list item that is not a string is refused, never dropped or converted.",
    ),
    Rule(
        "R2",
        "parsing",
        "A refusal names the entry id, when it could be read, and the path of the bad field, "
        "for example `session compaction compact-1.summary.decisions[1] must be a string`.",
    ),
    Rule(
        "R3",
        "parsing",
        "A parsed entry is a new object that shares nothing changeable with its input: editing "
        "either one afterwards never changes the other.",
    ),
    Rule(
        "R4",
        "parsing",
        "`tokensBefore` is the caller's record and is kept as given; the parser only checks that "
        "it is a finite number of at least 0, it never estimates it again.",
    ),
    # --- the system prompt
    Rule(
        "R5",
        "system prompt",
        "The current system message is replayed from every system message on the path, in "
        "order: non-empty `content` values are joined with a blank line, `sections` replace earlier sections of "
        "the same name, and a `null` section removes it. It keeps the first system message's timestamp; with no "
        "system message there is none.",
    ),
    Rule(
        "R6",
        "system prompt",
        "Worked example: `sys` (content `BASE`, section `rules: RULE v1`), `patch-1` (empty "
        "content, `rules: RULE v2`) and `patch-2` (`Prefer small diffs.`) replay to content "
        "`BASE\\n\\nPrefer small diffs.` with the single section `rules: RULE v2`.",
    ),
    # --- stores and paths
    Rule(
        "R7",
        "stores",
        "Both stores parse a snapshot of every appended entry (R3 holds), refuse a duplicate id "
        "or a parent they do not hold (only a root has `parentId: null`), and hand out copies.",
    ),
    Rule(
        "R8",
        "stores",
        "A JSONL store writes one entry per line; the newline commits it. A last line without "
        "a newline is an unterminated tail: it is skipped with a warning naming its line, and the store "
        "refuses to append until it is dealt with. A bad committed line is an error naming its line. After a "
        "failed write the store refuses every later append. Nothing already on disk is ever rewritten.",
    ),
    Rule("R9", "stores", "Reopening a JSONL file gives back entries equal to the ones appended, compactions included."),
    Rule(
        "R10",
        "stores",
        "`path_to(entries, leaf_id)` returns copies from the root to the leaf and refuses "
        "duplicate ids, an unknown leaf, a missing parent on the way and a cycle.",
    ),
    # --- interaction groups
    Rule(
        "R11",
        "groups",
        "`group_interactions` skips system messages; every user message closes the current "
        "group and opens the next one; any other message before the first user message is an error naming it.",
    ),
    Rule(
        "R12",
        "groups",
        "Inside a group, tool calls and results are matched by id, never by position or "
        "completion order: each call id is declared once, each result answers a call of the same group, a call "
        "has at most one result, and every call has its result when the group ends. A violation names the call "
        "id and the entries involved.",
    ),
    Rule("R13", "groups", "Groups keep the path's order and hold copies of its entries."),
    Rule("R14", "groups", "A system message between or inside groups is skipped: it never splits or joins a group."),
    # --- build_context
    Rule(
        "R15",
        "projection",
        "`max_tokens`, `reserved_output`, `safety_margin` and every estimate must be finite "
        "numbers of at least 0 (a boolean is not a number). Every candidate message is estimated, on a copy: "
        "the estimator never sees the session's own objects.",
    ),
    Rule(
        "R16",
        "projection",
        "The system message is replayed (R5) from the whole active path, compacted part "
        "included, and costs `tokens.system` (0 without one).",
    ),
    Rule(
        "R17",
        "projection",
        "`available_for_messages = max(0, max_tokens − system − reserved_output − "
        "safety_margin)`: fixed costs come first, and what is left is never negative.",
    ),
    Rule(
        "R18",
        "projection",
        "Only the latest compaction on the path counts. Its summary becomes one synthetic "
        "user message right after the system message, in the summary text format below, and its cost comes "
        "out of the allowance first (what is left for groups is never below 0). Candidates are the message "
        "entries from `firstKeptEntryId` on, which must be a user message before that compaction and the "
        "first entry of the first group; system messages there are folded into the replayed head.",
    ),
    Rule(
        "R19",
        "projection",
        "Groups are taken newest first while they fit, and the first group that does not "
        "fit stops the selection: what is kept is a contiguous run of whole groups at the end. A group is "
        "never split.",
    ),
    Rule(
        "R20",
        "projection",
        "`reason` is `within_budget` (nothing dropped, an empty path included), `trimmed` "
        "(older groups dropped) or `single_group_overflow` (the newest group alone is too big; it is sent "
        "whole and the total may exceed `max_tokens`).",
    ),
    Rule(
        "R21",
        "projection",
        "`messages` is the system message (if any), then the summary (if any), then the kept "
        "messages, all copies; `kept_entry_ids` names only entries of the path, never the replayed system "
        "message or the summary.",
    ),
    Rule(
        "R22",
        "projection",
        "`tokens` holds `maxTokens`, `system`, `messages` (summary plus kept groups), "
        "`reservedOutput`, `safetyMargin`, `availableForMessages` and `total = system + messages + "
        "reservedOutput + safetyMargin`.",
    ),
    Rule(
        "R23",
        "projection",
        "The same path and options give equal results, and every result stands alone: "
        "changing one changes neither the session nor a later build.",
    ),
    # --- create_compaction_entry
    Rule(
        "R24",
        "compaction",
        "`create_compaction_entry` only returns a new entry: it changes neither the path "
        "nor any store; appending it is the caller's decision.",
    ),
    Rule(
        "R25", "compaction", "The new entry's `parentId` is the id of the path's last entry; an empty path is an error."
    ),
    Rule("R26", "compaction", "The new id must not already be on the path."),
    Rule(
        "R27",
        "compaction",
        "`firstKeptEntryId` must be the first entry of one of the path's interaction groups; "
        "an assistant message, a tool call or result, a system message, a metadata entry or an unknown id is "
        "refused with an error naming it.",
    ),
    Rule(
        "R28",
        "compaction",
        "The new entry goes through the same strict parser (R1–R4) and shares nothing with the arguments.",
    ),
    # --- the lifecycle (capstone)
    Rule(
        "L1",
        "lifecycle",
        "Compaction settings default to enabled, a reserve of 16384 tokens and 20000 recent "
        "tokens kept; a reserve of 0, or smaller than the summarizer needs, is refused: a summary needs room "
        "in the window too.",
    ),
    Rule(
        "L2",
        "lifecycle",
        "Compact when the context's tokens exceed the window minus the reserve (strictly "
        "greater); invalid numbers are errors.",
    ),
    Rule(
        "L3",
        "lifecycle",
        "The cut point keeps about `keep_recent_tokens` of the newest history as whole groups: "
        "walking groups newest first, the first kept entry opens the oldest group needed to reach the target. "
        "If everything fits there is nothing to compact.",
    ),
    Rule(
        "L4",
        "lifecycle",
        "Recovering from a context overflow is bounded by an attempt cap; when it is spent "
        "the session fails clearly instead of compacting again and again. A `single_group_overflow` is "
        "reported, not hidden.",
    ),
    Rule(
        "L5",
        "lifecycle",
        "Every compaction is appended as an entry with its `firstKeptEntryId`; nothing in the "
        "log is rewritten or deleted.",
    ),
    Rule(
        "L6",
        "lifecycle",
        "Events come in a fixed order: `agent_start`, `message_end`…, `agent_end`, then "
        "`compaction_start`, `compaction_end`, and `agent_start` again when the agent continues.",
    ),
    # --- migrating old records (the optional Lab 11.6)
    Rule(
        "M1",
        "migration",
        "Old records are migrated at the boundary, by a function in front of the parser, so the parser, the "
        "stores and `build_context` keep one shape (R1). The migration returns a new record in today's shape "
        "(`invariants` becomes `constraints`, `files` becomes `changedFiles`, `nextSteps` becomes `next`, the "
        "fields in today's order) and never changes the record it was given, so an audit can still show the "
        "original.",
    ),
    Rule(
        "M2",
        "migration",
        "An old record's `compactedEntryIds` (the ids it summarized) becomes `firstKeptEntryId`: the first entry "
        "of the first group it left unsummarized on the path it continues, counted from the latest earlier "
        "compaction's first kept entry. It is refused, naming the entry id and `compactedEntryIds`, when that "
        "entry does not open a group (R18, R27), an id is not on the path, a summarized entry comes after the "
        "kept ones, or nothing is kept.",
    ),
    Rule(
        "M3",
        "migration",
        "A missing list becomes empty only where the old shape allowed it (`decisions` and `unresolved`); a "
        "missing required list, an unknown field, or today's name beside the old one is refused with an error "
        "naming the entry id and the field. Nothing is dropped silently.",
    ),
    Rule(
        "M4",
        "migration",
        "A record already in today's shape, and every other entry, comes back as an equal copy for the parser "
        "to judge; a migrated record parses, reopens through both stores and projects exactly like the same "
        "record written natively.",
    ),
)

BY_ID = {rule.id: rule for rule in RULES}
RULE_ID = re.compile(r"\b([RLM]\d+)\b")


def cited(text: str) -> list[str]:
    """Rule ids in a citation such as ``"R17/R22"`` or ``"R1 R3"``, in order."""
    return RULE_ID.findall(text)


def ranges(ids: list[str]) -> str:
    """``["R1", "R2", "R3", "R7", "M1"]`` → ``"R1–R3, R7, M1"`` (runs of three or more of one family become ranges)."""
    parts: list[str] = []
    start = 0
    for index in range(1, len(ids) + 1):
        if index == len(ids) or ids[index][0] != ids[start][0] or int(ids[index][1:]) != int(ids[index - 1][1:]) + 1:
            run = ids[start:index]
            parts += [f"{run[0]}–{run[-1]}"] if len(run) >= 3 else run
            start = index
    return ", ".join(parts)
