"""Run the checklist against any implementation and report one row per check."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from .cases import CASES, Case, Implementation
from .expect import ChecklistFailure

Status = Literal["passed", "failed", "not implemented yet", "error"]
LABS = ("11.1", "11.2", "11.3", "11.4", "11.5")
FUNCTION_NAMES = tuple(f.name for f in fields(Implementation))


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
        scope = f"Lab {self.lab}" if self.lab else "Chapter 11 checklist"
        return f"{scope}: {self.passed}/{self.total} passed"

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
        lines = [f"{'#':>2}  {'lab':<4}  {'check':<{width}}  status"]
        for r in self.records:
            lines.append(f"{r.number:>2}  {r.lab:<4}  {r.name:<{width}}  {_mark(r.status)}")
            if r.message and not r.passed:
                lines.append(f"{'':>2}  {'':<4}  ↳ {r.message}")
        lines.append(self.summary)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{r.number}</td><td>{r.lab}</td><td><code>{html.escape(r.name)}</code></td>"
            f"<td>{r.rules}</td><td>{_mark(r.status)}</td><td>{html.escape(r.message)}</td></tr>"
            for r in self.records
        )
        head = "<tr><th>#</th><th>lab</th><th>check</th><th>rules</th><th>status</th><th>what broke</th></tr>"
        return (
            f"<table>{head}{rows}</table><p><b>{html.escape(self.summary)}</b></p>"
        )


def _mark(status: Status) -> str:
    return {"passed": "✅ passed", "failed": "❌ failed", "error": "💥 error", "not implemented yet": "⏳ not implemented yet"}[status]


def select(lab: str | None = None) -> list[Case]:
    """The checks of one lab (``"11.3"``, ``"Lab 11.3"`` or ``3``), or all fifteen."""
    if lab is None:
        return list(CASES)
    wanted = normalise_lab(lab)
    return [c for c in CASES if c.lab == wanted]


def normalise_lab(lab: str | int | float) -> str:
    text = str(lab).strip().lower().removeprefix("lab").strip()
    if text in {"1", "2", "3", "4", "5"}:
        text = f"11.{text}"
    if text not in LABS:
        raise ValueError(f"unknown lab {lab!r}; choose one of {', '.join(LABS)}")
    return text


def run_case(case: Case, implementation: Implementation) -> CheckRecord:
    """Run one check; a learner's NotImplementedError is a status, not a traceback."""
    try:
        case.run(implementation)
    except NotImplementedError as exc:
        return _record(case, "not implemented yet", str(exc) or "not implemented yet")
    except ChecklistFailure as exc:
        return _record(case, "failed", str(exc))
    except Exception as exc:  # noqa: BLE001 - any crash in learner code is reported, not raised
        first_line = (str(exc).splitlines() or [""])[0]
        return _record(case, "error", f"{type(exc).__name__}: {first_line}")
    return _record(case, "passed", "")


def _record(case: Case, status: Status, message: str) -> CheckRecord:
    return CheckRecord(case.number, case.lab, case.name, case.rules, status, message)


def run(lab: str | int | None = None, **functions: Callable[..., Any]) -> ChecklistReport:
    """Run the fifteen checks (or one lab's) against the reference or the functions given by name."""
    unknown = sorted(set(functions) - set(FUNCTION_NAMES))
    if unknown:
        raise TypeError(f"unknown lab function(s) {unknown}; expected some of {list(FUNCTION_NAMES)}")
    implementation = Implementation(**functions)
    records = tuple(run_case(case, implementation) for case in select(lab))
    return ChecklistReport(records, normalise_lab(lab) if lab is not None else None)


def records_for(cases: Iterable[Case], implementation: Implementation) -> tuple[CheckRecord, ...]:
    return tuple(run_case(case, implementation) for case in cases)
