"""Where a run's hidden cases come from: one seed per lab, and the covering set's own stream drawn from it.

``course-grade`` draws a new seed for every run (and records it); ``None`` is
each lab's fixed seed (tests, examples). The drawn cases take
``random.Random(lab_seed(lab, seed))``; the covering set takes a stream of its
own (``covering_draw``), so its draws never shift the drawn cases' and the
other way round. What a covering shape leaves open is drawn through ``Draw``:
every entry id, text (and so cost), timestamp, summary and number.
"""

from __future__ import annotations

import random
from typing import Any

from course_lib.parsing import to_json_dict
from course_lib.teaching.lab_registry import Lab

from .generate import TOOLS, WORDS, random_summary
from .hidden import HiddenCall

Covering = dict[str, tuple[HiddenCall, ...]]
"""The covering calls of a lab's hidden tests, by test name (tests that share calls share them here too)."""


def lab_seed(lab: Lab, seed: int | None = None) -> int:
    """The seed a lab's hidden cases are drawn from: ``seed`` mixed with the lab, or the lab's fixed one."""
    return lab.hidden_seed if seed is None else seed * 1000 + lab.hidden_seed


class Draw:
    """What the covering shapes leave open, drawn from one seed: ids, texts (so costs), times, numbers.

    ``id("u1")`` is the same id for the same name within one draw, and a new one
    (never a name the shape uses) in another; ``words(n)`` is a text of exactly
    ``n`` words, so the teaching estimator gives it ``n`` tokens.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._ids: dict[str, str] = {}

    def id(self, name: str) -> str:
        if name not in self._ids:
            taken = set(self._ids.values())
            stem = name.rstrip("0123456789-") or "e"
            while (made := f"{stem}-{self.rng.randrange(36**3):03x}{self.rng.choice('kmpqrvwxz')}") in taken:
                pass
            self._ids[name] = made
        return self._ids[name]

    def words(self, count: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(count)).capitalize() + "."

    def text(self, low: int, high: int) -> str:
        return self.words(self.rng.randint(low, high))

    def clock(self) -> int:
        return self.rng.randint(0, 10**6)

    def between(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def tool(self) -> str:
        return self.rng.choice(TOOLS)

    def arguments(self) -> dict[str, Any]:
        return {"path": f"src/{self.rng.choice(WORDS)}.py", "lines": [self.between(1, 99)]}

    def summary(self) -> dict[str, Any]:
        return to_json_dict(random_summary(self.rng))

    def fresh(self) -> Draw:
        """Another draw on the same stream: new ids for the same names (a second path beside the first)."""
        return Draw(self.rng)


def covering_draw(lab: Lab, seed: int | None) -> Draw:
    """The covering set's own stream for one lab and seed (a string seed: apart from the drawn cases' stream)."""
    return Draw(random.Random(f"covering {lab.id} {lab_seed(lab, seed)}"))
