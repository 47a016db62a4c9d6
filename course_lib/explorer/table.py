"""The explorer's table: what one ``build_context`` call keeps, drops and pays for, entry by entry.

The pure functions (``project``, ``projection_table``, ``budget_breakdown``) ask
``build_context`` itself and only label its answer, so the explorer can never
disagree with the projection it explains (R16–R22).

Row statuses, one per path entry plus one synthetic row for the summary:

| status | meaning |
|---|---|
| ``replayed system`` | a system message: folded into the replayed head, never in a group (R14, R16) |
| ``kept`` | a message entry whose message is in this call's input (R19, R21) |
| ``dropped`` | a message entry the budget left out: an older whole group (R19) |
| ``summarized`` | before the latest compaction's ``firstKeptEntryId``: the summary stands in for it (R18) |
| ``skipped`` | a metadata or compaction entry: never sent as itself (R18) |
| ``summary`` | the synthetic user message made from the latest compaction (R18) |

System rows show each system message's own cost; the budget pays for the one
replayed message (``tokens.system``), which is why three system messages of
3 + 2 + 3 tokens can cost 6 together (R5, R16).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel

from ..compaction import summary_message
from ..context import (
    BuildContextResult,
    EstimatedPath,
    Estimator,
    check_budget,
    estimate_path,
    is_token_count,
    latest_compaction,
    select_context,
)
from ..errors import EstimateError, InteractionError
from ..fixtures import OPENING_BUDGET, RESUME_BUDGET, opening_path, resumed_path, system_replay_path, teaching_estimator
from ..grouping import interaction_spans
from ..models import MessageEntry, SessionEntry, SystemMessage
from ..parsing import fresh_copy, parse_session_entry
from ..teaching.i18n import MESSAGES, message
from .reason import reason_sentence

COLUMNS = ("id", "kind", "group", "cost", "status")
STATUSES = ("replayed system", "kept", "dropped", "summarized", "skipped", "summary")
SEGMENTS = ("system", "summary", "kept messages", "reserved output", "safety margin", "unused")


@dataclass(frozen=True)
class Scenario:
    """A path from the chapter's example and the budget the chapter reads it with."""

    description: str
    path: Callable[[], list[SessionEntry]]
    budget: dict[str, int]


SCENARIOS: dict[str, Scenario] = {
    "opening path": Scenario(
        message("The ten entries sys … a3 at the chapter's 31-token budget."), opening_path, OPENING_BUDGET
    ),
    "after compact-1, then u4 → a4": Scenario(
        message("compact-1 keeps from u2; u4 → a4 were appended after it."), resumed_path, RESUME_BUDGET
    ),
    "system-replay path": Scenario(
        message("System patches before and after compact-1 replay into one system message (R6)."),
        system_replay_path,
        RESUME_BUDGET,
    ),
}


def scenario_table() -> pd.DataFrame:
    """The scenarios and the budget the chapter reads each with, one row per scenario, in the reader's language.

    A scenario's name is its key (the widget's choice) and stays English; its
    description and the headers are translated where shown (issue 32).

    The descriptions are longer than pandas' default 50-character cells; show the
    table under ``pd.option_context("display.max_colwidth", None)`` so none is cut.
    """
    return pd.DataFrame(
        [
            (name, MESSAGES(s.description), "{max_tokens} / {reserved_output} / {safety_margin}".format(**s.budget))
            for name, s in SCENARIOS.items()
        ],
        columns=[MESSAGES("scenario"), MESSAGES("what it shows"), "max_tokens / reserved_output / safety_margin"],
    )


@dataclass(frozen=True)
class Projection:
    """One ``build_context`` answer with the labels the explorer shows."""

    result: BuildContextResult
    table: pd.DataFrame
    breakdown: dict[str, int | float]
    reason: str


def project(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: int | float,
    reserved_output: int | float,
    safety_margin: int | float,
    estimate_tokens: Estimator = teaching_estimator,
    layout: PathLayout | None = None,
) -> Projection:
    """Build the context once and label every path entry with what happened to it.

    ``layout`` (``path_layout`` of the same path and estimator) holds everything the
    budget cannot change, estimates included, so the explorer's redraw after a slider
    move only re-selects groups: ``select_context``, the half of ``build_context`` that
    chooses, decides from the estimates ``build_context`` itself made (R15–R22).
    """
    budget = check_budget(max_tokens, reserved_output, safety_margin)  # R15: refused before any estimate
    if layout is None:
        layout = path_layout(active_path, estimate_tokens)
    result = select_context(layout.estimated, **budget)
    return Projection(
        result=result,
        table=_table(layout, result),
        breakdown=_breakdown(result, layout.summary_cost),
        reason=_reason(result, layout.summary_cost, layout.groups),
    )


def projection_table(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: int | float,
    reserved_output: int | float,
    safety_margin: int | float,
    estimate_tokens: Estimator = teaching_estimator,
) -> pd.DataFrame:
    """One row per path entry in path order, the summary row right after its compaction."""
    return project(
        active_path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
    ).table


def budget_breakdown(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: int | float,
    reserved_output: int | float,
    safety_margin: int | float,
    estimate_tokens: Estimator = teaching_estimator,
) -> dict[str, int | float]:
    """Where the budget goes (R22).

    The six ``SEGMENTS`` add up to ``max(total, max_tokens)``; ``over budget`` is
    ``total - max_tokens`` when the newest group alone overflowed (R20), else 0.
    """
    return project(
        active_path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
    ).breakdown


Row = tuple[str, str, int | None, int | float | None, str | None]


@dataclass(frozen=True)
class _Groups:
    """Group numbers count from the start of the path, as the chapter does ("keeps groups 2 and 3")."""

    number: dict[str, int]
    cost: dict[int, int | float]
    candidates: list[int]  # the groups build_context chose from, oldest first


@dataclass(frozen=True)
class PathLayout:
    """Everything about the rows that the budget does not change: ids, kinds, groups, costs.

    A message row's status is fixed (``replayed system``, ``summarized``) or ``None``:
    ``kept`` or ``dropped`` is then the budget's decision (R18, R19).
    """

    rows: tuple[Row, ...]
    groups: _Groups
    summary_cost: int | float
    estimated: EstimatedPath = field(repr=False, compare=False)
    """What ``build_context`` estimated on this path: ``select_context`` decides from it."""
    frame: pd.DataFrame = field(repr=False, compare=False)
    """The table with the fixed statuses; the undecided rows' statuses are filled per budget."""
    undecided: np.ndarray = field(repr=False, compare=False)
    """The positions of the rows whose status the budget decides, and (below) their groups."""
    undecided_groups: np.ndarray = field(repr=False, compare=False)


def path_layout(active_path: Sequence[SessionEntry], estimate_tokens: Estimator) -> PathLayout:
    """Number the groups from the start of the path and estimate every row once (R14, R15, R18).

    ``build_context``'s own estimates come first (``estimate_path``), so a bad estimate is
    refused with its words; then each row's cost, for the table.
    """

    def cost(message: Any) -> int | float:
        value = estimate_tokens(fresh_copy(message))  # R15: the estimator sees a copy
        if not is_token_count(value):
            raise EstimateError(f"estimate_tokens returned {value!r}; expected a finite number >= 0 (R15)")
        return value

    path = [entry if isinstance(entry, BaseModel) else parse_session_entry(entry) for entry in active_path]
    estimated = estimate_path(path, estimate_tokens)
    compaction = latest_compaction(path)
    first_kept = compaction.first_kept_entry_id if compaction else None
    messages = [entry for entry in path if isinstance(entry, MessageEntry)]
    start = next((i for i, entry in enumerate(messages) if entry.id == first_kept), 0)
    prefix, candidates = _spans(messages[:start]), interaction_spans(messages[start:])
    groups = _Groups({}, {}, list(range(len(prefix) + 1, len(prefix) + len(candidates) + 1)))
    costs = {entry.id: cost(entry.message) for entry in messages}
    for number, group in enumerate(prefix + candidates, start=1):
        groups.cost[number] = 0
        for member in group:
            groups.number[member.id] = number
            groups.cost[number] += costs[member.id]

    summarized = {entry.id for entry in messages[:start]}
    rows: list[Row] = []
    summary_cost: int | float = 0
    for entry in path:
        if isinstance(entry, MessageEntry):
            message = entry.message
            status = (
                "replayed system"
                if isinstance(message, SystemMessage)
                else "summarized"
                if entry.id in summarized
                else None
            )
            rows.append((entry.id, message.role, groups.number.get(entry.id), costs[entry.id], status))
        else:
            rows.append((entry.id, entry.type, None, None, "skipped"))
            if compaction is not None and entry is compaction:
                summary_cost = cost(summary_message(compaction))
                rows.append((f"{entry.id}:summary", "user (synthetic)", None, summary_cost, "summary"))
    undecided = [position for position, row in enumerate(rows) if row[4] is None]
    return PathLayout(
        rows=tuple(rows),
        groups=groups,
        summary_cost=summary_cost,
        estimated=estimated,
        frame=_frame([row if row[4] is not None else (*row[:4], "dropped") for row in rows]),
        undecided=np.array(undecided, dtype=np.intp),
        undecided_groups=np.array([rows[position][2] for position in undecided], dtype=np.int64),
    )


def _table(layout: PathLayout, result: BuildContextResult) -> pd.DataFrame:
    """The layout's table with the budget's decision filled in: kept, or else dropped (R19).

    Only the status column is new; pandas shares the other columns with the layout's
    frame until someone changes them (copy-on-write), so a redraw costs one column.
    """
    kept_groups = sorted({layout.groups.number[entry_id] for entry_id in result.kept_entry_ids})
    statuses = layout.frame["status"].to_numpy(dtype=object, copy=True)
    kept = np.isin(layout.undecided_groups, kept_groups)
    statuses[layout.undecided] = np.where(kept, "kept", "dropped")
    table = layout.frame.copy()
    table["status"] = pd.array(statuses, dtype=layout.frame["status"].dtype)
    return table


def _spans(entries: list[MessageEntry]) -> list[tuple[MessageEntry, ...]]:
    """Groups of the summarized prefix; a prefix that does not group gets no numbers (it is never sent)."""
    try:
        return interaction_spans(entries)
    except InteractionError:
        return []


def _frame(rows: list[Row]) -> pd.DataFrame:
    costs = [row[3] for row in rows]
    whole = all(c is None or float(c).is_integer() for c in costs)
    return pd.DataFrame(
        {
            "id": [row[0] for row in rows],
            "kind": [row[1] for row in rows],
            "group": pd.array([row[2] for row in rows], dtype="Int64"),
            "cost": pd.array(
                [None if c is None else int(c) if whole else c for c in costs],
                dtype="Int64" if whole else "Float64",
            ),
            "status": [row[4] for row in rows],
        },
        columns=list(COLUMNS),
    )


def _breakdown(result: BuildContextResult, summary_cost: int | float) -> dict[str, int | float]:
    tokens = result.tokens
    unused = max(0, tokens.max_tokens - tokens.total)
    return {
        "system": tokens.system,
        "summary": summary_cost,
        "kept messages": tokens.messages - summary_cost,
        "reserved output": tokens.reserved_output,
        "safety margin": tokens.safety_margin,
        "unused": unused,
        "over budget": max(0, tokens.total - tokens.max_tokens),
    }


def _reason(result: BuildContextResult, summary_cost: int | float, groups: _Groups) -> str:
    """The sentence a learner checks by hand against the table (``reason.reason_sentence``, R17–R20)."""
    kept = sorted({groups.number[i] for i in result.kept_entry_ids})
    return reason_sentence(result, summary_cost, kept, groups.candidates, groups.cost)
