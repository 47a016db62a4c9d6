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
from types import ModuleType
from typing import Any, Literal, cast

from pydantic import BaseModel

from ..errors import CourseError
from ..parsing import to_json_dict
from ..teaching.i18n import MESSAGES
from ..teaching.json_diff import first_difference, short
from ..teaching.wording import UNKNOWN, render_against, wording_of
from .exact import inexact

Kind = Literal["equal", "true", "rejects", "independent", "same"]
KINDS = ("equal", "true", "rejects", "independent", "same")
MAX_JSON = 200_000
"""Characters of one observed value sent out of the kernel; anything larger compares as different."""


class NotRecording(CourseError, RuntimeError):
    """An expectation was stated outside ``recording()``: a check is judged only against the reference's record."""


class NotAPointError(CourseError, ValueError):
    """Data that should be one recorded expectation (``Point.to_json``) is not: a kernel's reply is never trusted."""


DIAGNOSES: dict[str, str] = {}
"""The templates a ``Diagnosis`` may be said with (``diagnosis_template``): the only ones a record may name."""


def diagnosis_template(template: str) -> str:
    """Register ``template`` as a diagnosis the judge may translate (a lab module's constant), and return it."""
    DIAGNOSES[template] = template
    return template


class Diagnosis(CourseError, RuntimeError):
    """A check knows why the learner's code crashed better than its traceback does (R18's cut point).

    Raised by a check around the call it explains; ``explanation`` (rule first)
    is the whole message of the check's verdict: a ``say`` of a registered
    ``diagnosis_template``, so the judge can say it in the reader's language.
    """

    def __init__(self, explanation: str) -> None:
        super().__init__(explanation)
        self.explanation = explanation


@dataclass(frozen=True)
class Point:
    """One stated expectation: its kind, the rule it pins, and the observed and expected data.

    ``what`` is the English sentence; ``wording`` its template and fields when the
    check wrote it with ``say`` (``course_lib.teaching.wording``), so a verdict can say it
    in the reader's language.
    """

    kind: Kind
    rule: str
    what: str
    actual: Any = None
    expected: Any = None
    wording: Any = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Point:
        if not isinstance(data, Mapping) or data.get("kind") not in KINDS:
            raise NotAPointError(f"not a checklist point: {short(data, 80)}")
        kind = cast(Kind, str(data["kind"]))  # one of KINDS, checked above
        return cls(
            kind,
            str(data.get("rule", "")),
            str(data.get("what", ""))[:300],
            data.get("actual"),
            data.get("expected"),
            data.get("wording"),
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
    _JUDGE.get()(Point("true", rule, message, actual=bool(condition), expected=True, wording=wording_of(message)))


def expect_equal(actual: Any, expected: Any, rule: str, what: str) -> None:
    _JUDGE.get()(Point("equal", rule, what, json_data(actual), json_data(expected), wording_of(what)))


def observe(value: Any, rule: str, what: str) -> None:
    """``value`` must equal what the reference observes at this point of the check (judged by ``verdict``)."""
    data = json_data(value)
    _JUDGE.get()(Point("equal", rule, what, data, data, wording_of(what)))


def expect_same(left: Any, right: Any, rule: str, what: str) -> None:
    """Two observations of the learner's own functions must agree (R23: two builds give deep-equal results).

    Judged on the two values alone, not against the reference: what each must
    be is for the points that observe them.
    """
    _JUDGE.get()(Point("same", rule, what, [json_data(left), json_data(right)], None, wording_of(what)))


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
    _JUDGE.get()(Point("rejects", rule, what, outcome, options, wording_of(what)))


def expect_independent(left: Any, right: Any, rule: str, what: str) -> None:
    _JUDGE.get()(Point("independent", rule, what, shared_mutables(left, right)[:3], [], wording_of(what)))


# --- judging ---------------------------------------------------------------------


def verdict(observed: Point, trusted: Point, chosen: str | None = None) -> str | None:
    """``None`` when ``observed`` meets ``trusted``'s expectation, else the one-line failure.

    ``trusted`` is the point as the grader's own run of the check stated it: its
    kind and expected value are used, never the observed point's. The failure is
    said in ``chosen`` (else the reader's language, ``i18n.language``); which
    points fail never depends on the language.
    """
    rule, what = trusted.rule, said(observed, trusted, chosen)
    if observed.kind != trusted.kind:
        return MESSAGES(
            "{rule}: {what} — the check ran differently in your kernel (was course_lib changed?)", chosen
        ).format(rule=rule, what=what)
    actual = observed.actual
    if trusted.kind == "true":
        return None if actual is True else MESSAGES("{rule}: {what}", chosen).format(rule=rule, what=what)
    if trusted.kind == "same":
        return _sameness_verdict(rule, what, actual, chosen)
    if trusted.kind == "independent":
        if isinstance(actual, list) and not actual:
            return None
        shared = actual[0] if isinstance(actual, list) and actual else "an object"
        return MESSAGES("{rule}: {what} share a mutable object ({shared}); return copies", chosen).format(
            rule=rule, what=what, shared=short(shared, 120)
        )
    if trusted.kind == "equal":
        difference = first_difference(trusted.expected, actual)
        if difference is None:
            return None
        return MESSAGES("{rule}: {what} — {difference}", chosen).format(
            rule=rule, what=what, difference=difference.describe(chosen)
        )
    return _rejection_verdict(rule, what, actual, trusted.expected, chosen)


def said(observed: Point, trusted: Point, chosen: str | None = None) -> str:
    """What the point observed, in the reader's language: the trusted template, the kernel's values where they fit."""
    if isinstance(trusted.wording, Mapping):
        return render_against(trusted.wording, observed.wording, chosen)
    if observed.what and observed.what != trusted.what:
        return MESSAGES(UNKNOWN, chosen)  # a sentence from the kernel with no template: never shown as the course's
    return MESSAGES(trusted.what, chosen) if trusted.what else ""


def _sameness_verdict(rule: str, what: str, actual: Any, chosen: str | None) -> str | None:
    pair = actual if isinstance(actual, list) and len(actual) == 2 else [None, actual]
    try:
        difference = first_difference(pair[0], pair[1])
    except RecursionError:  # both values came from the kernel: their depth is the submission's to choose
        return MESSAGES("{rule}: {what} differ", chosen).format(rule=rule, what=what)
    if difference is None:
        return None
    where, first, second = difference
    at = MESSAGES(" at {where}", chosen).format(where=where) if where else ""
    return MESSAGES("{rule}: {what} differ{at}: {first}, then {second}", chosen).format(
        rule=rule, what=what, at=at, first=short(first), second=short(second)
    )


def _rejection_verdict(rule: str, what: str, outcome: Any, names: Any, chosen: str | None = None) -> str | None:
    if not isinstance(outcome, Mapping) or outcome.get("raised") is None:
        return MESSAGES("{rule}: {what} was accepted; it must be rejected", chosen).format(rule=rule, what=what)
    if not outcome.get("value_error"):
        return MESSAGES("{rule}: {what} raised {raised} ({text}); expected a ValueError naming the ids", chosen).format(
            rule=rule, what=what, raised=outcome.get("raised"), text=short(str(outcome.get("message", "")), 80)
        )
    text = str(outcome.get("message", ""))
    for options in names or []:
        if not any(str(option) in text for option in options):
            return MESSAGES("{rule}: {what} was rejected, but the error does not name {names}: {text}", chosen).format(
                rule=rule, what=what, names=MESSAGES(" or ", chosen).join(map(repr, options)), text=short(text)
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
    """What ``value`` holds, each with its path: what the copy probes walk (``shared_mutables``, ``harness._poke``).

    Every object is entered, not only the course's shapes: a ``types.SimpleNamespace``, a ``__slots__`` class
    or any other holder of the caller's entries is walked through its instance attributes and slots (issue 43).
    """
    if isinstance(value, BaseModel):
        return ((v, f"{path}.{k}") for k, v in value.__dict__.items())
    if isinstance(value, dict):
        return ((v, f"{path}[{k!r}]") for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ((v, f"{path}[{i}]") for i, v in enumerate(value))
    if hasattr(value, "__dataclass_fields__"):
        return ((getattr(value, k), f"{path}.{k}") for k in value.__dataclass_fields__)
    if isinstance(value, (str, bytes, int, float, complex, type, ModuleType)) or value is None:
        return ()
    return attributes(value, path)


def attributes(value: Any, path: str) -> list[tuple[Any, str]]:
    """An object's instance attributes (its ``__dict__``) and slots, read past any ``__getattr__`` it defines."""
    found: list[tuple[Any, str]] = []
    try:
        held = object.__getattribute__(value, "__dict__")
    except (AttributeError, TypeError):
        held = {}
    if isinstance(held, dict):
        found += [(v, f"{path}.{k}") for k, v in list(held.items())]
    for kind in type(value).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot in ("__dict__", "__weakref__"):
                continue
            try:
                found.append((object.__getattribute__(value, slot), f"{path}.{slot}"))
            except (AttributeError, TypeError):
                continue
    return found


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
