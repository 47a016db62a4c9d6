"""One-line checks for the checklist: each failure says which rule broke and what was expected."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from ..parsing import to_json_dict


class ChecklistFailure(AssertionError):
    """A check failed; the message is one line naming the rule."""


def short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def wire(value: Any) -> Any:
    """Compare implementations through the wire format, so any model classes will do."""
    return to_json_dict(value)


def expect(condition: object, rule: str, message: str) -> None:
    if not condition:
        raise ChecklistFailure(f"{rule}: {message}")


def expect_equal(actual: Any, expected: Any, rule: str, what: str) -> None:
    if actual != expected:
        raise ChecklistFailure(f"{rule}: {what} — expected {short(expected)}, got {short(actual)}")


def expect_rejects(
    rule: str, what: str, call: Callable[[], Any], names: Iterable[str | tuple[str, ...]] = ()
) -> ValueError:
    """``call`` must raise a ``ValueError`` whose message names each id or field in ``names``.

    An item may be a tuple of alternatives (any one of them is enough).
    """
    try:
        call()
    except NotImplementedError:
        raise
    except ValueError as exc:
        text = str(exc)
        for name in names:
            options = name if isinstance(name, tuple) else (name,)
            if not any(option in text for option in options):
                raise ChecklistFailure(
                    f"{rule}: {what} was rejected, but the error does not name {' or '.join(map(repr, options))}: {short(text)}"
                ) from None
        return exc
    except Exception as exc:  # noqa: BLE001 - reported as a failure, not a crash
        raise ChecklistFailure(
            f"{rule}: {what} raised {type(exc).__name__} ({short(str(exc), 80)}); expected a ValueError naming the ids"
        ) from None
    raise ChecklistFailure(f"{rule}: {what} was accepted; it must be rejected")


def shared_mutables(left: Any, right: Any) -> list[str]:
    """Paths of mutable containers (dict, list, set) that ``left`` and ``right`` share."""
    seen: dict[int, str] = {}
    _collect(left, "left", seen)
    found: list[str] = []
    _find(right, "right", seen, found, set())
    return found


def expect_independent(left: Any, right: Any, rule: str, what: str) -> None:
    shared = shared_mutables(left, right)
    if shared:
        raise ChecklistFailure(f"{rule}: {what} share a mutable object ({shared[0]}); return copies")


def _children(value: Any, path: str) -> Iterable[tuple[Any, str]]:
    if isinstance(value, BaseModel):
        return ((v, f"{path}.{k}") for k, v in value.__dict__.items())
    if isinstance(value, dict):
        return ((v, f"{path}[{k!r}]") for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ((v, f"{path}[{i}]") for i, v in enumerate(value))
    if hasattr(value, "__dataclass_fields__"):
        return ((getattr(value, k), f"{path}.{k}") for k in value.__dataclass_fields__)
    return ()


def _collect(value: Any, path: str, seen: dict[int, str]) -> None:
    if isinstance(value, (dict, list, set)):
        if id(value) in seen:
            return
        seen[id(value)] = path
    for child, child_path in _children(value, path):
        _collect(child, child_path, seen)


def _find(value: Any, path: str, seen: dict[int, str], found: list[str], visited: set[int]) -> None:
    if id(value) in visited:
        return
    visited.add(id(value))
    if isinstance(value, (dict, list, set)) and id(value) in seen:
        found.append(f"{seen[id(value)]} is {path}")
        return
    for child, child_path in _children(value, path):
        _find(child, child_path, seen, found, visited)
