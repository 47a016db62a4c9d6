"""One JSON diff: where two JSON values first differ, stated expected first, then what was got.

The checklist's verdicts (``checklist.expect``) and a lab cell's ``lab_helpers.compare``
both describe a difference with this module, so the same two values read the same way
in a lab's cell, in its checklist and in the grader's feedback (which shows the
checklist's messages): ``expected 3, got 2 at tokens.messages``. Every caller, the
grader's too, imports it from here (``tests/lib/test_json_diff.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from .i18n import MESSAGES

MISSING = "(missing)"
"""What was got where the expected value has a key the result lacks."""
ABSENT = "(absent)"
"""What was expected where the result has a key the expected value lacks."""


class Difference(NamedTuple):
    """The first place two JSON values differ: its path (``[2].content[0].text``) and the two parts there."""

    where: str
    expected: Any
    got: Any

    def describe(self, chosen: str | None = None) -> str:
        """``expected 3, got 2 at tokens.messages``: the words a verdict and a lab cell use for it (translated)."""
        at = MESSAGES(" at {where}", chosen).format(where=self.where) if self.where else ""
        return MESSAGES("expected {expected}, got {got}{at}", chosen).format(
            expected=short(self.expected), got=short(self.got), at=at
        )


def first_difference(expected: Any, got: Any, where: str = "") -> Difference | None:
    """Where two JSON values first differ (``None`` if nowhere): keys in the expected value's order, then extra keys.

    Numbers compare by value (``3 == 3.0``); a bool is not a number. A list of another
    length differs at ``(length)``, the two lengths, once the items both have agree. The
    path reads like the data (``tokens.messages``, ``[2]``), so a learner sees the one
    field that is wrong instead of two long, equally truncated reprs.
    """
    if isinstance(expected, Mapping) and isinstance(got, Mapping):
        for key in expected:
            if key not in got:
                return Difference(f"{where}.{key}".lstrip("."), expected[key], MISSING)
            found = first_difference(expected[key], got[key], f"{where}.{key}")
            if found:
                return found
        extra = next((key for key in got if key not in expected), None)
        return None if extra is None else Difference(f"{where}.{extra}".lstrip("."), ABSENT, got[extra])
    if isinstance(expected, list) and isinstance(got, list):
        for index, (left, right) in enumerate(zip(expected, got)):
            found = first_difference(left, right, f"{where}[{index}]")
            if found:
                return found
        if len(expected) != len(got):
            return Difference(f"{where} (length)".lstrip(". "), len(expected), len(got))
        return None
    if _same_scalar(expected, got):
        return None
    return Difference(where.lstrip("."), expected, got)


def _same_scalar(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right or (
            isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right)
        )
    return type(left) is type(right) and left == right


def short(value: Any, limit: int = 160) -> str:
    """``repr(value)``, cut at ``limit`` characters: a message quotes data, it does not dump it."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
