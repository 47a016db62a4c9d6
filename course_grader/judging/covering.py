"""The covering set: the edge cases every run of every lab's hidden tests includes, drawn afresh from its seed.

Seeded random cases find most mistakes, but whether a draw happens to hit an
exact boundary is luck, and a grade must not depend on luck. So each hidden
test also holds a covering set of cases whose *shapes* are fixed, with at
least one case that separates each plausible mistake class from the
reference: a group that does not fit between kept ones (R19: stop, never skip
to older groups), budgets that fit exactly and one token short (R17, R19), a
result placed before its call (R12), an entry that was already parsed (R3),
the capstone's exact threshold with compaction on and off (L1, L2), and every
path of overflow recovery (L4).

What a shape does not fix is drawn from the run's seed (``draws.Draw``): every
entry id, every text (and so every cost the teaching estimator gives),
timestamps, summaries, windows, reserves and margins. The boundaries are then
computed from the drawn costs, so "one token short" is one token short of
*these* groups. A table of answers recorded offline under one seed answers
none of another seed's covering calls, and ``course-grade`` draws a new seed
for every run. As for the drawn cases, each expectation is the reference's own
outcome on the same input (``calls.Calls``); nothing here types an expected
value in. Each lab's shapes are its module's ``covering`` (``labs/``, listed
in ``lab_cases``).

``tests/lib/checklist/test_mutants.py`` holds the set to that: it alone, without a single
drawn case, takes marks from every mutant in ``tests/mutants``, under several seeds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from course_lib.teaching.lab_registry import Lab

from .calls import FIXED
from .draws import Covering, Draw, Seed, covering_draw
from .lab_cases import LAB_CASES

__all__ = ["COVERING", "FIXED", "Covering", "covering_calls"]

COVERING: dict[str, Callable[[Draw], Covering]] = {lab: cases.covering for lab, cases in LAB_CASES.items()}
"""Each lab's covering set, by lab id: its shapes, drawn through the ``Draw`` it is handed."""


@functools.cache
def covering_calls(lab: Lab, seed: Seed = None) -> Covering:
    """The lab's covering calls, by hidden test name: the same shapes under every seed, ids, texts and numbers drawn from it.

    ``None`` is the lab's fixed seed, as for the drawn cases.
    """
    return COVERING[lab.id](covering_draw(lab, seed))
