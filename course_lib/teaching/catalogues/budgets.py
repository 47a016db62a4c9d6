"""Budgets and estimates that ``build_context`` must refuse (R15): each is not a finite number >= 0.

A bool is not a number, text is not a number, and neither NaN nor an infinity
is finite. The checklist (checks 7 and 13) tries every one on the chapter's
paths, the grader's hidden cases on generated ones, and the kernel-side harness
names each bad estimate so a hidden call (JSON) can ask for it.
"""

from __future__ import annotations

from typing import Any

BAD_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("max_tokens", True),
    ("max_tokens", float("nan")),
    ("max_tokens", -1),
    ("reserved_output", float("inf")),
    ("reserved_output", -1),
    ("reserved_output", -2),
    ("safety_margin", float("inf")),
    ("safety_margin", "2"),
    ("safety_margin", False),
)
"""``(option, value)``: one option of an otherwise good budget set to a value that is not a finite number >= 0 (R15)."""

BAD_ESTIMATES: dict[str, Any] = {
    "negative": -1,
    "nan": float("nan"),
    "infinite": float("inf"),
    "bool": True,
    "text": "3",
}
"""What an estimator returns that is not a token count, by the name a hidden call gives its estimator (R15)."""

BAD_ESTIMATORS: tuple[str, ...] = tuple(BAD_ESTIMATES)


def returning(value: Any) -> Any:
    """An estimator that returns ``value`` for every message."""
    return lambda message: value
