"""What a check is: the functions it runs against, its entry in the catalogue, and how a lab lists its own.

A check receives an ``Implementation``: the lab functions, the reference ones
(the registry's ``Lab.references``) unless a learner passed their own.
Everything else (fixtures, stores, ``path_to``) is the course's, so a failure
points at the learner's function. Each lab's module (``labs.lab_11_3`` …)
lists its checks with its ``LabChecks``; ``cases.py`` finds them from the
registry, in lab order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import CourseError
from ..teaching.lab_registry import LABS


def _reference(dotted: str) -> Callable[..., Any]:
    module, _, name = dotted.rpartition(".")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


REFERENCES: dict[str, Callable[..., Any]] = {
    name: _reference(dotted)
    for lab in LABS.values()
    for name, dotted in zip(lab.functions, lab.references, strict=True)
}
"""The course's own answer to every lab function, by name, as the registry names it (``Lab.references``)."""

FUNCTION_NAMES = tuple(REFERENCES)
"""Every lab function a learner may pass, in lab order."""


class UnknownFunctionError(CourseError, TypeError):
    """A lab function by a name no lab asks for (a typo would otherwise go unchecked)."""


class Implementation:
    """The functions under test, by name (``impl.build_context``); any left out are the course's reference.

    The names are the registry's (``FUNCTION_NAMES``): a name no lab grades is refused
    (``UnknownFunctionError``, a ``TypeError`` as a keyword argument nobody takes is).
    """

    __slots__ = ("_functions",)

    def __init__(self, **functions: Callable[..., Any]) -> None:
        unknown = sorted(set(functions) - set(REFERENCES))
        if unknown:
            raise UnknownFunctionError(f"unknown lab function(s) {unknown}; expected some of {list(FUNCTION_NAMES)}")
        self._functions = {**REFERENCES, **functions}

    def __getattr__(self, name: str) -> Callable[..., Any]:
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        own = [name for name, function in self._functions.items() if function is not REFERENCES[name]]
        return f"Implementation({', '.join(own) or 'the references'})"


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
