"""Exact types: what a copy rule is judged on, so a subclass cannot hide a shared or changed object.

The copy rules (R3, R13, R21, R23, R24, R28) are checked by writing into what a
function returned and looking at its input again. A ``dict`` subclass that
ignores writes (or a list, or a course model, whose subclass compares equal
whatever happens) would make that look fine while the result still shares
the caller's objects. So the harness judges values as exact types: every
container a built-in ``dict``, ``list``, ``tuple``, ``set`` or ``frozenset``,
every scalar a built-in ``str``, ``int``, ``float``, ``bool`` or ``None``, and
every course class the course's own (never a subclass, nor a class that only
claims a ``course_lib`` module), and every other class one the lab's contract
has the learner write (Lab 11.1's models, pydantic models named as the course's
withheld classes: ``own_classes``). Anything else, a ``types.SimpleNamespace``,
a plain ``__slots__`` class, a learner's own holder of the caller's entries, is
a foreign object, and a result holding one is a wrong return naming its type
(issue 43: such a holder passed the check, and the write probe never entered it).

And the input is compared with a pristine copy the harness decoded itself
before the call, type by type (``differs``), not with a text dump of it that a
subclass would print the same.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
import sys
from typing import Any

from pydantic import BaseModel

from ..teaching.lab_registry import LABS

BUILT_INS = (dict, list, tuple, set, frozenset, str, int, float, bool)
"""Built-in types a learner's value may hold only as themselves (``bool`` only as ``True``/``False``)."""


def course_class(kind: type) -> bool:
    """A class of ``course_lib`` itself: named in a ``course_lib`` module, and the class that name holds there."""
    module = getattr(kind, "__module__", "") or ""
    if module != "course_lib" and not module.startswith("course_lib."):
        return False
    found: Any = sys.modules.get(module)
    for name in kind.__qualname__.split("."):  # a nested class is found through its outer class
        found = getattr(found, name, None)
    return found is kind


@functools.cache
def own_classes(function: str | None = None) -> frozenset[str]:
    """The classes a lab's contract has the learner write: its withheld names that are classes (Lab 11.1's models).

    ``function`` keeps to the labs that grade it (a hidden call names its function); ``None`` is every lab's
    (the checklist's comparisons, which serve every lab).
    """
    names: set[str] = set()
    for lab in LABS.values():
        if function is not None and function not in lab.functions:
            continue
        for withheld in lab.withheld:
            if withheld.names:  # a module withheld whole keeps its classes: the learner writes none of them
                module = importlib.import_module(withheld.module)
                names |= {name for name in withheld.names if isinstance(getattr(module, name, None), type)}
    return frozenset(names)


def impostor(kind: type, own: frozenset[str] = frozenset()) -> str | None:
    """Why ``kind`` is not a type a result may hold, or ``None`` (exact built-ins, course classes, the contract's own).

    ``own`` names the classes the learner writes (``own_classes``): pydantic models of those names, defined
    outside ``course_lib``, subclassing no built-in or course type but pydantic's ``BaseModel``.
    """
    if kind in BUILT_INS or kind is type(None) or course_class(kind):
        return None
    module = getattr(kind, "__module__", "") or ""
    if module == "course_lib" or module.startswith("course_lib."):
        return f"a {kind.__name__} that claims to be {module}'s but is not"
    for base in kind.__mro__[1:]:
        if base in BUILT_INS or course_class(base):
            return f"a {kind.__name__}, a subclass of {base.__name__} (exact types only)"
    if kind.__name__ in own and issubclass(kind, BaseModel):
        return None
    return f"a {kind.__qualname__} ({module}.{kind.__qualname__}), a type the lab's contract does not name"


def inexact(value: Any, where: str = "the result", own: frozenset[str] | None = None) -> str | None:
    """The first part of ``value`` whose type the result may not hold, in words, or ``None``.

    ``own``: the learner's classes the lab's contract names (default: every lab's, ``own_classes``).
    """
    return _inexact(value, where, own_classes() if own is None else own, set())


def _inexact(value: Any, where: str, own: frozenset[str], seen: set[int]) -> str | None:
    if id(value) in seen:
        return None
    seen.add(id(value))
    why = impostor(type(value), own)
    if why:
        return f"{where} is {why}"
    for child, path in _parts(value, where):
        found = _inexact(child, path, own, seen)
        if found:
            return found
    return None


def _parts(value: Any, where: str) -> list[tuple[Any, str]]:
    if isinstance(value, BaseModel):
        return [(item, f"{where}.{name}") for name, item in value.__dict__.items()]
    if isinstance(value, dict):
        return [(key, f"{where} (a key)") for key in value] + [(v, f"{where}[{k!r}]") for k, v in value.items()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [(item, f"{where}[{index}]") for index, item in enumerate(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(getattr(value, f.name), f"{where}.{f.name}") for f in dataclasses.fields(value)]
    return []


def differs(value: Any, pristine: Any, where: str = "the input") -> str | None:
    """Where ``value`` is no longer ``pristine`` (same types at every level, equal scalars), or ``None``.

    ``pristine`` is the harness's own copy, made before the call and never handed
    out; callables (an estimator) are compared by type alone.
    """
    if type(value) is not type(pristine):
        return f"{where} is a {type(value).__name__}, was a {type(pristine).__name__}"
    if callable(pristine) and not isinstance(pristine, type):
        return None
    if isinstance(pristine, float):
        same = value == pristine or (math.isnan(value) and math.isnan(pristine))
        return None if same else f"{where} changed"
    if isinstance(pristine, (dict, BaseModel)):
        left = value if isinstance(value, dict) else value.__dict__
        right = pristine if isinstance(pristine, dict) else pristine.__dict__
        if list(left) != list(right):
            return f"{where} has other keys"
        return next((found for key in right if (found := differs(left[key], right[key], f"{where}.{key}"))), None)
    if isinstance(pristine, (set, frozenset)):
        return None if value == pristine else f"{where} changed"
    parts, originals = _parts(value, where), _parts(pristine, where)
    if not originals and not isinstance(pristine, (list, tuple, set, frozenset)):
        return None if value == pristine else f"{where} changed"
    if len(parts) != len(originals):
        return f"{where} has {len(parts)} items, had {len(originals)}"
    return next(
        (found for (item, path), (original, _) in zip(parts, originals) if (found := differs(item, original, path))),
        None,
    )
