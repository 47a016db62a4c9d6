"""Lab 11.4: create_compaction_entry (R24–R28).

Equivalent mutant, left out: computing the group starts as "every user
message" instead of through ``group_interactions``. Each user message opens a
group (R11), so on every valid path the two sets are equal; they differ only
on a path whose tool facts are broken, which no store, check or hidden case of
this lab hands to the function (a stored path was grouped before).

Equivalent mutant, left out: dropping the empty-path test. On an empty path no
id can start a group, so the firstKeptEntryId test still rejects it with a
ValueError before ``path[-1]`` is reached; R25 asks only for an error there.
"""

from __future__ import annotations

from . import mutant

LAB = "11.4"
TAKEN = '    if any(entry.id == id for entry in path):\n        raise CompactionError(f"entry id {id!r} is already on the path (R26)", entry_id=id)\n'
CHECK = "    if first_kept_entry_id not in group_starts:\n"

MUTANTS = (
    mutant(
        LAB,
        "empty_path_index_error",
        "R25",
        "an empty path raises IndexError, not a ValueError",
        ('raise CompactionError("cannot compact', 'raise IndexError("cannot compact'),
    ),
    mutant(LAB, "duplicate_id_unchecked", "R26", "an id already on the path is accepted", (TAKEN, "")),
    mutant(
        LAB,
        "duplicate_id_messages_only",
        "R26",
        "only message entries are searched for a taken id",
        (
            "if any(entry.id == id for entry in path):",
            'if any(entry.id == id for entry in path if entry.type == "message"):',
        ),
    ),
    mutant(
        LAB,
        "duplicate_id_unnamed",
        "R26",
        "the error for a taken id does not name it",
        ('f"entry id {id!r} is already on the path (R26)"', '"the new id is already on the path (R26)"'),
    ),
    mutant(
        LAB,
        "first_kept_unchecked",
        "R27",
        "firstKeptEntryId is only checked to be given",
        (CHECK, "    if not first_kept_entry_id:\n"),
    ),
    mutant(
        LAB,
        "first_kept_any_entry",
        "R27",
        "any entry on the path may be the first kept entry",
        (CHECK, "    if first_kept_entry_id not in {entry.id for entry in path}:\n"),
    ),
    mutant(
        LAB,
        "first_kept_any_message",
        "R27",
        "any message may be the first kept entry",
        (
            "group_starts = {group.entries[0].id for group in group_interactions(message_entries)}",
            "group_starts = {entry.id for entry in message_entries}",
        ),
    ),
    mutant(
        LAB,
        "first_kept_unnamed",
        "R27",
        "the error for a bad firstKeptEntryId does not name it",
        ('f"firstKeptEntryId {first_kept_entry_id!r} is {what}, "', 'f"firstKeptEntryId is {what}, "'),
    ),
    mutant(
        LAB,
        "parent_is_root",
        "R25",
        "parentId is the path's first entry",
        ('"parentId": path[-1].id,', '"parentId": path[0].id,'),
    ),
    mutant(
        LAB,
        "parent_is_last_message",
        "R25",
        "parentId is the last message entry, skipping a trailing metadata entry",
        ('"parentId": path[-1].id,', '"parentId": message_entries[-1].id,'),
    ),
    mutant(
        LAB,
        "appends_to_path",
        "R24",
        "the new entry is appended to the caller's path",
        ("    return parse_session_entry({", "    created = parse_session_entry({"),
        (
            '        "tokensBefore": tokens_before,\n    })\n',
            '        "tokensBefore": tokens_before,\n    })\n    active_path.append(created)\n    return created\n',
        ),
        says=(
            (
                11,
                "R24: the path after creating a compaction keeping from 'u1' (it must not change)",
                "R24：创建从 'u1'",
            ),
        ),
    ),
    mutant(
        LAB,
        "tokens_before_rounded",
        "R4 R28",
        "tokensBefore is rounded down to an int",
        ('"tokensBefore": tokens_before,', '"tokensBefore": int(tokens_before),'),
    ),
    mutant(
        LAB,
        "timestamp_from_path",
        "R28",
        "the timestamp argument is ignored (last entry's + 1)",
        ('"timestamp": timestamp,', '"timestamp": path[-1].timestamp + 1,'),
    ),
)
