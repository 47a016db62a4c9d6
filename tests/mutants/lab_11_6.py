"""Lab 11.6 (optional): old records migrated at the boundary (M1–M4, R18, R27).

The issue's four (an alias left for a parser that would accept it, the list's
first id taken for the first kept entry, an unknown field silently dropped, the
raw record changed in place) and the other plausible slips of the same
function. Equivalent mutant, left out: copying ``timestamp`` and ``tokensBefore``
without ``copy.deepcopy``: both are numbers, which nothing can change in place.
"""

from __future__ import annotations

from . import mutant

LAB = "11.6"
_TAKE = "migrated[new] = copy.deepcopy(summary[old_name])"
MUTANTS = (
    mutant(
        LAB,
        "alias_left_for_the_parser",
        "M1",
        "nextSteps is passed on under its old name, for a parser that would accept the alias (R1 refuses it)",
        (_TAKE, 'migrated[old_name if old_name == "nextSteps" else new] = copy.deepcopy(summary[old_name])'),
    ),
    mutant(
        LAB,
        "first_compacted_id",
        "M2",
        "compactedEntryIds is mapped to its first id, not to the start of the first group left unsummarized",
        ('record["firstKeptEntryId"] = first', 'record["firstKeptEntryId"] = compacted[0]'),
    ),
    mutant(
        LAB,
        "unknown_summary_field_dropped",
        "M3",
        "a summary field the draft shape does not have is silently dropped",
        ('raise fail(f"summary.{key}", "is not a field of the draft shape")', "continue"),
    ),
    mutant(
        LAB,
        "unknown_entry_field_dropped",
        "M3",
        "an entry field the draft shape does not have (firstKeptEntryId, summaryText) is silently dropped",
        ('raise fail(key, "is not a field of the draft shape")  # M3', "continue  # M3"),
    ),
    mutant(
        LAB,
        "raw_changed_in_place",
        "M1",
        "the draft's lists are moved out of the raw record (pop): the original is changed in place",
        (_TAKE, "migrated[new] = summary.pop(old_name)"),
    ),
    mutant(
        LAB,
        "lists_shared_with_raw",
        "M1",
        "the migrated record holds the raw record's own lists: changing one changes the other",
        (_TAKE, "migrated[new] = summary[old_name]"),
    ),
    mutant(
        LAB,
        "every_missing_list_empty",
        "M3",
        "every missing list becomes [], not only the ones the draft left out when empty",
        ("elif new in drafts.LEFT_OUT_WHEN_EMPTY:", 'elif new != "goal":'),
    ),
    mutant(
        LAB,
        "any_entry_kept_first",
        "M2",
        "the first unsummarized entry is kept even when it does not open a group (R27)",
        ("if first not in starts:", "if first not in on_path:"),
    ),
    mutant(
        LAB,
        "gap_ignored",
        "M2",
        "an entry summarized after the first kept one is ignored, so the kept part has a hole",
        ("late = [entry_id_ for entry_id_ in after if entry_id_ in compacted]", "late = []"),
    ),
    mutant(
        LAB,
        "earlier_compaction_ignored",
        "M2",
        "groups are counted from the path's start, not from the latest earlier compaction's first kept entry (R18)",
        (
            "        grouped = grouped[grouped.index(earlier[-1]):]  # R18: only the latest compaction counts\n",
            "        pass\n",
        ),
    ),
    mutant(
        LAB,
        "system_messages_counted",
        "M2",
        "system messages are counted with the groups' entries, so an unlisted sys is taken for the first kept entry",
        (
            'messages = [e for e in active_path if e.type == "message" and e.message.role != "system"]',
            'messages = [e for e in active_path if e.type == "message"]',
        ),
    ),
    mutant(
        LAB,
        "empty_list_accepted",
        "M2",
        "an empty compactedEntryIds is accepted: the draft seems to keep everything",
        ("if not isinstance(compacted, list) or not compacted or", "if not isinstance(compacted, list) or"),
    ),
    mutant(
        LAB,
        "todays_record_returned_itself",
        "M4",
        "a record in today's shape is returned as it is, not as a copy",
        ("return copy.deepcopy(dict(raw))  # M4", "return raw  # M4"),
    ),
)
