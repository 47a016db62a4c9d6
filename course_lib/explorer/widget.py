"""The explorer's widget: sliders and a scenario selector over the pure projection.

Every budget change is one more pure ``project`` call, drawn by ``render``. A long
session (``ProjectionExplorer.from_session``) is shown a page at a time, starting
at the page around the keep/drop boundary; turning a page only redraws the table.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets
from pydantic import BaseModel

from ..context import Estimator, select_context
from ..estimators import estimate_tokens_chars
from ..fixtures import teaching_estimator
from ..models import SessionEntry
from ..parsing import parse_session_entry
from ..teaching.i18n import MESSAGES
from .paging import PAGE_SIZE, Paging, paging
from .render import budget_bar_svg, table_html
from .table import SCENARIOS, PathLayout, Projection, Scenario, path_layout, project

CHAPTER_SLIDER_TOPS = {"max_tokens": 120, "reserved_output": 40, "safety_margin": 20}


class ProjectionExplorer:
    """Sliders and a scenario selector; every change redraws the table, the bar and the reason.

    Choosing a scenario moves the sliders to that scenario's budget from the chapter.
    The last projection is kept in ``.projection`` and its pages in ``.paging``, so
    tests can read what is shown.
    """

    def __init__(
        self,
        scenario: str = "opening path",
        *,
        estimate_tokens: Estimator = teaching_estimator,
        scenarios: Mapping[str, Scenario] | None = None,
        slider_tops: Mapping[str, int] | None = None,
        page_size: int = PAGE_SIZE,
    ) -> None:
        self.estimate_tokens = estimate_tokens
        self.scenarios = dict(SCENARIOS if scenarios is None else scenarios)
        tops = dict(CHAPTER_SLIDER_TOPS if slider_tops is None else slider_tops)
        look = {"style": {"description_width": "120px"}, "layout": widgets.Layout(width="520px")}
        choose = MESSAGES("scenario")
        self.scenario = widgets.Dropdown(options=list(self.scenarios), value=scenario, description=choose, **look)
        budget = self.scenarios[scenario].budget

        def slider(name: str) -> widgets.IntSlider:
            return widgets.IntSlider(budget[name], min=0, max=tops[name], description=name, **look)

        self.max_tokens = slider("max_tokens")
        self.reserved_output = slider("reserved_output")
        self.safety_margin = slider("safety_margin")
        per_page = MESSAGES("rows per page")
        self.page_size = widgets.BoundedIntText(page_size, min=1, max=1000, description=per_page, **look)
        self.page = widgets.IntSlider(1, min=1, max=1, description=MESSAGES("page"), **look)
        self.paging_controls = widgets.VBox([self.page_size, self.page])
        self.table = widgets.HTML()
        self.bar = widgets.HTML()
        self.reason = widgets.HTML()
        for control, css in (
            (self.scenario, "projection-scenario"),
            (self.max_tokens, "projection-max-tokens"),
            (self.reserved_output, "projection-reserved-output"),
            (self.safety_margin, "projection-safety-margin"),
            (self.page_size, "projection-page-size"),
            (self.page, "projection-page"),
            (self.table, "projection-table"),
            (self.bar, "projection-budget"),
            (self.reason, "projection-reason"),
        ):
            control.add_class(css)
        self.widget = widgets.VBox(
            [self.scenario, self.max_tokens, self.reserved_output, self.safety_margin]
            + [self.bar, self.reason, self.paging_controls, self.table]
        )
        self.widget.add_class("projection-explorer")
        self._holding = False
        self._path: list[SessionEntry] = []
        self._layout: PathLayout | None = None
        self.projection: Projection | None = None
        self.paging: Paging | None = None
        for control in (self.max_tokens, self.reserved_output, self.safety_margin):
            control.observe(self._changed, names="value")
        self.scenario.observe(self._scenario_changed, names="value")
        self.page.observe(self._page_changed, names="value")
        self.page_size.observe(self._page_size_changed, names="value")
        self._load(scenario)
        self.redraw()

    @classmethod
    def from_session(
        cls,
        source: str | os.PathLike[str] | Sequence[SessionEntry],
        *,
        estimate_tokens: Estimator = estimate_tokens_chars,
        max_tokens: int | None = None,
        reserved_output: int | None = None,
        safety_margin: int = 0,
        page_size: int = PAGE_SIZE,
    ) -> ProjectionExplorer:
        """The explorer on any session: a log file of any format ``load_session`` reads, or entries.

        Without a ``max_tokens`` the budget has room for the newer half of the
        interaction groups, so the boundary between dropped and kept groups is in
        view; the sliders reach past what sending every group would cost.
        """
        if isinstance(source, (str, os.PathLike)):
            from ..importers import load_session  # the importers are only needed for a file

            name, entries = Path(source).name, list(load_session(source).entries)
        else:
            name, entries = "session", [e if isinstance(e, BaseModel) else parse_session_entry(e) for e in source]
        whole, newer_half = _costs_to_send(entries, estimate_tokens)
        reserved = min(4096, math.ceil(whole / 10)) if reserved_output is None else reserved_output
        budget = {
            "max_tokens": newer_half + reserved + safety_margin if max_tokens is None else max_tokens,
            "reserved_output": reserved,
            "safety_margin": safety_margin,
        }
        top = max(math.ceil(whole) + reserved + safety_margin, *budget.values(), 1)
        scenario = Scenario(f"{len(entries)} entries", lambda: entries, budget)
        return cls(
            name,
            estimate_tokens=estimate_tokens,
            scenarios={name: scenario},
            slider_tops={"max_tokens": top, "reserved_output": top, "safety_margin": top},
            page_size=page_size,
        )

    def redraw(self) -> Projection:
        """Project the path with the sliders' budget, then show the page around the boundary."""
        self.projection = project(
            self._path,
            max_tokens=self.max_tokens.value,
            reserved_output=self.reserved_output.value,
            safety_margin=self.safety_margin.value,
            estimate_tokens=self.estimate_tokens,
            layout=self._layout,
        )
        self.bar.value = budget_bar_svg(self.projection.breakdown)
        reason, because = self.projection.reason.split(": ", 1)
        kept = len(self.projection.result.kept_entry_ids)
        counted = MESSAGES("{count} entry kept") if kept == 1 else MESSAGES("{count} entries kept")
        self.reason.value = (
            f"<div style='max-width:640px;line-height:1.4;margin:4px 0'><b>{reason}</b> · "
            f"{counted.format(count=kept)}"
            f"<br>{html.escape(because)}</div>"
        )
        self._repage()
        return self.projection

    def show_page(self) -> None:
        """Draw the page the page slider points at: a slice of the table, nothing recomputed."""
        assert self.projection is not None and self.paging is not None
        start, stop = self.paging.bounds(self.page.value)
        self.table.value = table_html(self.projection.table.iloc[start:stop])
        self.page.description = (
            MESSAGES("page ({first}–{last} of {rows})").format(first=start + 1, last=stop, rows=self.paging.rows)
            if self.paging.pages > 1
            else MESSAGES("page")
        )

    def _load(self, scenario: str) -> None:
        """The path and its rows' groups and costs: they change with the scenario, not with the budget."""
        self._path = list(self.scenarios[scenario].path())
        self._layout = path_layout(self._path, self.estimate_tokens)

    def _repage(self) -> None:
        assert self.projection is not None
        self.paging = paging(self.projection.table, self.page_size.value)
        self._holding = True
        try:
            self.page.max = self.paging.pages
            self.page.value = self.paging.boundary_page
        finally:
            self._holding = False
        self.paging_controls.layout.display = None if self.paging.pages > 1 else "none"
        self.show_page()

    def _changed(self, _change: dict[str, Any]) -> None:
        if not self._holding:
            self.redraw()

    def _page_changed(self, _change: dict[str, Any]) -> None:
        if not self._holding:
            self.show_page()

    def _page_size_changed(self, _change: dict[str, Any]) -> None:
        if self.projection is not None:
            self._repage()

    def _scenario_changed(self, change: dict[str, Any]) -> None:
        budget = self.scenarios[change["new"]].budget
        self._holding = True
        try:
            self.max_tokens.value = budget["max_tokens"]
            self.reserved_output.value = budget["reserved_output"]
            self.safety_margin.value = budget["safety_margin"]
        finally:
            self._holding = False
        self._load(change["new"])
        self.redraw()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


def _costs_to_send(path: list[SessionEntry], estimate_tokens: Estimator) -> tuple[int, int]:
    """What the input costs with every candidate group, and with only the newer half of them.

    Both include the replayed system message and the summary, as ``build_context``
    counts them (R16–R18, R22): the whole cost is its selection with room for everything.
    """
    if not path:
        return 0, 0
    layout = path_layout(path, estimate_tokens)
    everything = select_context(layout.estimated, max_tokens=1e300, reserved_output=0, safety_margin=0)
    candidates = layout.groups.candidates
    older = sum(layout.groups.cost[number] for number in candidates[: len(candidates) // 2])
    total = everything.tokens.total
    return math.ceil(total), math.ceil(total - older)
