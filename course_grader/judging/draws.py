"""Where a run's hidden cases come from: one stream per lab and purpose, each keyed by the run's secret.

``course-grade`` draws from a secret (``secret.py``: the term's, or a fresh one
per run, recorded); ``None`` is each lab's fixed seed (tests, examples). Each
lab has three streams of its own (``stream``): its drawn cases, its covering
set (``covering_draw``) and its practice cases, each seeded with an HMAC of the
secret over the purpose and the lab (issue 43), so one stream's draws never
shift another's, and recovering one (a practice case is shown whole) tells
nothing of the others or of the secret. What a covering shape leaves open is
drawn through ``Draw``: every entry id, text (and so cost), timestamp, summary
and number.
"""

from __future__ import annotations

import random
from typing import Any

from course_lib.parsing import to_json_dict
from course_lib.teaching.lab_registry import Lab

from .generate import TOOLS, WORDS, random_summary
from .hidden import HiddenCall
from .secret import Seed, stream_seed

Covering = dict[str, tuple[HiddenCall, ...]]
"""The covering calls of a lab's hidden tests, by test name (tests that share calls share them here too)."""


PURPOSES = ("hidden", "covering", "practice")
"""A lab's streams: its drawn cases, its covering set's open values, its practice cases (shown whole to learners)."""
PRACTICE_OFFSET = 500_000


def stream(lab: Lab, seed: Seed, purpose: str) -> random.Random:
    """The lab's stream for ``purpose``: keyed by the run's secret (``secret.stream_seed``), or the lab's fixed one."""
    assert purpose in PURPOSES, purpose
    if seed is not None:
        return random.Random(stream_seed(seed, purpose, lab.id))
    fixed: dict[str, int | str] = {
        "hidden": lab.hidden_seed,
        "covering": f"covering {lab.id} {lab.hidden_seed}",
        "practice": lab.hidden_seed + PRACTICE_OFFSET,
    }
    return random.Random(fixed[purpose])


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


def covering_draw(lab: Lab, seed: Seed) -> Draw:
    """The covering set's own stream for one lab and seed: apart from the drawn cases' stream."""
    return Draw(stream(lab, seed, "covering"))
