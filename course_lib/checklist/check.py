"""What a check is: the functions it runs against, its entry in the catalogue, and how a lab lists its own.

A check receives an ``Implementation``: the lab functions, the reference ones
unless a learner passed their own. Everything else (fixtures, stores,
``path_to``) is the course's, so a failure points at the learner's function.
Each lab's module (``labs.lab_11_3`` …) lists its checks with its
``LabChecks``; ``cases.py`` puts the labs in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..compaction import create_compaction_entry
from ..context import build_context
from ..grouping import group_interactions
from ..lifecycle.cut_point import find_cut_point
from ..lifecycle.overflow import retry_after_overflow
from ..lifecycle.settings import should_compact
from ..parsing import parse_session_entry


@dataclass(frozen=True)
class Implementation:
    """The functions under test; any left out are the course's reference."""

    parse_session_entry: Callable[..., Any] = parse_session_entry
    group_interactions: Callable[..., Any] = group_interactions
    build_context: Callable[..., Any] = build_context
    create_compaction_entry: Callable[..., Any] = create_compaction_entry
    should_compact: Callable[..., Any] = should_compact
    find_cut_point: Callable[..., Any] = find_cut_point
    retry_after_overflow: Callable[..., Any] = retry_after_overflow


Check = Callable[[Implementation], None]
"""A check: it calls the functions and states what it observes (``expect``), judged later against the reference."""


@dataclass(frozen=True)
class Case:
    number: int
    lab: str
    name: str
    rules: str
    run: Check = field(repr=False)


class LabChecks:
    """One lab's checks, in the order its module defines them (``@CHECKS.case(8, "R20")`` above each).

    The number is the one learners see in the checklist table and on
    docs/rules.md; the name is the function's, without ``test_``.
    """

    def __init__(self, lab: str) -> None:
        self.lab = lab
        self.cases: list[Case] = []

    def case(self, number: int, rules: str) -> Callable[[Check], Check]:
        def register(function: Check) -> Check:
            self.cases.append(Case(number, self.lab, function.__name__.removeprefix("test_"), rules, function))
            return function

        return register
