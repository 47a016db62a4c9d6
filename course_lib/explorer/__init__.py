"""The projection explorer: what one ``build_context`` call keeps, drops and pays for.

``projection`` holds the pure functions (a table per path entry, the budget
breakdown, a reason to check by hand), ``render`` draws them, and ``widget`` puts
them under sliders. See ``projection`` for the row statuses.
"""

from .projection import (
    COLUMNS,
    SCENARIOS,
    SEGMENTS,
    STATUSES,
    Projection,
    Scenario,
    budget_breakdown,
    project,
    projection_table,
    scenario_table,
)
from .render import SEGMENT_COLOURS, STATUS_COLOURS, budget_bar_svg, table_html
from .widget import ProjectionExplorer

__all__ = [
    "COLUMNS",
    "SCENARIOS",
    "SEGMENTS",
    "SEGMENT_COLOURS",
    "STATUSES",
    "STATUS_COLOURS",
    "ProjectionExplorer",
    "Projection",
    "Scenario",
    "budget_bar_svg",
    "budget_breakdown",
    "project",
    "projection_table",
    "scenario_table",
    "table_html",
]
