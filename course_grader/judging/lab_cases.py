"""Which module holds each lab's hidden cases, found from the registry, and what every such module defines.

Adding a lab's hidden cases is a module in ``labs/`` named after the lab
(``Lab.module``: ``lab_11_3.py``) with its ``hidden`` and ``covering``;
``hidden_cases`` and ``covering`` read ``LAB_CASES``, so nothing else names a
lab's module.
"""

from __future__ import annotations

import importlib
import random
from typing import Protocol, cast

from course_lib.teaching.lab_registry import LABS

from .draws import Covering, Draw
from .hidden import HiddenTest


class LabCases(Protocol):
    """A lab's module: the cases drawn from the run's seed, and its covering set."""

    def hidden(self, rng: random.Random) -> tuple[HiddenTest, ...]:
        """The lab's hidden tests with their drawn calls (the covering calls are added by ``hidden_cases``)."""
        ...

    def covering(self, draw: Draw) -> Covering:
        """The covering calls of the lab's hidden tests, by test name."""
        ...


LAB_CASES: dict[str, LabCases] = {
    lab.id: cast(LabCases, importlib.import_module(f"{__package__}.labs.{lab.module}")) for lab in LABS.values()
}
