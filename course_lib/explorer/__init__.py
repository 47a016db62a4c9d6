"""The projection explorer: what one ``build_context`` call keeps, drops and pays for.

``table`` holds the pure functions (a table per path entry, the budget
breakdown, a reason to check by hand), ``paging`` the pages of a long table, ``render``
draws them, ``widget`` puts them under sliders, and ``tree_svg`` draws a
session's tree. See ``table`` for the row statuses. (A ``Projection`` here is
one ``build_context`` call explained row by row; ``TokenProjection`` is that
call's token accounting, ``result.tokens``.)
"""

from .paging import PAGE_SIZE, Paging, paging, table_page
from .render import LABELS, SEGMENT_COLOURS, STATUS_COLOURS, budget_bar_svg, label, readable, table_html
from .table import (
    COLUMNS,
    SCENARIOS,
    SEGMENTS,
    STATUSES,
    PathLayout,
    Projection,
    Scenario,
    budget_breakdown,
    path_layout,
    project,
    projection_table,
    scenario_table,
)
from .widget import ProjectionExplorer

__all__ = [
    "COLUMNS",
    "LABELS",
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
    "label",
    "paging",
    "path_layout",
    "project",
    "projection_table",
    "readable",
    "scenario_table",
    "table_html",
    "table_page",
]
