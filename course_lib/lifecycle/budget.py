"""The per-request budget, recorded in the session itself so the log alone can replay a request.

Every model request is ``build_context(active_path, …)`` with these options. The
session appends them as a ``context_budget`` metadata entry (again whenever they
change), so benefit 1 — rebuilding exactly what the model saw — needs nothing
but the log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..context import BuildContextResult, build_context, is_token_count
from ..errors import OptionError
from ..estimators import estimate_tokens_chars
from ..fixtures import teaching_estimator
from ..models import SessionEntry

BUDGET_KEY = "context_budget"

ESTIMATORS: dict[str, Callable[[Any], int | float]] = {
    "chars/4": estimate_tokens_chars,
    "teaching": teaching_estimator,
}
"""Estimators by the name the log records."""


@dataclass(frozen=True)
class RequestBudget:
    """``build_context`` options for every request: the model's window, output reserve, margin, estimator."""

    context_window: int | float
    reserved_output: int | float = 0
    safety_margin: int | float = 0
    estimator: str = "chars/4"

    def __post_init__(self) -> None:
        if not is_token_count(self.context_window) or self.context_window <= 0:
            raise OptionError(f"context_window must be a finite number > 0, got {self.context_window!r}")
        for name in ("reserved_output", "safety_margin"):
            if not is_token_count(getattr(self, name)):
                raise OptionError(f"{name} must be a finite number >= 0, got {getattr(self, name)!r} (R15)")
        if self.estimator not in ESTIMATORS:
            raise OptionError(f"unknown estimator {self.estimator!r}; known: {sorted(ESTIMATORS)}")

    @property
    def estimate_tokens(self) -> Callable[[Any], int | float]:
        return ESTIMATORS[self.estimator]

    def build(self, active_path: Sequence[SessionEntry]) -> BuildContextResult:
        return build_context(
            active_path,
            max_tokens=self.context_window,
            reserved_output=self.reserved_output,
            safety_margin=self.safety_margin,
            estimate_tokens=self.estimate_tokens,
        )

    def to_value(self) -> dict[str, Any]:
        """The metadata value, in the log's camelCase style."""
        return {
            "contextWindow": self.context_window,
            "reservedOutput": self.reserved_output,
            "safetyMargin": self.safety_margin,
            "estimator": self.estimator,
        }

    @classmethod
    def from_value(cls, value: Mapping[str, Any]) -> RequestBudget:
        return cls(
            context_window=value["contextWindow"],
            reserved_output=value["reservedOutput"],
            safety_margin=value["safetyMargin"],
            estimator=value["estimator"],
        )


def budget_on_path(active_path: Sequence[SessionEntry]) -> RequestBudget | None:
    """The budget in force at the end of ``active_path``: its latest ``context_budget`` entry."""
    for entry in reversed(active_path):
        if entry.type == "metadata" and entry.key == BUDGET_KEY:
            return RequestBudget.from_value(entry.value)
    return None
