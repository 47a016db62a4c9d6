"""The checklist's expectations, recorded as data and judged against the reference's record.

A check is ordinary code that calls the lab functions and states what it
observes and expects (``expect_equal``, ``expect_rejects``, ``observe``, ...).
Each statement becomes a ``Point``: what was observed, as plain JSON data, the
rule it tests, and what was expected.

Nothing is judged where the check runs. Under a ``Recorder`` the points are
collected, and ``verdict`` judges each one against the point the reference's
own run of the same check stated. The learner's notebook (``checklist.run``)
and the grader (the check runs in the sandboxed kernel, the points travel out
as data) use this one path, so a check has one verdict, and nothing a
submission does in its kernel can turn a failure into a pass.

Because the reference states the expected value, a check may observe a value
it cannot compute by hand (``observe``): the reference's observation is the
expectation. Each observation carries the rule that decides it, so the first
one that differs names the broken rule, not the rule of the check that
noticed it.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

from pydantic import BaseModel

from ..errors import CourseError
from ..json_diff import first_difference, short
from ..parsing import to_json_dict
from .exact import inexact

Kind = Literal["equal", "true", "rejects", "independent", "same"]
KINDS = ("equal", "true", "rejects", "independent", "same")
MAX_JSON = 200_000
"""Characters of one observed value sent out of the kernel; anything larger compares as different."""


class NotRecording(CourseError, RuntimeError):
    """An expectation was stated outside ``recording()``: a check is judged only against the reference's record."""


class NotAPointError(CourseError, ValueError):
    """Data that should be one recorded expectation (``Point.to_json``) is not: a kernel's reply is never trusted."""


class Diagnosis(CourseError, RuntimeError):
    """A check knows why the learner's code crashed better than its traceback does (R18's cut point).

    Raised by a check around the call it explains; ``explanation`` (rule first)
    is the whole message of the check's verdict.
    """

    def __init__(self, explanation: str) -> None:
        super().__init__(explanation)
        self.explanation = explanation


@dataclass(frozen=True)
class Point:
    """One stated expectation: its kind, the rule it pins, and the observed and expected data."""

    kind: Kind
    rule: str
    what: str
    actual: Any = None
    expected: Any = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Point:
        if not isinstance(data, Mapping) or data.get("kind") not in KINDS:
            raise NotAPointError(f"not a checklist point: {short(data, 80)}")
        kind = cast(Kind, str(data["kind"]))  # one of KINDS, checked above
        return cls(
            kind, str(data.get("rule", "")), str(data.get("what", ""))[:300], data.get("actual"), data.get("expected")
        )


@dataclass
class Recorder:
    """Collects points instead of judging them (the grader's kernel side)."""

    points: list[Point] = field(default_factory=list)

    def __call__(self, point: Point) -> None:
        self.points.append(point)


def _not_recording(point: Point) -> None:
    raise NotRecording(f"{point.rule}: {point.what} was stated outside a recording; run checks with checklist.run")


_JUDGE: contextvars.ContextVar[Callable[[Point], None]] = contextvars.ContextVar(
    "checklist_judge", default=_not_recording
)


@contextlib.contextmanager
def recording() -> Iterator[Recorder]:
    """``with recording() as recorder:`` every expectation inside is recorded, not judged."""
    recorder = Recorder()
    token = _JUDGE.set(recorder)
    try:
        yield recorder
    finally:
        _JUDGE.reset(token)


# --- stating expectations ----------------------------------------------------------


def expect(condition: object, rule: str, message: str) -> None:
    _JUDGE.get()(Point("true", rule, message, actual=bool(condition), expected=True))


def expect_equal(actual: Any, expected: Any, rule: str, what: str) -> None:
    _JUDGE.get()(Point("equal", rule, what, actual=json_data(actual), expected=json_data(expected)))


def observe(value: Any, rule: str, what: str) -> None:
    """``value`` must equal what the reference observes at this point of the check (judged by ``verdict``)."""
    data = json_data(value)
    _JUDGE.get()(Point("equal", rule, what, actual=data, expected=data))


def expect_same(left: Any, right: Any, rule: str, what: str) -> None:
    """Two observations of the learner's own functions must agree (R23: two builds give deep-equal results).

    Judged on the two values alone, not against the reference: what each must
    be is for the points that observe them.
    """
    _JUDGE.get()(Point("same", rule, what, actual=[json_data(left), json_data(right)], expected=None))


def expect_rejects(rule: str, what: str, call: Callable[..., Any], names: Iterable[str | tuple[str, ...]] = ()) -> None:
    """``call`` must raise a ``ValueError`` whose message names each id or field in ``names``.

    An item may be a tuple of alternatives (any one of them is enough). A
    learner's ``NotImplementedError`` passes through: it is a status, not a failure.
    """
    try:
        call()
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - what was raised is the observation
        outcome = {"raised": type(exc).__name__, "value_error": isinstance(exc, ValueError), "message": str(exc)[:2000]}
    else:
        outcome = {"raised": None}
    options = [list(name) if isinstance(name, tuple) else [name] for name in names]
    _JUDGE.get()(Point("rejects", rule, what, actual=outcome, expected=options))


def expect_independent(left: Any, right: Any, rule: str, what: str) -> None:
    _JUDGE.get()(Point("independent", rule, what, actual=shared_mutables(left, right)[:3], expected=[]))


# --- judging ---------------------------------------------------------------------


def verdict(observed: Point, trusted: Point) -> str | None:
    """``None`` when ``observed`` meets ``trusted``'s expectation, else the one-line failure.

    ``trusted`` is the point as the grader's own run of the check stated it: its
    kind and expected value are used, never the observed point's.
    """
    rule, what = trusted.rule, observed.what or trusted.what
    if observed.kind != trusted.kind:
        return f"{rule}: {what} — the check ran differently in your kernel (was course_lib changed?)"
    actual = observed.actual
    if trusted.kind == "true":
        return None if actual is True else f"{rule}: {what}"
    if trusted.kind == "same":
        pair = actual if isinstance(actual, list) and len(actual) == 2 else [None, actual]
        try:
            difference = first_difference(pair[0], pair[1])
        except RecursionError:  # both values came from the kernel: their depth is the submission's to choose
            return f"{rule}: {what} differ"
        if difference is None:
            return None
        where, first, second = difference
        at = f" at {where}" if where else ""
        return f"{rule}: {what} differ{at}: {short(first)}, then {short(second)}"
    if trusted.kind == "independent":
        if isinstance(actual, list) and not actual:
            return None
        shared = actual[0] if isinstance(actual, list) and actual else "an object"
        return f"{rule}: {what} share a mutable object ({short(shared, 120)}); return copies"
    if trusted.kind == "equal":
        difference = first_difference(trusted.expected, actual)
        return None if difference is None else f"{rule}: {what} — {difference.describe()}"
    return _rejection_verdict(rule, what, actual, trusted.expected)


def _rejection_verdict(rule: str, what: str, outcome: Any, names: Any) -> str | None:
    if not isinstance(outcome, Mapping) or outcome.get("raised") is None:
        return f"{rule}: {what} was accepted; it must be rejected"
    if not outcome.get("value_error"):
        text = short(str(outcome.get("message", "")), 80)
        return f"{rule}: {what} raised {outcome.get('raised')} ({text}); expected a ValueError naming the ids"
    text = str(outcome.get("message", ""))
    for options in names or []:
        if not any(str(option) in text for option in options):
            return (
                f"{rule}: {what} was rejected, but the error does not name "
                f"{' or '.join(map(repr, options))}: {short(text)}"
            )
    return None


# --- observing -------------------------------------------------------------------


def wire(value: Any) -> Any:
    """Compare implementations through the wire format, so any model classes will do.

    Built-in and course types count only as themselves (``exact.inexact``): a
    dict subclass that ignores writes prints like a dict, so a value holding
    one never compares equal to plain data.
    """
    odd = inexact(value, "the value")
    return to_json_dict(value) if odd is None else {"not exact types": odd}


def json_data(value: Any) -> Any:
    """``value`` as plain JSON data (models in the wire format, tuples as lists), bounded in size."""
    try:
        text = json.dumps(to_json_dict(value), default=repr)
    except Exception as exc:  # noqa: BLE001 - a learner's object that cannot even be described
        return {"unreadable": f"{type(exc).__name__}: {short(str(exc), 80)}"}
    if len(text) > MAX_JSON:
        return {"too large to compare": len(text)}
    return json.loads(text)


def shared_mutables(left: Any, right: Any) -> list[str]:
    """Paths of mutable containers (dict, list, set) that ``left`` and ``right`` share."""
    seen: dict[int, str] = {}
    _collect(left, "left", seen, set())
    found: list[str] = []
    _find(right, "right", seen, found, set())
    return found


def children(value: Any, path: str) -> Iterable[tuple[Any, str]]:
    if isinstance(value, BaseModel):
        return ((v, f"{path}.{k}") for k, v in value.__dict__.items())
    if isinstance(value, dict):
        return ((v, f"{path}[{k!r}]") for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ((v, f"{path}[{i}]") for i, v in enumerate(value))
    if hasattr(value, "__dataclass_fields__"):
        return ((getattr(value, k), f"{path}.{k}") for k in value.__dataclass_fields__)
    return ()


def _collect(value: Any, path: str, seen: dict[int, str], visited: set[int]) -> None:
    if id(value) in visited:
        return
    visited.add(id(value))
    if isinstance(value, (dict, list, set)):
        seen.setdefault(id(value), path)
    for child, child_path in children(value, path):
        _collect(child, child_path, seen, visited)


def _find(value: Any, path: str, seen: dict[int, str], found: list[str], visited: set[int]) -> None:
    if id(value) in visited:
        return
    visited.add(id(value))
    if isinstance(value, (dict, list, set)) and id(value) in seen:
        found.append(f"{seen[id(value)]} is {path}")
        return
    for child, child_path in children(value, path):
        _find(child, child_path, seen, found, visited)
