"""The projection explorer: what one ``build_context`` call keeps, drops and pays for.

``projection`` holds the pure functions (a table per path entry, the budget
breakdown, a reason to check by hand, the pages of a long table), ``render``
draws them, and ``widget`` puts them under sliders. See ``projection`` for the row statuses.
"""

from .projection import (
    COLUMNS,
    PAGE_SIZE,
    SCENARIOS,
    SEGMENTS,
    STATUSES,
    Paging,
    PathLayout,
    Projection,
    Scenario,
    budget_breakdown,
    paging,
    path_layout,
    project,
    projection_table,
    scenario_table,
    table_page,
)
from .render import SEGMENT_COLOURS, STATUS_COLOURS, budget_bar_svg, table_html
from .widget import ProjectionExplorer

__all__ = [
    "COLUMNS",
    "PAGE_SIZE",
    "SCENARIOS",
    "SEGMENTS",
    "SEGMENT_COLOURS",
    "STATUSES",
    "STATUS_COLOURS",
    "Paging",
    "PathLayout",
    "ProjectionExplorer",
    "Projection",
    "Scenario",
    "budget_bar_svg",
    "budget_breakdown",
    "paging",
    "path_layout",
    "project",
    "projection_table",
    "scenario_table",
    "table_html",
    "table_page",
]
