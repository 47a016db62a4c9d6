"""The projection explorer: what one ``build_context`` call keeps, drops and pays for.

The pure functions (``project``, ``projection_table``, ``budget_breakdown``) ask
``build_context`` itself and only label its answer, so the explorer can never
disagree with the projection it explains (R16–R22). ``ProjectionExplorer`` wraps
them in sliders for notebooks; every redraw is one more pure call.

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

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import pandas as pd
from pydantic import BaseModel

from .compaction import summary_message
from .context import BuildContextResult, Estimator, build_context, is_token_count, latest_compaction
from .errors import InteractionError
from .fixtures import OPENING_BUDGET, RESUME_BUDGET, opening_path, resumed_path, system_replay_path, teaching_estimator
from .grouping import interaction_spans
from .models import MessageEntry, SessionEntry, SystemMessage
from .parsing import fresh_copy, parse_session_entry

COLUMNS = ("id", "kind", "group", "cost", "status")
STATUSES = ("replayed system", "kept", "dropped", "summarized", "skipped", "summary")
SEGMENTS = ("system", "summary", "kept messages", "reserved output", "safety margin", "unused")

STATUS_COLOURS = {
    "replayed system": "#d9d9d9",
    "kept": "#b7e1b0",
    "dropped": "#f4b6b6",
    "summarized": "#c9d7f2",
    "skipped": "#f5f5f5",
    "summary": "#ffd98a",
}
SEGMENT_COLOURS = {
    "system": "#9e9e9e",
    "summary": "#f0b429",
    "kept messages": "#4caf50",
    "reserved output": "#5c8dd6",
    "safety margin": "#a58bd6",
    "unused": "#eeeeee",
}


@dataclass(frozen=True)
class Scenario:
    """A path from the chapter (§7) and the budget the chapter reads it with."""

    description: str
    path: Callable[[], list[SessionEntry]]
    budget: dict[str, int]


SCENARIOS: dict[str, Scenario] = {
    "opening path": Scenario(
        "The ten entries sys … a3 at the chapter's 31-token budget.", opening_path, OPENING_BUDGET
    ),
    "after compact-1, then u4 → a4": Scenario(
        "compact-1 keeps from u2; u4 → a4 were appended after it.", resumed_path, RESUME_BUDGET
    ),
    "system-replay path": Scenario(
        "System patches before and after compact-1 replay into one system message (R6).",
        system_replay_path,
        RESUME_BUDGET,
    ),
}


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
) -> Projection:
    """Build the context once and label every path entry with what happened to it."""
    path = [entry if isinstance(entry, BaseModel) else parse_session_entry(entry) for entry in active_path]
    result = build_context(
        path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
    )
    rows, summary_cost, groups = _rows(path, result, estimate_tokens)
    return Projection(
        result=result,
        table=_frame(rows),
        breakdown=_breakdown(result, summary_cost),
        reason=_reason(result, summary_cost, groups),
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


Row = tuple[str, str, int | None, int | float | None, str]


@dataclass(frozen=True)
class _Groups:
    """Group numbers count from the start of the path, as the chapter does ("keeps groups 2 and 3")."""

    number: dict[str, int]
    cost: dict[int, int | float]
    candidates: list[int]  # the groups build_context chose from, oldest first


def _rows(
    path: list[SessionEntry], result: BuildContextResult, estimate_tokens: Estimator
) -> tuple[list[Row], int | float, _Groups]:
    def cost(message: Any) -> int | float:
        value = estimate_tokens(fresh_copy(message))  # R15: the estimator sees a copy
        if not is_token_count(value):
            raise ValueError(f"estimate_tokens returned {value!r}; expected a finite number >= 0 (R15)")
        return value

    compaction = latest_compaction(path)
    first_kept = compaction.first_kept_entry_id if compaction else None
    messages = [entry for entry in path if isinstance(entry, MessageEntry)]
    start = next((i for i, entry in enumerate(messages) if entry.id == first_kept), 0)
    prefix, candidates = _spans(messages[:start]), interaction_spans(messages[start:])
    groups = _Groups({}, {}, list(range(len(prefix) + 1, len(prefix) + len(candidates) + 1)))
    for number, group in enumerate(prefix + candidates, start=1):
        groups.cost[number] = 0
        for entry in group:
            groups.number[entry.id] = number
            groups.cost[number] += cost(entry.message)

    kept = set(result.kept_entry_ids)
    summarized = {entry.id for entry in messages[:start]}
    rows: list[Row] = []
    summary_cost: int | float = 0
    for entry in path:
        if isinstance(entry, MessageEntry):
            message = entry.message
            if isinstance(message, SystemMessage):
                status = "replayed system"
            elif entry.id in kept:
                status = "kept"
            elif entry.id in summarized:
                status = "summarized"
            else:
                status = "dropped"
            rows.append((entry.id, message.role, groups.number.get(entry.id), cost(message), status))
        else:
            rows.append((entry.id, entry.type, None, None, "skipped"))
            if entry is compaction:
                summary_cost = cost(summary_message(entry))
                rows.append((f"{entry.id}:summary", "user (synthetic)", None, summary_cost, "summary"))
    return rows, summary_cost, groups


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
    """One sentence a learner can check by hand against the table (R17–R20)."""
    t = result.tokens
    room = t.available_for_messages - summary_cost
    head = (
        f"{t.max_tokens:g} − system {t.system:g} − reserved {t.reserved_output:g} − margin {t.safety_margin:g}"
        f" leaves {t.available_for_messages:g} for messages"
    )
    if summary_cost and room < 0:
        head += f"; the summary alone takes {summary_cost:g}, so nothing is left for groups"
    elif summary_cost:
        head += f"; the summary takes {summary_cost:g}, so {room:g} are left for groups"
    kept = sorted({groups.number[i] for i in result.kept_entry_ids})
    cost = {n: groups.cost[n] for n in groups.cost}
    if result.reason == "within_budget":
        return f"within_budget: {head}; every group fits ({_listed(kept, cost)})."
    if result.reason == "trimmed":
        dropped = [n for n in groups.candidates if n not in kept]
        used = sum(cost[n] for n in kept)
        return (
            f"trimmed: {head}; newest first, {_listed(kept, cost)} fit, using {used:g}; "
            f"group {dropped[-1]} ({cost[dropped[-1]]:g}) does not fit in the {room - used:g} left, "
            f"so it and everything older is dropped."
        )
    newest = groups.candidates[-1]
    return (
        f"single_group_overflow: {head}; the newest group, {newest}, alone costs {cost[newest]:g}, "
        f"so it is sent whole anyway and the total {t.total:g} exceeds max_tokens {t.max_tokens:g}."
    )


def _listed(numbers: list[int], cost: dict[int, int | float]) -> str:
    if not numbers:
        return "no groups"
    word = "group" if len(numbers) == 1 else "groups"
    return f"{word} " + ", ".join(f"{n} ({cost[n]:g})" for n in numbers)


# --- Rendering ------------------------------------------------------------------------


def table_html(table: pd.DataFrame) -> str:
    """The table as plain HTML, one ``status-…`` class per row so a browser test can count rows."""
    header = "".join(f"<th style='padding:2px 8px;text-align:left'>{name}</th>" for name in table.columns)
    body = []
    for record in table.itertuples(index=False):
        status = record.status
        cells = "".join(
            f"<td style='padding:2px 8px'>{'' if pd.isna(value) else html.escape(str(value))}</td>"
            for value in record
        )
        css = "status-" + status.replace(" ", "-")
        body.append(f"<tr class='{css}' style='background:{STATUS_COLOURS[status]}'>{cells}</tr>")
    return (
        "<table class='projection-rows' style='border-collapse:collapse;font-family:monospace;line-height:1.4'>"
        f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def budget_bar_svg(breakdown: dict[str, int | float], *, width: int = 640) -> str:
    """A stacked bar drawn to scale; a red line marks ``max_tokens`` when the total overflows it."""
    segments = [(name, breakdown[name]) for name in SEGMENTS]
    scale_total = sum(value for _, value in segments) or 1
    max_tokens = scale_total - breakdown["over budget"]
    px = width / scale_total
    parts, x = [], 0.0
    for name, value in segments:
        if value <= 0:
            continue
        w = value * px
        label = f"{name} {value:g}"
        parts.append(
            f"<rect x='{x:.1f}' y='0' width='{w:.1f}' height='26' fill='{SEGMENT_COLOURS[name]}' "
            f"stroke='white'><title>{label}</title></rect>"
        )
        if w > 7 * len(f"{value:g}"):
            parts.append(f"<text x='{x + w / 2:.1f}' y='17' text-anchor='middle' font-size='12'>{value:g}</text>")
        x += w
    if breakdown["over budget"] > 0:
        mx = max_tokens * px
        parts.append(f"<line x1='{mx:.1f}' y1='-4' x2='{mx:.1f}' y2='30' stroke='#d32f2f' stroke-width='3'/>")
        parts.append(
            f"<text x='{min(mx + 4, width - 4):.1f}' y='42' font-size='12' fill='#d32f2f' "
            f"text-anchor='{'start' if mx < width / 2 else 'end'}'>max_tokens {max_tokens:g} "
            f"(over by {breakdown['over budget']:g})</text>"
        )
    legend, lx = [], 0
    for name, _ in segments:
        legend.append(
            f"<rect x='{lx}' y='50' width='12' height='12' fill='{SEGMENT_COLOURS[name]}' stroke='#999'/>"
            f"<text x='{lx + 16}' y='60' font-size='12'>{name}</text>"
        )
        lx += 16 + 7 * len(name) + 14
    return (
        f"<svg class='budget-bar' xmlns='http://www.w3.org/2000/svg' width='{width}' height='68' "
        f"viewBox='0 -6 {width} 74' font-family='sans-serif'>{''.join(parts)}{''.join(legend)}</svg>"
    )


# --- The widget -----------------------------------------------------------------------


class ProjectionExplorer:
    """Sliders and a scenario selector; every change redraws the table, the bar and the reason.

    Choosing a scenario moves the sliders to that scenario's budget from the chapter.
    The last projection is kept in ``.projection`` so tests can read what is shown.
    """

    def __init__(
        self, scenario: str = "opening path", *, estimate_tokens: Estimator = teaching_estimator
    ) -> None:
        self.estimate_tokens = estimate_tokens
        look = {"style": {"description_width": "120px"}, "layout": widgets.Layout(width="520px")}
        self.scenario = widgets.Dropdown(options=list(SCENARIOS), value=scenario, description="scenario", **look)
        budget = SCENARIOS[scenario].budget

        def slider(name: str, top: int) -> widgets.IntSlider:
            return widgets.IntSlider(budget[name], min=0, max=top, description=name, **look)

        self.max_tokens = slider("max_tokens", 120)
        self.reserved_output = slider("reserved_output", 40)
        self.safety_margin = slider("safety_margin", 20)
        self.table = widgets.HTML()
        self.bar = widgets.HTML()
        self.reason = widgets.HTML()
        for control, css in (
            (self.scenario, "projection-scenario"),
            (self.max_tokens, "projection-max-tokens"),
            (self.reserved_output, "projection-reserved-output"),
            (self.safety_margin, "projection-safety-margin"),
            (self.table, "projection-table"),
            (self.bar, "projection-budget"),
            (self.reason, "projection-reason"),
        ):
            control.add_class(css)
        self.widget = widgets.VBox(
            [self.scenario, self.max_tokens, self.reserved_output, self.safety_margin]
            + [self.bar, self.reason, self.table]
        )
        self.widget.add_class("projection-explorer")
        self._holding = False
        self.projection: Projection | None = None
        for slider in (self.max_tokens, self.reserved_output, self.safety_margin):
            slider.observe(self._changed, names="value")
        self.scenario.observe(self._scenario_changed, names="value")
        self.redraw()

    def redraw(self) -> Projection:
        self.projection = project(
            SCENARIOS[self.scenario.value].path(),
            max_tokens=self.max_tokens.value,
            reserved_output=self.reserved_output.value,
            safety_margin=self.safety_margin.value,
            estimate_tokens=self.estimate_tokens,
        )
        self.table.value = table_html(self.projection.table)
        self.bar.value = budget_bar_svg(self.projection.breakdown)
        reason, because = self.projection.reason.split(": ", 1)
        kept = len(self.projection.result.kept_entry_ids)
        self.reason.value = (
            f"<div style='max-width:640px;line-height:1.4;margin:4px 0'><b>{reason}</b> · {kept} entries kept"
            f"<br>{html.escape(because)}</div>"
        )
        return self.projection

    def _changed(self, _change: dict[str, Any]) -> None:
        if not self._holding:
            self.redraw()

    def _scenario_changed(self, change: dict[str, Any]) -> None:
        budget = SCENARIOS[change["new"]].budget
        self._holding = True
        try:
            self.max_tokens.value = budget["max_tokens"]
            self.reserved_output.value = budget["reserved_output"]
            self.safety_margin.value = budget["safety_margin"]
        finally:
            self._holding = False
        self.redraw()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
