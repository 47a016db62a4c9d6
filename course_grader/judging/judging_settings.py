"""How a notebook's answers are judged (``JudgingSettings``): for now, the seed of the hidden cases.

Judging's part of ``GradeOptions``: what the hidden calls are and how an
answer is scored read only this, so a new judging choice is added here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JudgingSettings:
    seed: int | None = None
    """The hidden cases' seed (``hidden_cases.hidden_tests``); ``None`` is each lab's fixed one."""
