"""The hidden cases of each lab: generated sessions the learner never saw.

The checklist pins the chapter's worked example, so a function that copies the
example's ids, costs or groups can pass it. These cases draw fresh sessions
(random groups, tool results in any order, system patches, metadata,
compactions, budgets) from fixed seeds, so every learner gets the same cases
and a rerun gives the same grade. Each call's expectation comes from running
the reference on the same input, here, outside the learner's kernel
(``calls.Calls``).

Each lab's cases are one module in ``labs/`` (listed in ``lab_cases``); this
module puts a lab's covering set (``covering``) and its drawn cases together
into the hidden tests the grader runs.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from course_lib.teaching.lab_registry import Lab

from . import calls, covering, draws, generate, lab_cases, shapes
from . import labs as lab_modules
from .calls import REFERENCES, reference_call
from .covering import covering_calls
from .draws import Seed, stream
from .hidden import HiddenCall, HiddenTest
from .lab_cases import LAB_CASES

__all__ = [
    "GENERATORS",
    "REFERENCES",
    "SOURCES",
    "covering_tests",
    "hidden_calls",
    "hidden_tests",
    "reference_call",
]

GENERATORS: dict[str, Callable[[random.Random], tuple[HiddenTest, ...]]] = {
    lab: cases.hidden for lab, cases in LAB_CASES.items()
}
"""Each lab's drawn cases, by lab id: its hidden tests, drawn from the ``random.Random`` it is handed."""


@functools.cache
def hidden_tests(lab: Lab, seed: Seed = None) -> tuple[HiddenTest, ...]:
    """The hidden tests of one lab: the covering set, then the cases drawn from ``seed``.

    The covering set (``covering.py``) has the same shapes in every run, so no
    seed can skip an edge case; its ids, texts, costs and budgets come from
    ``seed`` like the drawn cases. Both are the same on every call and machine
    for one secret; ``course-grade`` draws from the term's secret or a new one
    for every run (and records it), so nobody can tabulate their answers in
    advance; ``None`` is the lab's fixed seed (tests, examples).
    """
    fixed = covering_calls(lab, seed)
    drawn = GENERATORS[lab.id](stream(lab, seed, "hidden"))
    unknown = set(fixed) - {test.name for test in drawn}
    assert not unknown, f"covering calls for hidden tests that {lab.id} does not have: {sorted(unknown)}"
    return tuple(dataclasses.replace(test, calls=fixed.get(test.name, ()) + test.calls) for test in drawn)


@functools.cache
def covering_tests(lab: Lab, seed: Seed = None) -> tuple[HiddenTest, ...]:
    """The lab's hidden tests holding only their covering calls under ``seed``: the shapes every run contains."""
    fixed = covering_calls(lab, seed)
    return tuple(
        dataclasses.replace(test, calls=fixed[test.name]) for test in hidden_tests(lab, seed) if test.name in fixed
    )


def hidden_calls(lab: Lab, seed: Seed = None) -> list[HiddenCall]:
    """Every distinct call of the lab's hidden tests, in order (tests may share calls)."""
    seen: dict[str, HiddenCall] = {}
    for test in hidden_tests(lab, seed):
        for call in test.calls:
            seen.setdefault(call.key, call)
    return list(seen.values())


def _file(module: ModuleType) -> Path:
    assert module.__file__, f"{module.__name__} is not a file"
    return Path(module.__file__)


SOURCES: tuple[Path, ...] = (
    *map(_file, (calls, covering, draws, generate, lab_cases, shapes)),
    Path(__file__),
    *sorted(_file(lab_modules).parent.glob("*.py")),
)
"""Every module that draws or holds hidden cases (each lab's in ``labs/``): what the learner must not read.

``packaging.bundle`` checks that the learner's account can read none of them.
"""
