"""Lab 11.2: interaction groups and their tool facts (R11–R14).

Equivalent mutant, left out: sorting a group's entries by timestamp before
copying them. Along any path the course builds (the chapter's fixture, the
generated sessions, the lab's shorthand paths) timestamps grow with path order,
so the sort never moves an entry.
"""

from __future__ import annotations

from . import mutant

LAB = "11.2"

DUPLICATE_CALL = """                if block.id in calls:
                    raise tool_facts.declared_twice(block.id, calls[block.id], entry.id)
"""
DUPLICATE_RESULT = """            if call_id in results:
                raise tool_facts.answered_twice(call_id, results[call_id], entry.id)
"""
UNKNOWN_CALL = """    for call_id, result_id in results.items():
        if call_id not in calls:
            raise tool_facts.unknown_call(result_id, call_id, start)
"""
MISSING_RESULT = """    for call_id, call_entry in calls.items():
        if call_id not in results:
            raise tool_facts.unanswered(call_id, call_entry, start)
"""
BY_POSITION = """    for call_id, answered in zip(calls, results):  # the n-th result answers the n-th call
        if call_id != answered:
            raise InteractionError(f"result for {answered!r} arrived before the result for {call_id!r}", call_id=call_id)
"""
SKIP_SYSTEM = "        if isinstance(message, SystemMessage):\n            continue"
ORPHAN = """        elif not current:
            raise tool_facts.before_first_user(entry.id, message.role)
"""
LAST_GROUP = "    if current:\n        close(current)\n    return groups"

RESULT = "            call_id = message.tool_call_id\n"
CALL_FIRST = (
    RESULT
    + """            if call_id not in calls:
                raise InteractionError(
                    f"tool result {entry.id!r} answers call {call_id!r}, which was not made before it",
                    entry_ids=(entry.id,), call_id=call_id,
                )
"""
)

MUTANTS = (
    mutant(
        LAB,
        "result_before_call_refused",
        "R12",
        "a result must come after its call: one placed before it is rejected",
        (RESULT, CALL_FIRST),
    ),
    mutant(
        LAB,
        "paired_by_position",
        "R12",
        "results must come in the order of the calls",
        ("    start = group[0].id\n", BY_POSITION + "    start = group[0].id\n"),
    ),
    mutant(LAB, "duplicate_call_accepted", "R12", "a call id declared twice is not checked", (DUPLICATE_CALL, "")),
    mutant(
        LAB, "duplicate_result_accepted", "R12", "a second result for one call is not checked", (DUPLICATE_RESULT, "")
    ),
    mutant(
        LAB, "unknown_call_accepted", "R12", "a result naming no call of its group is not checked", (UNKNOWN_CALL, "")
    ),
    mutant(LAB, "missing_result_accepted", "R12", "a call without a result is not checked", (MISSING_RESULT, "")),
    mutant(
        LAB,
        "missing_result_unnamed",
        "R12",
        "the error for a call without a result names the entry, not the call id",
        (
            "            raise tool_facts.unanswered(call_id, call_entry, start)\n",
            "            raise InteractionError(\n"
            '                f"entry {call_entry!r} has a call without a result when the group starting at {start!r} ends",\n'
            "                entry_ids=(call_entry,), call_id=call_id,\n"
            "            )\n",
        ),
    ),
    mutant(
        LAB,
        "unknown_call_unnamed",
        "R12",
        "the error for a result of an unknown call names neither id",
        (
            "            raise tool_facts.unknown_call(result_id, call_id, start)\n",
            "            raise InteractionError(\n"
            '                f"a tool result answers an unknown call, which no assistant message in the group starting at {start!r} declared",\n'
            "                entry_ids=(result_id,), call_id=call_id,\n"
            "            )\n",
        ),
    ),
    mutant(
        LAB,
        "system_splits_group",
        "R14",
        "a system message closes the current group",
        (
            SKIP_SYSTEM,
            SKIP_SYSTEM.replace(
                "continue",
                "if current:\n                close(current)\n                current = []\n            continue",
            ),
        ),
    ),
    mutant(
        LAB,
        "system_joins_group",
        "R14",
        "a system message inside a group is kept in it",
        (SKIP_SYSTEM, SKIP_SYSTEM.replace("SystemMessage)", "SystemMessage) and not current")),
    ),
    mutant(
        LAB,
        "non_user_opens_group",
        "R11",
        "a message before the first user message opens a group",
        (ORPHAN, "        elif not current:\n            current = [entry]\n"),
    ),
    mutant(
        LAB,
        "orphan_not_a_value_error",
        "R11",
        "an orphan message raises RuntimeError, not a ValueError",
        (
            "            raise tool_facts.before_first_user(entry.id, message.role)\n",
            '            raise RuntimeError(f"entry {entry.id!r} ({message.role}) comes before the first user message")\n',
        ),
    ),
    mutant(
        LAB,
        "groups_share_entries",
        "R13",
        "groups hold the caller's entry objects",
        (
            "InteractionGroup(entries=tuple(copy.deepcopy(entry) for entry in group))",
            "InteractionGroup(entries=tuple(group))",
        ),
    ),
    mutant(
        LAB,
        "groups_in_a_namespace",
        "R13",
        "groups are SimpleNamespace objects holding the caller's entries: no course type, and the copy probe must "
        "enter it to see them shared",
        (
            "InteractionGroup(entries=tuple(copy.deepcopy(entry) for entry in group))",
            "__import__('types').SimpleNamespace(entries=tuple(group))",
        ),
    ),
    mutant(
        LAB,
        "shallow_copies",
        "R13",
        "copy.copy: the entries are new, their messages and tool arguments shared",
        ("copy.deepcopy(entry) for entry in group", "copy.copy(entry) for entry in group"),
    ),
    mutant(LAB, "last_group_dropped", "R11", "the last group is never closed", (LAST_GROUP, "    return groups")),
    mutant(
        LAB,
        "last_group_unchecked",
        "R12",
        "the last group is appended without checking its tool facts",
        (
            LAST_GROUP,
            "    if current:\n        groups.append(InteractionGroup(entries=tuple(copy.deepcopy(e) for e in current)))\n"
            "    return groups",
        ),
    ),
)
