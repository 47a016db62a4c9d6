"""The explorer's widget: sliders and a scenario selector over the pure projection.

Every change is one more pure ``project`` call, drawn by ``render``.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from ..context import Estimator
from ..fixtures import teaching_estimator
from .projection import SCENARIOS, Projection, project
from .render import budget_bar_svg, table_html

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
            f"<div style='max-width:640px;line-height:1.4;margin:4px 0'><b>{reason}</b> · "
            f"{kept} {'entry' if kept == 1 else 'entries'} kept"
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
