"""Lab 11.3: build_context without compaction (R15–R17, R19–R23).

Equivalent mutants, left out: handing the estimator ``message`` instead of
``copy.deepcopy(message)``, and returning ``entry.message`` instead of a deep
copy, where ``entry`` comes from a group. ``group_interactions`` already
returns deep copies (R13), and the replayed system message is built anew, so
neither the estimator nor the result can reach the session's objects that
way; a later build groups again. The corpus holds the versions that do reach
them: estimating the path's own messages, and taking the kept messages from
the path by id.

``shared(lab, room, names)`` makes the mistakes Labs 11.3 and 11.5 can share
(their ``build_context`` cells differ only where the summary comes in): the
fit test compares against ``available`` in 11.3 and ``room`` in 11.5.
"""

from __future__ import annotations

from . import Mutant, mutant

LAB = "11.3"
FIXED = "max(0, max_tokens - system_cost - reserved_output - safety_margin)"
REPLAY = "system = current_system_message([entry.message for entry in message_entries])"
OPTIONS = (
    '    max_tokens = token_count("max_tokens", max_tokens)\n'
    '    reserved_output = token_count("reserved_output", reserved_output)\n'
    '    safety_margin = token_count("safety_margin", safety_margin)\n'
)
COSTS = (
    "    costs = [sum(cost(entry.message) for entry in group.entries) for group in groups]  # R15: every candidate\n"
)
LOOP = "    for group, group_cost in zip(reversed(groups), reversed(costs)):\n"
OVERFLOW = "        kept = [groups[-1]]\n        used = costs[-1]\n"
COPIES = "messages=head + [copy.deepcopy(entry.message) for entry in kept_entries],"


def shared(lab: str, room: str, names: tuple[str, ...] | None = None) -> tuple[Mutant, ...]:
    made = (
        mutant(
            lab,
            "fits_only_below",
            "R19",
            "a group that fills the room exactly is dropped (>= instead of >)",
            (f"used + group_cost > {room}:", f"used + group_cost >= {room}:"),
        ),
        mutant(
            lab,
            "off_by_one_fit",
            "R19",
            "the fit test leaves one token unused",
            (f"used + group_cost > {room}:", f"used + group_cost > {room} - 1:"),
        ),
        mutant(
            lab,
            "skips_and_goes_on",
            "R19",
            "a group that does not fit is skipped and older ones still tried",
            ("            break\n", "            continue\n"),
        ),
        mutant(
            lab,
            "skips_once_something_is_kept",
            "R19",
            "a group that does not fit is skipped for older ones, once a newer group is kept",
            ("            break\n", "            if kept:\n                continue\n            break\n"),
        ),
        mutant(
            lab,
            "no_clamp_at_zero",
            "R17",
            "available goes negative when fixed costs exceed max_tokens",
            (FIXED, FIXED[len("max(0, ") : -1]),
        ),
        mutant(lab, "off_by_one_available", "R17", "one token too few is available", (FIXED, FIXED[:-1] + " - 1)")),
        mutant(
            lab,
            "reserved_not_deducted",
            "R17",
            "reserved_output is not deducted from what is available",
            (FIXED, FIXED.replace(" - reserved_output", "")),
        ),
        mutant(
            lab,
            "margin_not_deducted",
            "R17",
            "safety_margin is not deducted from what is available",
            (FIXED, FIXED.replace(" - safety_margin", "")),
        ),
        mutant(
            lab,
            "system_not_deducted",
            "R17",
            "the system message's cost is not deducted from what is available",
            (FIXED, FIXED.replace(" - system_cost", "")),
        ),
        mutant(
            lab,
            "system_not_reported",
            "R22",
            "tokens.system stays 0",
            ("            system=system_cost,\n", "            system=0,\n"),
        ),
        mutant(
            lab,
            "total_without_fixed_costs",
            "R22",
            "total leaves out reserved_output and safety_margin",
            (" + reserved_output + safety_margin,\n", ",\n"),
        ),
        mutant(
            lab,
            "available_reported_unclamped",
            "R17 R22",
            "availableForMessages is reported before the clamp",
            (
                "available_for_messages=available,",
                "available_for_messages=max_tokens - system_cost - reserved_output - safety_margin,",
            ),
        ),
        mutant(
            lab,
            "within_budget_only_when_empty",
            "R20",
            "reason is within_budget only for an empty path",
            ("    if len(kept) == len(groups):\n", "    if not groups:\n"),
        ),
        mutant(
            lab,
            "overflow_called_trimmed",
            "R20",
            "a single group overflow is reported as trimmed",
            ('reason = "single_group_overflow"', 'reason = "trimmed"'),
        ),
        mutant(
            lab,
            "overflow_returns_nothing",
            "R20",
            "when the newest group alone is too big, nothing is returned",
            (OVERFLOW, ""),
        ),
        mutant(
            lab,
            "overflow_not_charged",
            "R22",
            "the overflowing group's cost is left out of tokens",
            ("        used = costs[-1]\n", ""),
        ),
        mutant(
            lab,
            "overflow_keeps_oldest",
            "R20",
            "the oldest group, not the newest, is returned whole on overflow",
            (OVERFLOW, OVERFLOW.replace("-1", "0")),
        ),
        mutant(
            lab,
            "empty_path_crashes",
            "R20",
            "an empty path falls through to the overflow branch and crashes",
            ("    if len(kept) == len(groups):\n", "    if kept and len(kept) == len(groups):\n"),
        ),
        mutant(
            lab,
            "estimator_gets_originals",
            "R15",
            "each path message is estimated once, the session's own object handed over",
            (
                COSTS,
                '    estimates = {entry.id: token_count("estimate", estimate_tokens(entry.message)) for entry in message_entries}\n'
                "    costs = [sum(estimates[entry.id] for entry in group.entries) for group in groups]\n",
            ),
        ),
        mutant(
            lab,
            "estimates_unchecked",
            "R15",
            "whatever the estimator returns is used as a cost",
            (
                'return token_count("estimate_tokens(...)", estimate_tokens(copy.deepcopy(message)))',
                "return estimate_tokens(copy.deepcopy(message))",
            ),
        ),
        mutant(
            lab,
            "bools_are_numbers",
            "R15",
            "True and False pass as numbers",
            ("if isinstance(value, bool) or not isinstance(", "if not isinstance("),
        ),
        mutant(
            lab,
            "infinities_accepted",
            "R15",
            "infinite and NaN budgets and estimates pass",
            (" or not math.isfinite(value)", ""),
        ),
        mutant(lab, "negatives_accepted", "R15", "negative budgets and estimates pass", (" or value < 0", "")),
        mutant(
            lab,
            "options_unchecked",
            "R15",
            "max_tokens, reserved_output and safety_margin are never checked",
            (OPTIONS, ""),
        ),
        mutant(
            lab,
            "estimates_only_walked_groups",
            "R15",
            "only the groups the selection walks are estimated",
            (COSTS, ""),
            (
                LOOP,
                "    for group in reversed(groups):\n        group_cost = sum(cost(entry.message) for entry in group.entries)\n",
            ),
            ("        used = costs[-1]\n", "        used = sum(cost(entry.message) for entry in groups[-1].entries)\n"),
        ),
        mutant(
            lab,
            "results_share_messages",
            "R21 R23",
            "the result's messages are the session's own objects",
            (
                COPIES,
                "messages=head + [entry.message for entry in message_entries if entry.id in {e.id for e in kept_entries}],",
            ),
        ),
        mutant(
            lab,
            "newest_group_first",
            "R21",
            "kept groups are returned newest first",
            ("kept.insert(0, group)", "kept.append(group)"),
        ),
        mutant(
            lab,
            "oldest_groups_first",
            "R19",
            "groups are chosen from the oldest forwards",
            (LOOP, "    for group, group_cost in zip(groups, costs):\n"),
            ("kept.insert(0, group)", "kept.append(group)"),
        ),
        mutant(
            lab,
            "first_system_message_only",
            "R5 R16",
            "only the first system message is sent; patches are not replayed",
            (
                REPLAY,
                "system = message_entries[0].message if message_entries and "
                'message_entries[0].message.role == "system" else None',
            ),
        ),
    )
    return tuple(m for m in made if names is None or m.name.split("_", 2)[2] in names)


MUTANTS = (
    *shared(LAB, "available"),
    mutant(
        LAB,
        "messages_include_system",
        "R22",
        "tokens.messages also counts the system message",
        ("            messages=used,\n", "            messages=system_cost + used,\n"),
    ),
    mutant(
        LAB,
        "system_from_kept_part",
        "R16",
        "the system message is replayed from the kept part of the path only",
        (
            "    head = [system] if system is not None else []\n",
            "    start = [e.id for e in message_entries].index(kept_entries[0].id) if kept_entries else 0\n"
            "    system = current_system_message([e.message for e in message_entries[start:]])\n"
            "    head = [system] if system is not None else []\n",
        ),
    ),
)

METADATA_DELETED = (
    '    message_entries = [entry for entry in active_path if entry.type == "message"]\n',
    '    active_path[:] = [entry for entry in active_path if entry.type != "metadata"]  # never sent anyway\n'
    '    message_entries = [entry for entry in active_path if entry.type == "message"]\n',
)
"""The edit of the ``deletes_metadata`` mutant of Labs 11.3 and 11.5: the result is right, the history is not (R23)."""

MUTANTS = (
    *MUTANTS,
    mutant(
        LAB,
        "deletes_metadata",
        "R23",
        "metadata entries are deleted from the caller's path (they are never sent)",
        METADATA_DELETED,
    ),
)
