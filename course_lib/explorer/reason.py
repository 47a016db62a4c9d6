"""The explorer's reason sentence: why one ``build_context`` call kept what it kept (R17–R20), in the reader's language.

A learner reads it aloud against the table, so every number in it comes from the
result or the table, and the English verbs agree with their counts ("group 3
fits", "groups 2, 3 fit"). Each clause is one catalog message with ``{name}``
fields (issue 32): translated first, filled in after, so a catalog never sees
today's numbers. The reason itself (``trimmed``, …) leads the sentence untranslated,
before ``": "``: it is ``build_context``'s value, and the widget shows it in bold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..context import BuildContextResult
from ..teaching.i18n import MESSAGES

Costs = Mapping[int, int | float]
"""Each group's cost, by its number counted from the start of the path."""


def reason_sentence(
    result: BuildContextResult,
    summary_cost: int | float,
    kept: Sequence[int],
    candidates: Sequence[int],
    cost: Costs,
) -> str:
    """``"<reason>: <why>"``: the kept group numbers, the groups chosen from (oldest first) and their costs."""
    return f"{result.reason}: {_because(result, summary_cost, list(kept), list(candidates), cost)}"


def _because(
    result: BuildContextResult, summary_cost: int | float, kept: list[int], candidates: list[int], cost: Costs
) -> str:
    t = result.tokens
    room = t.available_for_messages - summary_cost
    head = _head(t, summary_cost, room)
    if result.reason == "within_budget":
        if not kept:
            return MESSAGES("{head}; there is no group to send.").format(head=head)
        fits = (
            MESSAGES("{head}; the only group fits ({groups}).")
            if len(kept) == 1
            else MESSAGES("{head}; every group fits ({groups}).")
        )
        return fits.format(head=head, groups=_listed(kept, cost))
    if result.reason == "trimmed":
        dropped = [n for n in candidates if n not in kept]
        used = sum(cost[n] for n in kept)
        fitting = MESSAGES("group {groups} fits") if len(kept) == 1 else MESSAGES("groups {groups} fit")
        return MESSAGES(
            "{head}; newest first, {fitting}, using {used}; group {group} ({cost}) does not fit in the {left} left, "
            "so {dropped}."
        ).format(
            head=head,
            fitting=fitting.format(groups=_numbers(kept, cost)),
            used=f"{used:g}",
            group=dropped[-1],
            cost=f"{cost[dropped[-1]]:g}",
            left=f"{room - used:g}",
            dropped=_dropped_with_older(dropped),
        )
    newest = candidates[-1]
    return MESSAGES(
        "{head}; the newest group, {group}, alone costs {cost}, so it is sent whole anyway "
        "and the total {total} exceeds max_tokens {max_tokens}."
    ).format(head=head, group=newest, cost=f"{cost[newest]:g}", total=f"{t.total:g}", max_tokens=f"{t.max_tokens:g}")


def _head(t: Any, summary_cost: int | float, room: int | float) -> str:
    """What the fixed costs leave for messages, then what the summary leaves for groups (R17, R18)."""
    allowance = _allowance(t)
    if not summary_cost:
        return allowance
    if room < 0:
        template = MESSAGES("{allowance}; the summary alone takes {summary}, so nothing is left for groups")
    else:
        template = MESSAGES("{allowance}; the summary takes {summary}, leaving {room} for groups")
    return template.format(allowance=allowance, summary=f"{summary_cost:g}", room=f"{room:g}")


def _allowance(t: Any) -> str:
    """``max_tokens`` minus the fixed costs; a negative difference is shown, then its clamp to 0 (R17)."""
    fields = {
        "max_tokens": f"{t.max_tokens:g}",
        "system": f"{t.system:g}",
        "reserved": f"{t.reserved_output:g}",
        "margin": f"{t.safety_margin:g}",
    }
    difference = t.max_tokens - t.system - t.reserved_output - t.safety_margin
    if difference < 0:
        return MESSAGES(
            "{max_tokens} − system {system} − reserved {reserved} − margin {margin} = {difference}, clamped to 0 "
            "(fixed costs exceed the window), so nothing is left for messages"
        ).format(**fields, difference=_signed(difference))
    return MESSAGES(
        "{max_tokens} − system {system} − reserved {reserved} − margin {margin} leaves {available} for messages"
    ).format(**fields, available=f"{t.available_for_messages:g}")


def _dropped_with_older(dropped: list[int]) -> str:
    """What the budget left out, newest dropped group first ("it and the older groups 1, 2 are dropped")."""
    older = dropped[:-1]
    if not older:
        return MESSAGES("it is dropped")
    template = (
        MESSAGES("it and the older group {groups} are dropped")
        if len(older) == 1
        else MESSAGES("it and the older groups {groups} are dropped")
    )
    return template.format(groups=MESSAGES(", ").join(map(str, older)))


def _listed(numbers: list[int], cost: Costs) -> str:
    """``group 3 (15)`` or ``groups 2 (7), 3 (15)``."""
    template = MESSAGES("group {groups}") if len(numbers) == 1 else MESSAGES("groups {groups}")
    return template.format(groups=_numbers(numbers, cost))


def _numbers(numbers: list[int], cost: Costs) -> str:
    """``2 (7), 3 (15)``, punctuated as the reader's language writes it (Chinese: ``2（7）、3（15）``)."""
    return MESSAGES(", ").join(MESSAGES("{group} ({cost})").format(group=n, cost=f"{cost[n]:g}") for n in numbers)


def _signed(number: int | float) -> str:
    """A negative number with a real minus sign, like the "−" between the terms."""
    return f"{number:g}".replace("-", "−")
