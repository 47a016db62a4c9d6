"""The explorer remembers what a slider cannot change: a budget move only re-selects groups (R15–R22)."""

from __future__ import annotations

from typing import Any

from course_lib import build_context
from course_lib.explorer import ProjectionExplorer, path_layout, project
from course_lib.fixtures import RESUME_BUDGET, resumed_path, teaching_estimator

# The explorer's sliders stop at what sending everything costs; the moves below stay under it.


class CountingEstimator:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, message: Any) -> int:
        self.calls += 1
        return teaching_estimator(message)


def test_a_budget_move_estimates_nothing_and_agrees_with_build_context() -> None:
    path = resumed_path()
    estimator = CountingEstimator()
    explorer = ProjectionExplorer.from_session(path, estimate_tokens=estimator, max_tokens=60, reserved_output=8)
    before = estimator.calls
    for max_tokens in (24, 45, 75, 10):
        explorer.max_tokens.value = max_tokens
        assert explorer.projection is not None
        budget = {"max_tokens": explorer.max_tokens.value, "reserved_output": 8, "safety_margin": 0}
        assert explorer.projection.result == build_context(path, estimate_tokens=teaching_estimator, **budget)
        fresh = project(path, estimate_tokens=teaching_estimator, **budget)
        assert explorer.projection.table.equals(fresh.table) and explorer.projection.reason == fresh.reason
    assert estimator.calls == before  # R15 still holds: every estimate was made once, on copies


def test_the_layouts_table_is_not_changed_by_a_shown_table() -> None:
    """Each projection's table is its own: changing one shown table leaves the next redraw as it was."""
    path = resumed_path()
    layout = path_layout(path, teaching_estimator)
    first = project(path, **RESUME_BUDGET, layout=layout)
    expected = project(path, **RESUME_BUDGET, layout=layout).table.copy(deep=True)
    first.table.loc[:, "status"] = "kept"
    first.table.loc[:, "cost"] = 0
    assert project(path, **RESUME_BUDGET, layout=layout).table.equals(expected)


def test_each_result_from_one_layout_is_independent_r23() -> None:
    path = resumed_path()
    layout = path_layout(path, teaching_estimator)
    one = project(path, **RESUME_BUDGET, layout=layout).result
    two = project(path, **RESUME_BUDGET, layout=layout).result
    assert one == two and all(a is not b for a, b in zip(one.messages, two.messages))
