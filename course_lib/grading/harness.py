"""The grader's side inside the learner's kernel: call the learner's functions, write down what happened.

``serve`` runs after the exercise cells, in the same kernel, because the
learner's functions live there. It runs the lab's checklist cases and the
hidden calls, and appends one JSON line per event to a response file, flushed
as it goes, so a kernel that dies half way still leaves what it did.

It never sees what a hidden call should return: it only reports what came back
(a wire-format value, or the exception), and the grader compares that with the
reference outside the kernel.

Limits per check or call: a time limit (SIGALRM, raised as a ``BaseException``
so ``except Exception`` in learner code cannot swallow it); after a time-out or
a ``MemoryError`` the function's remaining calls are skipped, so one endless
loop costs one time limit, not one per check. While a learner function runs,
a profiler watches for calls into the course's own implementation of that
function: a thin wrapper around the reference is the reference.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .. import compaction, context, fixtures, grouping, parsing
from ..checklist.cases import CASES, Implementation
from ..checklist.runner import run_case
from ..estimators import estimate_tokens_chars
from ..parsing import parse_session_entry, to_json_dict


class CaseTimeout(BaseException):
    """Raised by the alarm; a ``BaseException`` so learner code cannot catch it by accident."""


def _is_compaction(value: Any) -> bool:
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    return kind == "compaction"


_Rule = tuple[types.CodeType, Callable[[types.FrameType], bool] | None]

FORBIDDEN: dict[str, tuple[_Rule, ...]] = {
    # Lab 11.1 sends messages and metadata to the course's parser on purpose; only compactions are the lab's.
    "parse_session_entry": ((parsing.parse_session_entry.__code__, lambda frame: _is_compaction(frame.f_locals.get("value"))),),
    "group_interactions": ((grouping.group_interactions.__code__, None), (grouping.interaction_spans.__code__, None)),
    "build_context": ((context.build_context.__code__, None),),
    "create_compaction_entry": ((compaction.create_compaction_entry.__code__, None),),
}
"""Code the learner's function may not run: the course's implementation of that same function."""

REFERENCES: dict[str, Callable[..., Any]] = {
    "parse_session_entry": parsing.parse_session_entry,
    "group_interactions": grouping.group_interactions,
    "build_context": context.build_context,
    "create_compaction_entry": compaction.create_compaction_entry,
}

ESTIMATORS: dict[str, Callable[[Any], Any]] = {
    "teaching": fixtures.teaching_estimator,
    "chars": estimate_tokens_chars,
    "negative": lambda message: -1,
    "nan": lambda message: float("nan"),
    "infinite": lambda message: float("inf"),
    "bool": lambda message: True,
    "text": lambda message: "3",
}
"""Estimators by name: a hidden call is JSON, so it names the estimator it uses (R15)."""


def reference_origin(function: Any, name: str) -> str | None:
    """Why ``function`` is the course's own ``name`` (not the learner's), or ``None``."""
    reference = REFERENCES[name]
    candidates = [function, getattr(function, "func", None)]  # functools.partial
    with contextlib.suppress(Exception):
        candidates.append(inspect.unwrap(function))
    for candidate in candidates:
        if candidate is reference or getattr(candidate, "__code__", None) is reference.__code__:
            return f"{name} is course_lib's reference implementation ({reference.__module__}.{reference.__name__})"
    module = getattr(function, "__module__", None) or ""
    if module == "course_lib" or module.startswith("course_lib."):
        return f"{name} is imported from {module}, not written in the notebook"
    return None


class Watch:
    """Wraps learner functions; notes which of them ran their own reference while called."""

    def __init__(self) -> None:
        self.hits: set[str] = set()

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        rules = dict(FORBIDDEN[name])

        def profiler(frame: types.FrameType, event: str, arg: Any) -> None:
            if event == "call" and frame.f_code in rules:
                when = rules[frame.f_code]
                if when is None or when(frame):
                    self.hits.add(name)

        def watched(*args: Any, **kwargs: Any) -> Any:
            previous = sys.getprofile()
            sys.setprofile(profiler)
            try:
                return function(*args, **kwargs)
            finally:
                sys.setprofile(previous)

        return watched


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``CaseTimeout`` in the main thread after ``seconds`` (no limit off the main thread)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Responses:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in serve()

    def emit(self, **event: Any) -> None:
        self.file.write(json.dumps(event, default=repr) + "\n")
        self.file.flush()


def serve(namespace: Mapping[str, Any], request_path: str, response_path: str) -> None:
    """Run the request's checks and calls against the functions defined in ``namespace``."""
    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    out = _Responses(response_path)
    try:
        _serve(namespace, request, out)
    finally:
        out.file.close()


def _serve(namespace: Mapping[str, Any], request: dict[str, Any], out: _Responses) -> None:
    limit = float(request.get("time_limit", 10))
    found: dict[str, Callable[..., Any]] = {}
    report: dict[str, dict[str, Any]] = {}
    for name in request["functions"]:
        function = namespace.get(name)
        origin = reference_origin(function, name) if callable(function) else None
        report[name] = {"defined": callable(function), "reference": origin}
        if callable(function) and origin is None:
            found[name] = function
    out.emit(event="functions", functions=report)
    if len(found) < len(request["functions"]):
        out.emit(event="end")
        return

    watch = Watch()
    implementation = Implementation(**{name: watch.wrap(name, fn) for name, fn in found.items()})
    stopped: str | None = None  # why the lab's function is not called any more
    cases = {case.number: case for case in CASES}
    for number in request.get("checks", []):
        key = f"check-{number}"
        if stopped:
            out.emit(event="check", key=key, status="skipped", message=stopped, reference=False)
            continue
        out.emit(event="start", key=key)
        watch.hits.clear()
        with _quiet():
            outcome, record = _limited(lambda n=number: run_case(cases[n], implementation), limit)
        if outcome == "timeout":
            stopped = f"skipped: an earlier check ran longer than {limit:g} s"
            out.emit(event="check", key=key, status="timeout", message=f"ran longer than {limit:g} s", reference=bool(watch.hits))
            continue
        if outcome != "returned":
            record_status, message = "error", outcome
        else:
            record_status, message = record.status, record.message
        if "MemoryError" in message:
            message = "MemoryError: the kernel's memory limit was reached"
            stopped = "skipped: an earlier check hit the memory limit"
        out.emit(event="check", key=key, status=record_status, message=message, reference=bool(watch.hits))

    for call in request.get("calls", []):
        key = call["key"]
        if stopped:
            out.emit(event="call", key=key, outcome={"kind": "skipped", "message": stopped}, mutated=False, reference=False)
            continue
        out.emit(event="start", key=key)
        watch.hits.clear()
        function = getattr(implementation, call["function"])
        args, kwargs = _decode(call)
        before = _snapshot(args, kwargs)
        with _quiet():
            kind, value = _limited(lambda: function(*args, **kwargs), limit)
        outcome = _outcome(call["function"], kind, value, limit)
        if outcome["kind"] == "timeout":
            stopped = f"skipped: an earlier call ran longer than {limit:g} s"
        elif outcome.get("type") == "MemoryError":
            stopped = "skipped: an earlier call hit the memory limit"
        mutated = outcome["kind"] != "timeout" and _snapshot(args, kwargs) != before
        out.emit(event="call", key=key, outcome=outcome, mutated=mutated, reference=bool(watch.hits))
    out.emit(event="end")


def _limited(run: Callable[[], Any], seconds: float) -> tuple[str, Any]:
    """``("returned", value)``, ``("timeout", None)`` or ``(<exception summary>, exception)``."""
    try:
        with time_limit(seconds):
            return "returned", run()
    except CaseTimeout:
        return "timeout", None
    except BaseException as exc:  # noqa: BLE001 - SystemExit, MemoryError, anything the learner raised
        return f"{type(exc).__name__}: {_first_line(exc)}", exc


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Learner prints go nowhere: the grading cell's output is not the learner's to write."""
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield


def _decode(call: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    args: list[Any] = []
    if call.get("path") is not None:
        args.append([parse_session_entry(entry) for entry in call["path"]])
    if "value" in call:
        args.append(call["value"])
    kwargs = dict(call.get("options", {}))
    if call.get("estimator"):
        kwargs["estimate_tokens"] = ESTIMATORS[call["estimator"]]
    return args, kwargs


def _snapshot(args: list[Any], kwargs: Mapping[str, Any]) -> str:
    data = [to_json_dict(args), {k: to_json_dict(v) for k, v in kwargs.items() if not callable(v)}]
    return json.dumps(data, sort_keys=True, default=repr)


def _outcome(function: str, kind: str, value: Any, limit: float) -> dict[str, Any]:
    if kind == "timeout":
        return {"kind": "timeout", "message": f"ran longer than {limit:g} s"}
    if kind != "returned":
        exc = value
        if isinstance(exc, NotImplementedError):
            return {"kind": "not-implemented", "type": "NotImplementedError", "message": _first_line(exc)}
        message = "the kernel's memory limit was reached" if isinstance(exc, MemoryError) else _first_line(exc, 400)
        return {
            "kind": "raised", "type": type(exc).__name__, "message": message,
            "value_error": isinstance(exc, ValueError),
        }
    try:
        wire = wire_result(function, value)
        json.dumps(wire)
    except Exception as exc:  # noqa: BLE001 - the learner returned something the wire format cannot hold
        return {"kind": "bad-return", "type": type(value).__name__, "message": f"{type(exc).__name__}: {_first_line(exc)}"}
    return {"kind": "returned", "value": wire}


def wire_result(function: str, value: Any) -> Any:
    """A returned value in the wire format, read through the API's attribute names (api.md)."""
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


def _first_line(exc: BaseException | str, limit: int = 200) -> str:
    text = (str(exc).strip().splitlines() or [""])[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"
