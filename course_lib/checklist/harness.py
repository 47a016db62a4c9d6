"""The grader's hands inside the learner's sandboxed kernel: call the learner's functions, report what happened.

Every function here returns plain JSON data as a ``Reply``: which
lab functions exist, the record of one checklist check (``record_case``), or
the outcome of one hidden call (a wire-format value, or the exception's type
and message). Nothing here judges: the grader compares everything in its own
process, against its own run of the reference. So a submission that rewrites
this module can only misreport what its own functions did, never reach an
expected value, the reference, or a score.

A hidden call's request (``call``) holds its inputs only, in the same form for
covering, drawn and practice calls: no key or label is in the cell, the
arguments or this module, so the learner's function cannot tell them apart
(issue 27). Replies go back apart from the cell's output (``collect``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from ..estimators import estimate_tokens_chars
from ..fixtures import teaching_estimator
from ..lifecycle.errors import OverflowRecoveryError, ScriptExhaustedError
from ..lifecycle.settings import CompactionSettings
from ..models import MessageEntry
from ..parsing import parse_session_entry, to_json_dict
from ..teaching.catalogues import budgets
from .bounds import MAX_SENDS
from .cases import CASES
from .check import Implementation
from .exact import differs, inexact, own_classes
from .expect import children
from .runner import record_case

MIME = "application/vnd.course-grade+json"

MARK = "[estimate -1]"
"""A message whose first text starts with this is estimated at -1 by the ``marked`` estimator."""


def _first_text(message: Any) -> str:
    blocks = getattr(message, "content", None)
    first = blocks[0] if isinstance(blocks, (list, tuple)) and blocks else None
    return getattr(first, "text", "") or ""


def _touching(message: Any) -> Any:
    """The teaching estimator, which also marks every tool call it is handed: harmless on a copy (R15)."""
    for block in getattr(message, "content", ()) or ():
        if getattr(block, "type", None) == "toolCall":
            block.arguments["estimated"] = True
    return teaching_estimator(message)


ESTIMATORS: dict[str, Callable[[Any], Any]] = {
    "teaching": teaching_estimator,
    "touching": _touching,
    "marked": lambda message: -1 if _first_text(message).startswith(MARK) else teaching_estimator(message),
    "summary-only": lambda message: (
        teaching_estimator(message) if _first_text(message).startswith("[Compaction summary]") else 0
    ),
    "chars": estimate_tokens_chars,
    **{name: budgets.returning(value) for name, value in budgets.BAD_ESTIMATES.items()},
}
"""Estimators by name: a hidden call is JSON, so it names the estimator it uses (R15)."""


class Reply:
    """What one of the grader's cells reports: kept here until the grader collects it (``collect``)."""

    def __init__(self, data: Any) -> None:
        self.data = data
        _OUTBOX[:] = [self]


_OUTBOX: list[Reply] = []
"""The reply of the cell running now: one slot, emptied by ``collect``."""


class _Wire:
    """A reply as the grader reads it: JSON text under the grader's MIME type, decoded only within its budget."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {MIME: self.text}


def collect() -> _Wire | None:
    """The reply of the cell that just ran, for the grader, which asks for it with the cell itself.

    The grader sends every cell with ``COLLECT`` as a user expression: the
    kernel evaluates it after the cell and returns it in the cell's
    ``execute_reply`` on the shell channel, a message of its own. What the
    learner's code prints or displays goes to IOPub, which the grader does not
    read, so output can neither be taken for the reply nor crowd it out.
    """
    if not _OUTBOX:
        return None
    return _Wire(json.dumps(_OUTBOX.pop().data, default=repr))


COLLECT = "__import__('course_lib.checklist.harness', fromlist=['collect']).collect()"
"""The user expression the grader sends with each cell (``collect``)."""


def functions(namespace: Mapping[str, Any], names: list[str]) -> Reply:
    """Which of the lab's functions the exercise cells defined."""
    return Reply({name: callable(namespace.get(name)) for name in names})


def check(namespace: Mapping[str, Any], number: int, names: list[str]) -> Reply:
    """Run checklist check ``number`` against the learner's functions, recording, never judging."""
    case = next(c for c in CASES if c.number == number)
    implementation = Implementation(**{name: namespace[name] for name in names})
    return Reply(record_case(case, implementation))


def call(namespace: Mapping[str, Any], request_json: str) -> Reply:
    """One hidden call: the learner's function on generated input, and what came back."""
    request = json.loads(request_json)
    function = driven(request, namespace[request["function"]])
    args, kwargs = decode(request)
    pristine = decode(json.loads(request_json))  # the harness's own copy, sharing nothing with the arguments handed out
    try:
        value = function(*args, **kwargs)
    except NotImplementedError as exc:
        return Reply({"kind": "not-implemented", "type": "NotImplementedError", "message": first_line(exc)})
    except BaseException as exc:  # noqa: BLE001 - SystemExit, MemoryError, anything the learner raised
        message = "the kernel's memory limit was reached" if isinstance(exc, MemoryError) else first_line(exc, 400)
        return Reply(
            {
                "kind": "raised",
                "type": type(exc).__name__,
                "message": message,
                "value_error": isinstance(exc, ValueError),
            }
        )
    try:
        odd = inexact(value, own=own_classes(request["function"]))  # a subclass or foreign holder hides sharing
        if odd:
            return Reply({"kind": "bad-return", "type": type(value).__name__, "message": first_line(odd)})
        wire = wire_result(request["function"], value)
        json.dumps(wire)
    except Exception as exc:  # noqa: BLE001 - the learner returned something the wire format cannot hold
        return Reply(
            {"kind": "bad-return", "type": type(value).__name__, "message": f"{type(exc).__name__}: {first_line(exc)}"}
        )
    mutated = _changed(args, kwargs, pristine)
    _poke(value, set())
    return Reply(
        {
            "kind": "returned",
            "value": wire,
            "mutated": mutated,
            "shared": not mutated and _changed(args, kwargs, pristine),
        }
    )


def _changed(args: list[Any], kwargs: dict[str, Any], pristine: tuple[list[Any], dict[str, Any]]) -> bool:
    """Whether the arguments handed to the learner are no longer the harness's pristine copy, type by type."""
    try:
        return bool(differs(args, pristine[0]) or differs(kwargs, pristine[1]))
    except Exception:  # noqa: BLE001 - an input the learner made impossible to compare has changed
        return True


def driven(request: Mapping[str, Any], function: Callable[..., Any]) -> Callable[..., Any]:
    """The call a request makes of ``function`` (the learner's, or the reference outside the kernel).

    Most requests call the function on their arguments. Two need a driver that
    reports what happened as data: overflow recovery (``send`` and ``compact``
    are scripted callbacks, L4) and a parser handed an entry it parsed itself
    (R3: the result must be a new object).
    """
    if request["function"] == "retry_after_overflow":
        return functools.partial(drive_recovery, function)
    if request.get("reparse"):
        return functools.partial(_reparse, function)
    return function


def _reparse(parse: Callable[[Any], Any], value: Any) -> dict[str, Any]:
    """Parse ``value``, then parse the parsed entry again: equal, a new object, and nothing in it can change (R3)."""
    first = parse(value)
    again = parse(first)
    return {"entry": again, "newObject": again is not first, "changeable": changeable(parse(value))}


def changeable(entry: Any) -> list[str]:
    """What of a parsed entry can be changed in place: an assignable field, a list or dict where a tuple belongs (R3).

    Probed on an entry of its own, so the one compared is left as it came back.
    """
    found = []
    for where, target, field_name in (("entry", entry, "id"), ("summary", getattr(entry, "summary", None), "goal")):
        if isinstance(target, (dict, list)):
            found.append(f"{where} is a {type(target).__name__}")
            continue
        if target is None or not hasattr(target, field_name):
            continue
        try:
            setattr(target, field_name, getattr(target, field_name))
            found.append(f"{where}.{field_name} can be assigned")
        except Exception:  # noqa: BLE001, S110 - refusing the assignment is what a frozen entry does
            pass
        found += [
            f"{where}.{name} is a {type(value).__name__}"
            for name, value in vars(target).items()
            if isinstance(value, (dict, list))
        ]
    return found


def drive_recovery(
    retry: Callable[..., Any], script: Mapping[str, Any], *, context_window: Any, max_attempts: Any
) -> dict[str, Any]:
    """``retry`` on scripted answers (the last one repeats): how it ended, each compact() and send() (L4)."""
    replies = [cast(MessageEntry, parse_session_entry(entry)).message for entry in script["answers"]]  # message entries
    sent: list[int] = []
    compacted: list[Any] = []

    def send() -> Any:
        if len(sent) >= MAX_SENDS:
            raise ScriptExhaustedError(f"send() was called {MAX_SENDS} times: the retries are not bounded (L4)")
        sent.append(1)
        return replies[min(len(sent), len(replies)) - 1]

    def compact(attempt: Any) -> None:
        if len(compacted) >= MAX_SENDS:
            raise ScriptExhaustedError(f"compact() was called {MAX_SENDS} times: the retries are not bounded (L4)")
        compacted.append(attempt if isinstance(attempt, (int, float, bool, type(None))) else repr(attempt)[:80])

    try:
        answer, attempts = retry(send, compact, context_window=context_window, max_attempts=max_attempts)
    except OverflowRecoveryError as exc:
        return {
            "ended": "raised OverflowRecoveryError",
            "attempts": exc.attempts,
            "sends": len(sent),
            "compactCalls": compacted,
        }
    answered = next((number for number, reply in enumerate(replies, start=1) if reply is answer), None)
    return {
        "ended": "returned",
        "answer": f"scripted answer {answered}" if answered else repr(answer)[:200],
        "attempts": attempts,
        "sends": len(sent),
        "compactCalls": compacted,
    }


def _poke(value: Any, seen: set[int]) -> None:
    """Write a marker into every dict and list the returned value holds (tool arguments, sections, summary lists, ...).

    Done after the value was read, it changes the input only if the result
    shares objects with it (R3, R13, R23, M1).
    """
    if id(value) in seen:
        return
    seen.add(id(value))
    for child, _path in children(value, ""):
        _poke(child, seen)
    if isinstance(value, dict):
        value["__changed_by_the_caller__"] = "after the call"
    elif isinstance(value, list):
        value.append("__changed_by_the_caller__")


def decode(request: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """A request's arguments as the lab function receives them: parsed entries, options, an estimator."""
    args: list[Any] = []
    if request.get("path") is not None:
        args.append([parse_session_entry(entry) for entry in request["path"]])
    if "value" in request:
        args.append(request["value"])
    kwargs = dict(request.get("options", {}))
    if isinstance(kwargs.get("settings"), dict):
        kwargs["settings"] = CompactionSettings(**kwargs["settings"])
    if request.get("estimator"):
        kwargs["estimate_tokens"] = ESTIMATORS[request["estimator"]]
    return args, kwargs


def wire_result(function: str, value: Any) -> Any:
    """A returned value in the wire format, read through the public attribute names."""
    if function == "group_interactions":
        return [[to_json_dict(entry) for entry in group.entries] for group in value]
    if function == "build_context":
        return {
            "messages": to_json_dict(list(value.messages)),
            "keptEntryIds": list(value.kept_entry_ids),
            "reason": value.reason,
            "tokens": to_json_dict(value.tokens),
        }
    return to_json_dict(value)


def first_line(exc: BaseException | str, limit: int = 200) -> str:
    text = (str(exc).strip().splitlines() or [""])[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"
