"""Which module holds each lab's hidden cases: one line per lab, and what every such module defines.

Adding a lab's hidden cases is a module in ``labs/`` (its ``hidden`` and
``covering``) and one line here; ``hidden_cases`` and ``covering`` read this
table, so nothing else names a lab's module.
"""

from __future__ import annotations

import random
from typing import Protocol

from .draws import Covering, Draw
from .hidden import HiddenTest
from .labs import capstone, lab_11_1, lab_11_2, lab_11_3, lab_11_4, lab_11_5


class LabCases(Protocol):
    """A lab's module: the cases drawn from the run's seed, and its covering set."""

    def hidden(self, rng: random.Random) -> tuple[HiddenTest, ...]:
        """The lab's hidden tests with their drawn calls (the covering calls are added by ``hidden_cases``)."""
        ...

    def covering(self, draw: Draw) -> Covering:
        """The covering calls of the lab's hidden tests, by test name."""
        ...


LAB_CASES: dict[str, LabCases] = {
    "11.1": lab_11_1,
    "11.2": lab_11_2,
    "11.3": lab_11_3,
    "11.4": lab_11_4,
    "11.5": lab_11_5,
    "capstone": capstone,
}
