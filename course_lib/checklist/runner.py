"""Run the checklist against any implementation and report one row per check.

Every check is judged one way, in two steps: ``record_case`` runs it and only
records what the functions did; ``judge_record`` judges that record against
the reference's own record of the same check. The grader runs the first step
in the learner's sandboxed kernel and the second in its own process; ``run``
(a learner's notebook, a shell) runs both here, with the record passed through
JSON as it would leave a kernel. So the inline checklist and the grader give
each check the same verdict and the same message.
"""

from __future__ import annotations

import functools
import html
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..errors import CourseError
from ..teaching import lab_registry
from ..teaching.i18n import MESSAGES, message
from ..teaching.wording import render_known, say, wording_of
from . import bounds, live
from .cases import CASES
from .check import FUNCTION_NAMES, Case, Implementation
from .expect import DIAGNOSES, Diagnosis, Point, recording, said, verdict

Status = Literal["passed", "failed", "not implemented yet", "error"]
LABS = tuple(lab_registry.LABS)
CHAPTER_LABS = tuple(lab for lab, entry in lab_registry.LABS.items() if lab.startswith("11.") and not entry.optional)
"""The labs of the chapter's fifteen checks: an optional lab's checks (Lab 11.6's) run only when asked for by name."""


@dataclass(frozen=True)
class CheckRecord:
    number: int
    lab: str
    name: str
    rules: str
    status: Status
    message: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass(frozen=True)
class ChecklistReport:
    records: tuple[CheckRecord, ...]
    lab: str | None = None
    shared: str = ""
    """The line saying what this run shared with the live lab (``live.share``); empty when nothing was."""

    @property
    def passed(self) -> int:
        return sum(record.passed for record in self.records)

    @property
    def total(self) -> int:
        return len(self.records)

    @property
    def all_passed(self) -> bool:
        return self.passed == self.total

    @property
    def summary(self) -> str:
        scope = lab_registry.lab(self.lab).spoken_label() if self.lab else MESSAGES("Chapter 11 checklist")
        return MESSAGES("{scope}: {passed}/{total} passed").format(scope=scope, passed=self.passed, total=self.total)

    def to_dataframe(self) -> Any:
        import pandas as pd

        return pd.DataFrame([asdict(record) for record in self.records]).set_index("number")

    def to_gradescope(self) -> list[dict[str, Any]]:
        """One Gradescope test per check (score 1 when passed)."""
        return [
            {
                "name": f"Lab {r.lab} · {r.name}",
                "number": str(r.number),
                "score": 1 if r.passed else 0,
                "max_score": 1,
                "status": "passed" if r.passed else "failed",
                "output": r.message or r.status,
            }
            for r in self.records
        ]

    def __str__(self) -> str:
        width = max((len(r.name) for r in self.records), default=4)
        lab, check, status = (MESSAGES(HEADERS[i]) for i in (1, 2, 4))
        lines = [f"{'#':>2}  {_padded(lab, 4)}  {_padded(check, width)}  {status}"]
        for r in self.records:
            lines.append(f"{r.number:>2}  {r.lab:<4}  {r.name:<{width}}  {_mark(r.status)}")
            if r.message and not r.passed:
                lines.append(f"{'':>2}  {'':<4}  ↳ {r.message}")
        lines.append(self.summary)
        return "\n".join([*lines, self.shared] if self.shared else lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{r.number}</td><td>{r.lab}</td><td><code>{html.escape(r.name)}</code></td>"
            f"<td {_NOWRAP}>{r.rules}</td><td {_NOWRAP}>{_mark(r.status)}</td><td>{html.escape(r.message)}</td></tr>"
            for r in self.records
        )
        head = "".join(
            f"<th>{html.escape(MESSAGES(h))}</th>" for h in ("#", "lab", "check", "rules", "status", "what broke")
        )
        head = f"<tr>{head}</tr>"
        shared = f"<p>{html.escape(self.shared)}</p>" if self.shared else ""
        return f"<table>{head}{rows}</table><p><b>{html.escape(self.summary)}</b></p>{shared}"


_NOWRAP = 'style="white-space: nowrap"'
"""A status (❌ 未通过) and a check's rules read on one line, however narrow the page makes the message column."""
MARKS: Mapping[Status, tuple[str, str]] = {
    "passed": ("✅", message("passed")),
    "failed": ("❌", message("failed")),
    "error": ("💥", message("error")),
    "not implemented yet": ("⏳", message("not implemented yet")),
}
"""Each status's mark in the table, said in the reader's language (the record's ``status`` stays English data)."""
HEADERS = ("#", message("lab"), message("check"), message("rules"), message("status"), message("what broke"))


def _padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns as a terminal shows it: a Chinese character takes two."""
    columns = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)
    return text + " " * max(0, width - columns)


def _mark(status: Status) -> str:
    mark, word = MARKS[status]
    return f"{mark} {MESSAGES(word)}"


def select(lab: str | int | None = None) -> list[Case]:
    """The checks of one lab (``"11.3"``, ``"Lab 11.3"``, ``3`` or ``"capstone"``), or the chapter's fifteen."""
    if lab is None:
        return [c for c in CASES if c.lab in CHAPTER_LABS]
    wanted = normalise_lab(lab)
    return [c for c in CASES if c.lab == wanted]


def normalise_lab(lab: str | int | float) -> str:
    return lab_registry.lab(lab).id


def run_case(case: Case, implementation: Implementation) -> CheckRecord:
    """Run one check as the grader does: record it, then judge the record against the reference's."""
    return judge_record(case, transported(record_case(case, implementation)))


def transported(record: dict[str, Any]) -> Any:
    """``record`` as the grader receives it from a kernel: through JSON (``default=repr`` for anything else)."""
    return json.loads(json.dumps(record, default=repr))


def _crash(exc: BaseException) -> str:
    first_line = "the memory limit was reached" if isinstance(exc, MemoryError) else (str(exc).splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first_line[:300]}"


# --- the grader's split: record in the kernel, judge outside ------------------------


def record_case(case: Case, implementation: Implementation) -> dict[str, Any]:
    """Run one check recording every expectation instead of judging it (the kernel side).

    The record is plain JSON: the points in order, and how the run ended
    (``completed``, ``not implemented yet``, or ``error`` with the exception).
    The check runs within ``bounds.bounded()``: a learner's endless loop or
    runaway memory ends it with ``stopped`` saying which bound, never a hang.
    A crash right after a lab function returned ``None`` is reported as that
    return (``stopped``), not as the ``AttributeError`` it caused in the check.
    """
    calls = _Calls()
    bound: bounds.Bound | None = None
    with recording() as recorder:
        try:
            with bounds.bounded() as bound:
                case.run(calls.watching(implementation))
            end: dict[str, Any] = {"status": "completed"}
        except NotImplementedError as exc:
            end = {"status": "not implemented yet", "message": str(exc)[:300] or "not implemented yet"}
        except KeyboardInterrupt as exc:
            if bound is None or not bound.reached:
                raise  # the learner interrupted the kernel: not a verdict
            stopped = bound.description
            end = {"status": "error", "message": _crash(exc), "type": "bound", "stopped": stopped}
            end["stopped_wording"] = wording_of(stopped)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a crash in learner code ends the check, it is reported
            end = {"status": "error", "message": _crash(exc), "type": type(exc).__name__}
            if isinstance(exc, Diagnosis):
                end["explained"] = exc.explanation
                end["explained_wording"] = wording_of(exc.explanation)
            elif calls.returned_none and isinstance(exc, (AttributeError, TypeError, IndexError, KeyError)):
                returned = say(RETURNED_NONE, function=calls.returned_none)
                end["stopped"], end["stopped_wording"] = returned, wording_of(returned)
    return {"points": [point.to_json() for point in recorder.points], **end}


RETURNED_NONE = message("{function} returned None")
STOPS = {template: template for template in (RETURNED_NONE, bounds.MEMORY_REACHED, bounds.TIME_REACHED)}
"""What can stop a check in the learner's kernel, as templates: the only ones a record's ``stopped`` may use."""


class _Calls:
    """Which lab function last returned ``None`` (``returned_none``), noted as the check calls them."""

    def __init__(self) -> None:
        self.returned_none: str | None = None

    def watching(self, implementation: Implementation) -> Implementation:
        return Implementation(**{name: self._watch(name, getattr(implementation, name)) for name in FUNCTION_NAMES})

    def _watch(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            self.returned_none = None
            value = function(*args, **kwargs)
            if value is None:
                self.returned_none = name
            return value

        return call


class ReferenceFailsError(CourseError, RuntimeError):
    """A check fails on the course's own reference: a bug in the course, never the learner's fault."""


@functools.cache
def trusted_points(number: int) -> tuple[Point, ...]:
    """The points of check ``number`` as the reference states them: what the grader judges against."""
    case = next(c for c in CASES if c.number == number)
    record = record_case(case, Implementation())
    if record["status"] != "completed":
        raise ReferenceFailsError(f"check {number} fails on the reference: {record.get('message')}")
    return tuple(Point.from_json(point) for point in record["points"])


def judge_record(case: Case, record: Mapping[str, Any], chosen: str | None = None) -> CheckRecord:
    """Judge a record from the learner's kernel against the reference's own run of the check.

    Points are compared in order; the first that fails decides, as it would in
    the learner's notebook. A record that stops early reports why it stopped.
    The message is said in ``chosen`` (else the reader's language); the status
    never depends on it.
    """
    trusted = trusted_points(case.number)
    points = record.get("points")
    observed: list[Any] = points if isinstance(points, list) else []
    for index, expected in enumerate(trusted):
        if index >= len(observed):
            break
        try:
            point = Point.from_json(observed[index])
        except ValueError as exc:
            return _record(case, "failed", str(exc))
        message = verdict(point, expected, chosen)
        if message:
            return _record(case, "failed", message)
    status = record.get("status")
    if status == "not implemented yet":
        return _record(
            case, "not implemented yet", lab_registry.spoken_stub(str(record.get("message", ""))[:300], chosen)
        )
    if status == "error":
        explained = record.get("explained")
        if isinstance(explained, str) and explained:
            return _record(case, "error", render_known(record.get("explained_wording"), DIAGNOSES, chosen)[:400])
        stopped = record.get("stopped")
        why = None
        if isinstance(stopped, str) and stopped:
            why = render_known(record.get("stopped_wording"), STOPS, chosen)[:400]
        crash = str(record.get("message", "error"))[:400]
        return _record(case, "error", _stopped(trusted, len(observed), crash, why, chosen))
    if status != "completed" or len(observed) != len(trusted):
        return _record(
            case, "failed", MESSAGES("the check ran differently in your kernel (was course_lib changed?)", chosen)
        )
    return _record(case, "passed", "")


def _stopped(
    trusted: tuple[Point, ...], reached: int, crash: str, why: str | None = None, chosen: str | None = None
) -> str:
    """A check that stopped with an exception, named by the rule of the observation it was making.

    Every observation before it passed, so the reference's next point is what
    the learner's code failed to produce (a valid input rejected, R12's result
    placed before its call): its rule says what the expected behaviour follows.
    ``why`` replaces "it raised ..." when the record knows better: a function
    that returned None, a bound that stopped the check, a diagnosis.
    """
    because = why or MESSAGES("it raised {crash}", chosen).format(crash=crash)  # the learner's, said as theirs
    if reached >= len(trusted):
        return because
    point = trusted[reached]
    return MESSAGES("{rule}: {what} — expected a result, but {because}", chosen).format(
        rule=point.rule, what=said(point, point, chosen), because=because
    )


def _record(case: Case, status: Status, message: str) -> CheckRecord:
    return CheckRecord(case.number, case.lab, case.name, case.rules, status, message)


def run(lab: str | int | None = None, **functions: Callable[..., Any]) -> ChecklistReport:
    """Run the fifteen checks (or one lab's) against the reference or the functions given by name.

    Once the learner has joined a live lab, the verdicts are shared too (``live.share``; the report says so).

    A name no lab grades is refused before anything runs (``UnknownFunctionError``, from ``Implementation``).
    """
    implementation = Implementation(**functions)
    records = tuple(run_case(case, implementation) for case in select(lab))
    return ChecklistReport(records, normalise_lab(lab) if lab is not None else None, live.share(records))


def records_for(cases: Iterable[Case], implementation: Implementation) -> tuple[CheckRecord, ...]:
    return tuple(run_case(case, implementation) for case in cases)
