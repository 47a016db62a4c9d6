"""Lab 11.5: resume from the latest compaction (R5, R6, R16, R18).

Equivalent mutant, left out: dropping the ``first_kept not in ids`` test in
``resume_candidates``. ``ids.index(first_kept)`` then raises Python's own
``ValueError: 'x' is not in list``, which is still a ValueError naming the id,
so no check or hidden case (nor a learner) can tell it from the lab's error.
"""

from __future__ import annotations

from . import mutant
from .lab_11_3 import COPIES, METADATA_DELETED, REPLAY, shared

LAB = "11.5"
ROOM = "    room = max(0, available - summary_cost)"
ROLE_CHECK = """    if first.type != "message" or first.message.role != "user":
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not a user message (R18)",
            entry_id=first_kept,
        )
"""
SHARED = (
    "fits_only_below",
    "skips_and_goes_on",
    "skips_once_something_is_kept",
    "off_by_one_fit",
    "no_clamp_at_zero",
    "estimator_gets_originals",
    "estimates_only_walked_groups",
    "results_share_messages",
    "newest_group_first",
    "overflow_returns_nothing",
    "within_budget_only_when_empty",
    "bools_are_numbers",
)

MUTANTS = (
    *shared(LAB, "room", SHARED),
    mutant(
        LAB,
        "summary_not_charged",
        "R18 R22",
        "the summary costs nothing",
        ("summary_cost = cost(summary)", "summary_cost = 0"),
    ),
    mutant(
        LAB,
        "summary_not_deducted",
        "R18",
        "the summary is counted in tokens but not deducted before choosing groups",
        (ROOM, "    room = available"),
    ),
    mutant(
        LAB,
        "summary_outside_messages",
        "R22",
        "the summary's cost is left out of tokens.messages",
        ("messages_cost = summary_cost + used", "messages_cost = used"),
    ),
    mutant(
        LAB,
        "summary_charged_twice",
        "R18 R22",
        "the summary's cost is deducted and counted twice",
        ("    used = 0\n", "    used = summary_cost\n"),
    ),
    mutant(
        LAB,
        "summary_in_system_tokens",
        "R22",
        "the summary's cost is reported as system tokens",
        ("            system=system_cost,\n", "            system=system_cost + summary_cost,\n"),
        ("messages_cost = summary_cost + used", "messages_cost = used"),
    ),
    mutant(
        LAB,
        "room_not_clamped",
        "R17 R18",
        "room for groups goes negative when the summary costs more than is available",
        (ROOM, "    room = available - summary_cost"),
    ),
    mutant(
        LAB,
        "available_after_summary",
        "R17 R22",
        "availableForMessages is reported with the summary already deducted",
        (ROOM, "    available = room = max(0, available - summary_cost)"),
    ),
    mutant(
        LAB,
        "summary_after_kept",
        "R18 R21",
        "the summary is placed after the kept messages",
        (
            COPIES,
            'messages=[m for m in head if m.role == "system"] + [copy.deepcopy(entry.message) for entry in kept_entries]'
            ' + [m for m in head if m.role != "system"],',
        ),
    ),
    mutant(
        LAB,
        "summary_before_system",
        "R18 R21",
        "the summary is placed before the system message",
        ("head.append(summary)", "head.insert(0, summary)"),
    ),
    mutant(
        LAB,
        "oldest_compaction",
        "R18",
        "the oldest compaction is read, not the latest",
        ("for entry in reversed(active_path):", "for entry in active_path:"),
    ),
    mutant(
        LAB,
        "system_from_suffix",
        "R16",
        "the system message is replayed from the resumed suffix only",
        (
            REPLAY,
            "system = current_system_message([entry.message for entry in (resume_candidates(active_path, "
            "latest_compaction(active_path)) if latest_compaction(active_path) else message_entries)])",
        ),
        says=(
            (
                14,
                "R16/R5: the system message replayed from the whole path, the compacted part included, not from the "
                "entries after the compaction alone",
                "R16/R5：从整条路径（包括已压缩的部分）重放的 system message，而不是只从压缩之后的 entry 重放",
            ),
        ),
    ),
    mutant(
        LAB,
        "system_from_kept_part",
        "R16",
        "the system message is replayed from the kept groups' part of the path only",
        (
            COPIES,
            "messages=[m for m in [current_system_message([e.message for e in message_entries[[e.id for e in message_entries]"
            ".index(kept_entries[0].id):]]) if kept_entries else system] if m is not None]"
            " + head[1 if system is not None else 0:] + [copy.deepcopy(entry.message) for entry in kept_entries],",
        ),
    ),
    mutant(
        LAB,
        "system_up_to_compaction",
        "R16",
        "system patches after the compaction are not replayed",
        (
            REPLAY,
            "system = current_system_message([entry.message for entry in message_entries "
            "if entry.timestamp <= (latest_compaction(active_path) or entry).timestamp])",
        ),
    ),
    mutant(
        LAB,
        "starts_at_compaction",
        "R18",
        "the suffix starts after the compaction, not at firstKeptEntryId",
        ("    start = ids.index(first_kept)\n", "    start = ids.index(compaction.id)\n"),
    ),
    mutant(
        LAB,
        "first_kept_role_unchecked",
        "R18",
        "firstKeptEntryId may name a system message or a metadata entry",
        (ROLE_CHECK, ""),
    ),
    mutant(
        LAB,
        "first_kept_backs_up_to_group",
        "R18",
        "a firstKeptEntryId inside a group is accepted: its group is kept",
        (
            ROLE_CHECK,
            '    while start > 0 and not (active_path[start].type == "message" and active_path[start].message.role == "user"):\n'
            "        start -= 1\n",
        ),
    ),
    mutant(
        LAB,
        "first_kept_after_compaction",
        "R18",
        "a firstKeptEntryId after the compaction is accepted",
        (" or ids.index(first_kept) > ids.index(compaction.id)", ""),
    ),
    mutant(
        LAB,
        "metadata_in_candidates",
        "R18",
        "metadata and compaction entries are handed to group_interactions",
        (
            'return [entry for entry in active_path[start:] if entry.type == "message"]',
            "return list(active_path[start:])",
        ),
    ),
    mutant(
        LAB,
        "first_kept_ignored",
        "R18",
        "the whole path is sent after the summary, summarized messages included",
        ("        candidates = resume_candidates(active_path, compaction)\n", ""),
    ),
)

MUTANTS = (
    *MUTANTS,
    mutant(
        LAB,
        "deletes_metadata",
        "R23",
        "metadata entries are deleted from the caller's path (they are never sent)",
        METADATA_DELETED,
    ),
    mutant(
        LAB,
        "first_kept_exclusive",
        "R18",
        "firstKeptEntryId is treated as exclusive: the suffix starts after it",
        (
            'return [entry for entry in active_path[start:] if entry.type == "message"]',
            'return [entry for entry in active_path[start + 1 :] if entry.type == "message"]',
        ),
    ),
)
