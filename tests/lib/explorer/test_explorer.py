"""The projection explorer labels exactly what ``build_context`` decided (R14–R22), and its widget redraws.

The numbers are the chapter's §7 fixture, checkable by hand: groups of 7, 7 and
15 tokens, a 31-token budget that leaves 22 for messages, a 40-token summary.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import CompactionEntry, build_context, to_json_dict
from course_lib.builders import PathBuilder
from course_lib.compaction import summary_message
from course_lib.explorer import (
    COLUMNS,
    SCENARIOS,
    SEGMENTS,
    Projection,
    ProjectionExplorer,
    Scenario,
    budget_bar_svg,
    budget_breakdown,
    paging,
    path_layout,
    project,
    projection_table,
    scenario_table,
    table_html,
    table_page,
)
from course_lib.explorer.tree_svg import session_tree_svg
from course_lib.fixtures import (
    OPENING_BUDGET,
    OPENING_COSTS,
    RESUME_BUDGET,
    TIGHT_BUDGET,
    compact_1,
    opening_builder,
    opening_path,
    resumed_path,
    system_replay_path,
    teaching_estimator,
)
from course_lib.importers import sample_path

NA = None
GROUP_1, GROUP_2, GROUP_3 = ["u1", "a1"], ["u2", "a2"], ["u3", "calls", "r-test", "r-read", "a3"]


def statuses(table: pd.DataFrame) -> dict[str, str]:
    return dict(zip(table["id"], table["status"], strict=True))


def ids_with(table: pd.DataFrame, status: str) -> list[str]:
    return table.loc[table["status"] == status, "id"].tolist()


def test_opening_path_at_31_tokens_keeps_groups_2_and_3_r19() -> None:
    table = projection_table(opening_path(), **OPENING_BUDGET)
    assert list(table.columns) == list(COLUMNS)
    assert table["id"].tolist() == list(OPENING_COSTS)
    assert table["cost"].tolist() == list(OPENING_COSTS.values())
    assert table["group"].tolist()[1:] == [1, 1, 2, 2, 3, 3, 3, 3, 3]
    assert pd.isna(table["group"].iloc[0])  # R14: the system message is in no group
    assert statuses(table)["sys"] == "replayed system"
    assert ids_with(table, "dropped") == GROUP_1
    assert ids_with(table, "kept") == GROUP_2 + GROUP_3
    assert "summary" not in table["status"].tolist()


def test_breakdown_at_31_tokens_matches_the_chapter_r22() -> None:
    assert budget_breakdown(opening_path(), **OPENING_BUDGET) == {
        "system": 3,
        "summary": 0,
        "kept messages": 22,
        "reserved output": 4,
        "safety margin": 2,
        "unused": 0,
        "over budget": 0,
    }


def test_reason_names_the_groups_and_the_arithmetic_r17_r19() -> None:
    reason = project(opening_path(), **OPENING_BUDGET).reason
    assert reason.startswith("trimmed: 31 − system 3 − reserved 4 − margin 2 leaves 22 for messages")
    assert "groups 2 (7), 3 (15) fit" in reason
    assert "group 1 (7) does not fit in the 0 left" in reason


def reason(path: list[Any], max_tokens: int, reserved_output: int = 4, safety_margin: int = 2) -> str:
    return project(path, max_tokens=max_tokens, reserved_output=reserved_output, safety_margin=safety_margin).reason


def test_reason_one_kept_group_fits_and_the_older_ones_are_dropped_r19() -> None:
    assert reason(opening_path(), 30) == (
        "trimmed: 30 − system 3 − reserved 4 − margin 2 leaves 21 for messages; newest first, "
        "group 3 (15) fits, using 15; group 2 (7) does not fit in the 6 left, so it and the older group 1 are dropped."
    )


def test_reason_two_kept_groups_fit_and_the_only_dropped_group_is_dropped_r19() -> None:
    assert reason(opening_path(), 31) == (
        "trimmed: 31 − system 3 − reserved 4 − margin 2 leaves 22 for messages; newest first, "
        "groups 2 (7), 3 (15) fit, using 22; group 1 (7) does not fit in the 0 left, so it is dropped."
    )


def test_reason_within_budget_every_group_or_the_only_group_fits() -> None:
    assert reason(opening_path(), 38).endswith("; every group fits (groups 1 (7), 2 (7), 3 (15)).")
    one_group = PathBuilder().user("u1", "Hi.").assistant("a1", "Hello.").entries
    assert reason(one_group, 80).endswith("; the only group fits (group 1 (2)).")


def test_reason_says_the_allowance_is_clamped_when_fixed_costs_exceed_max_tokens_r17() -> None:
    assert reason(opening_path(), 5, reserved_output=12).startswith(
        "single_group_overflow: 5 − system 3 − reserved 12 − margin 2 = −12, clamped to 0 "
        "(fixed costs exceed the window), so nothing is left for messages; the newest group, 3, alone costs 15"
    )
    exactly = reason(opening_path(), 17, reserved_output=12)  # 17 − 3 − 12 − 2 = 0: nothing to clamp
    assert "leaves 0 for messages" in exactly and "clamped" not in exactly


def test_reason_gives_the_summary_its_share_first_r18() -> None:
    assert "; the summary takes 40, leaving 26 for groups; newest first, groups 3 (15), 4 (8) fit" in reason(
        resumed_path(), 75
    )
    assert "; the summary alone takes 40, so nothing is left for groups;" in reason(resumed_path(), 24)


def test_the_notebook_shows_whole_scenario_descriptions() -> None:
    """pandas cuts cells at 50 characters unless told otherwise; the stored table must not be cut."""
    assert scenario_table()["what it shows"].tolist() == [s.description for s in SCENARIOS.values()]
    notebook = json.loads((Path(__file__).resolve().parents[3] / "notebooks/01_projection_explorer.ipynb").read_text())
    shown = [
        "".join(output["data"]["text/html"])
        for cell in notebook["cells"]
        if "scenario_table()" in "".join(cell["source"])
        for output in cell.get("outputs", [])
        if "text/html" in output.get("data", {})
    ]
    assert len(shown) == 1
    for scenario in SCENARIOS.values():
        assert html.escape(scenario.description, quote=False) in shown[0]


def test_tight_budget_overflows_with_the_newest_group_whole_r20() -> None:
    projection = project(opening_path(), **TIGHT_BUDGET)
    assert ids_with(projection.table, "kept") == GROUP_3
    assert ids_with(projection.table, "dropped") == GROUP_1 + GROUP_2
    assert projection.breakdown["over budget"] == 24 - 19
    assert projection.breakdown["unused"] == 0
    assert projection.reason.startswith("single_group_overflow")
    assert "alone costs 15" in projection.reason


def test_resumed_path_marks_summarized_skipped_and_the_summary_row_r18() -> None:
    path = resumed_path()
    table = projection_table(path, **RESUME_BUDGET)
    assert ids_with(table, "summarized") == GROUP_1
    assert ids_with(table, "skipped") == ["compact-1"]
    assert ids_with(table, "kept") == GROUP_2 + GROUP_3 + ["u4", "a4"]
    # the synthetic row sits right after its compaction and costs what build_context paid for it
    position = table["id"].tolist().index("compact-1")
    summary_row = table.iloc[position + 1]
    assert (summary_row["id"], summary_row["status"]) == ("compact-1:summary", "summary")
    compaction = next(e for e in path if isinstance(e, CompactionEntry) and e.id == "compact-1")
    assert summary_row["cost"] == teaching_estimator(summary_message(compaction)) == 40
    assert pd.isna(table.iloc[position]["cost"])
    breakdown = budget_breakdown(path, **RESUME_BUDGET)
    assert (breakdown["summary"], breakdown["kept messages"], breakdown["unused"]) == (40, 30, 1)


def test_budget_trimming_after_a_compaction_is_dropped_not_summarized_r18_r19() -> None:
    # 75 leaves 66; the summary takes 40; 26 fit groups 4 (8) and 3 (15) but not group 2 (7)
    table = projection_table(resumed_path(), max_tokens=75, reserved_output=4, safety_margin=2)
    assert ids_with(table, "summarized") == GROUP_1
    assert ids_with(table, "dropped") == GROUP_2
    assert ids_with(table, "kept") == GROUP_3 + ["u4", "a4"]


def test_system_patches_are_replayed_and_cost_the_merged_prompt_r5_r16() -> None:
    projection = project(system_replay_path(), **RESUME_BUDGET)
    table = projection.table
    assert ids_with(table, "replayed system") == ["sys", "patch-1", "patch-2"]
    assert ids_with(table, "kept") == ["u2", "a2", "u3", "a3"]
    own_costs = table.loc[table["status"] == "replayed system", "cost"].sum()
    assert (own_costs, projection.breakdown["system"]) == (8, 6)  # replayed once, not summed


def test_metadata_entries_are_skipped_and_wire_dicts_are_accepted_r18() -> None:
    path = opening_builder().metadata("m1", "label", "review").user("u4", "Next.").entries
    table = projection_table([to_json_dict(e) for e in path], **RESUME_BUDGET)
    row = table[table["id"] == "m1"].iloc[0]
    assert (row["kind"], row["status"]) == ("metadata", "skipped")
    assert pd.isna(row["cost"]) and pd.isna(row["group"])
    assert statuses(table)["u4"] == "kept"


def test_a_bad_estimate_is_refused_r15() -> None:
    with pytest.raises(ValueError, match="R15"):
        projection_table(opening_path(), **OPENING_BUDGET, estimate_tokens=lambda m: -1)


def test_float_costs_keep_their_fractions() -> None:
    table = projection_table(opening_path(), **RESUME_BUDGET, estimate_tokens=lambda m: 0.5)
    assert str(table["cost"].dtype) == "Float64"
    assert table["cost"].tolist() == [0.5] * 10


def _two_compactions() -> list[Any]:
    builder = opening_builder()
    builder.add(compact_1(builder.entries))
    builder.user("u4", "Add a regression test.").assistant("a4", "Added the regression test.")
    builder.add(compact_1(builder.entries, id="compact-2", timestamp=200, firstKeptEntryId="u4"))
    return builder.user("u5", "Ship it.").entries


@settings(max_examples=examples(40), deadline=None)
@given(
    scenario=st.sampled_from([opening_path, resumed_path, system_replay_path, _two_compactions]),
    max_tokens=st.integers(0, 120),
    reserved_output=st.integers(0, 20),
    safety_margin=st.integers(0, 10),
)
def test_table_agrees_with_build_context_r19_r21_r22(
    scenario: Any, max_tokens: int, reserved_output: int, safety_margin: int
) -> None:
    """Kept rows are build_context's kept ids; they form a suffix of whole groups; the bar adds up."""
    budget: dict[str, Any] = {
        "max_tokens": max_tokens,
        "reserved_output": reserved_output,
        "safety_margin": safety_margin,
    }
    path = scenario()
    result = build_context(path, **budget, estimate_tokens=teaching_estimator)
    projection = project(path, **budget)
    table = projection.table
    assert tuple(ids_with(table, "kept")) == result.kept_entry_ids
    grouped = table[table["group"].notna()]
    kept_groups = set(grouped.loc[grouped["status"] == "kept", "group"])
    other_groups = set(grouped.loc[grouped["status"] != "kept", "group"])
    assert not kept_groups & other_groups  # R19: never a split group
    assert not kept_groups or min(kept_groups) > max(other_groups, default=0)  # R19: a newest suffix
    assert table["status"].tolist().count("summary") == (1 if any(e.type == "compaction" for e in path) else 0)
    breakdown = projection.breakdown
    assert sum(breakdown[s] for s in SEGMENTS) == max(result.tokens.total, max_tokens)
    assert breakdown["over budget"] == max(0, result.tokens.total - max_tokens)
    assert projection.reason.startswith(result.reason + ":")


def test_only_the_latest_compaction_gets_a_summary_row_r18() -> None:
    table = projection_table(_two_compactions(), **RESUME_BUDGET)
    assert ids_with(table, "summary") == ["compact-2:summary"]
    assert ids_with(table, "skipped") == ["compact-1", "compact-2"]
    assert ids_with(table, "summarized") == GROUP_1 + GROUP_2 + GROUP_3


def test_table_html_has_one_status_class_per_row() -> None:
    table = projection_table(opening_path(), **OPENING_BUDGET)
    markup = table_html(table)
    assert markup.count("<tr class='status-kept'") == 7
    assert markup.count("<tr class='status-dropped'") == 2
    assert markup.count("<tr class='status-replayed-system'") == 1
    ET.fromstring(markup)  # well-formed, so the browser sees the rows we counted


def test_budget_bar_marks_max_tokens_only_when_over() -> None:
    over = budget_bar_svg(budget_breakdown(opening_path(), **TIGHT_BUDGET))
    fits = budget_bar_svg(budget_breakdown(opening_path(), **OPENING_BUDGET))
    assert "max_tokens 19 (over by 5)" in over
    assert "max_tokens" not in fits
    ET.fromstring(over), ET.fromstring(fits)


# --- the widget, driven headlessly ----------------------------------------------------


def kept_rows(explorer: ProjectionExplorer) -> int:
    return explorer.table.value.count("class='status-kept'")


def test_widget_redraws_when_a_slider_moves() -> None:
    explorer = ProjectionExplorer()
    assert (explorer.max_tokens.value, kept_rows(explorer)) == (31, 7)
    assert "<b>trimmed</b>" in explorer.reason.value
    explorer.max_tokens.value = 30  # 21 left: group 3 fits, group 2 (7) no longer does
    assert kept_rows(explorer) == 5
    explorer.max_tokens.value = 38  # 29 left: everything fits
    assert kept_rows(explorer) == 9
    assert "<b>within_budget</b>" in explorer.reason.value
    explorer.reserved_output.value = 20
    assert "<b>single_group_overflow</b>" in explorer.reason.value
    assert "over by" in explorer.bar.value
    explorer.safety_margin.value = 0
    assert explorer.projection is not None
    assert explorer.projection.result.tokens.safety_margin == 0


def test_widget_counts_one_kept_entry_in_the_singular(monkeypatch: pytest.MonkeyPatch) -> None:
    path = PathBuilder(opening_path()).user("u4", "Next.").entries  # the newest group is one entry
    monkeypatch.setitem(SCENARIOS, "one-entry group", Scenario("u4 alone.", lambda: path, TIGHT_BUDGET))
    explorer = ProjectionExplorer("one-entry group")
    assert "· 1 entry kept" in explorer.reason.value
    explorer.scenario.value = "opening path"
    assert "· 7 entries kept" in explorer.reason.value


def test_widget_scenario_switch_moves_sliders_to_its_budget() -> None:
    explorer = ProjectionExplorer()
    redraws: list[int] = []
    original = explorer.redraw

    def counted() -> Projection:
        redraws.append(1)
        return original()

    explorer.redraw = counted  # type: ignore[method-assign]  # count the redraws
    explorer.scenario.value = "after compact-1, then u4 → a4"
    assert len(redraws) == 1  # one redraw, not one per slider
    assert explorer.max_tokens.value == RESUME_BUDGET["max_tokens"]
    assert "compact-1:summary" in explorer.table.value
    assert kept_rows(explorer) == 9
    explorer.scenario.value = "system-replay path"
    assert explorer.table.value.count("status-replayed-system") == 3


def test_widget_exposes_stable_css_classes_for_the_browser_test() -> None:
    explorer = ProjectionExplorer()
    assert "projection-explorer" in explorer.widget._dom_classes
    assert "projection-table" in explorer.table._dom_classes
    assert "projection-reason" in explorer.reason._dom_classes
    assert "projection-max-tokens" in explorer.max_tokens._dom_classes
    assert set(SCENARIOS) == set(explorer.scenario.options)


# --- the session-tree picture ---------------------------------------------------------


def test_tree_picture_shows_the_compaction_arrow_and_the_sibling_r10_r18() -> None:
    sibling = (
        PathBuilder(opening_path()).user("u4-alt", "Try the sibling branch.").assistant("a4-alt", "Sibling answer.")
    )
    tree = resumed_path() + sibling.entries[10:]
    svg = session_tree_svg(tree, "a4", budget=RESUME_BUDGET)
    root = ET.fromstring(svg)
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert "compact-1.firstKeptEntryId = u2" in svg
    assert "u1 (user): summarized" in titles
    assert "u4-alt (user): off path" in titles and "a4-alt (assistant): off path" in titles
    assert "group 4" in svg
    rows = {
        g.find("{http://www.w3.org/2000/svg}title").text.split()[0]: g.find("{http://www.w3.org/2000/svg}rect").get("y")
        for g in root.iter("{http://www.w3.org/2000/svg}g")
    }
    assert rows["u4-alt"] == rows["a4-alt"] != rows["a4"] == rows["sys"]  # the branch runs on its own row


# --- long sessions: pages around the keep/drop boundary ---------------------------------


def long_path(groups: int) -> list[Any]:
    builder = PathBuilder().system("sys", "Be brief.")
    for n in range(groups):
        builder.user(f"u{n}", f"Question {n}?").assistant(f"a{n}", f"Answer {n}.")
    return builder.entries


def test_paging_centres_the_boundary_page_on_the_first_kept_row_r19() -> None:
    table = pd.DataFrame({"status": ["replayed system"] + ["dropped"] * 99 + ["kept"] * 20})
    layout = paging(table, page_size=10)
    assert layout.boundary_row == 100
    start, stop = layout.bounds(layout.boundary_page)
    assert (start, stop) == (95, 105)  # half a page of dropped rows, then the first kept ones
    assert layout.starts[0] == 0 and layout.bounds(layout.pages) == (115, 120)
    covered = [row for page in range(1, layout.pages + 1) for row in range(*layout.bounds(page))]
    assert covered == list(range(120))  # every row on exactly one page, in order


def test_paging_joins_a_short_first_page_to_the_next_and_handles_tiny_tables() -> None:
    table = pd.DataFrame({"status": ["dropped"] * 7 + ["kept"] * 40})
    layout = paging(table, page_size=10)
    assert layout.starts[:2] == (0, 12)  # rows 0..1 would be a page of two: they join rows 2..11
    assert layout.boundary_page == 1 and layout.bounds(1) == (0, 12)
    assert paging(pd.DataFrame({"status": ["kept"] * 3}), page_size=10).starts == (0,)
    assert paging(table, page_size=1).starts == tuple(range(47))  # one row a page, none empty
    assert paging(pd.DataFrame({"status": pd.Series([], dtype=object)})).pages == 1
    with pytest.raises(ValueError, match="page_size"):
        paging(table, page_size=0)


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.integers(1, 60))
def test_pages_cover_every_row_once_and_hold_the_boundary(dropped: int, kept: int, page_size: int) -> None:
    table = pd.DataFrame({"status": pd.Series(["dropped"] * dropped + ["kept"] * kept, dtype=object)})
    layout = paging(table, page_size=page_size)
    pages = [layout.bounds(page) for page in range(1, layout.pages + 1)]
    assert [row for start, stop in pages for row in range(start, stop)] == list(range(len(table)))
    assert all(stop > start for start, stop in pages) or len(table) == 0
    assert all(stop - start < 2 * page_size for start, stop in pages)
    start, stop = pages[layout.boundary_page - 1]
    assert start <= layout.boundary_row < max(stop, 1)


def test_table_page_defaults_to_the_boundary_page() -> None:
    table = projection_table(long_path(60), max_tokens=60, reserved_output=0, safety_margin=0)
    page = table_page(table, page_size=10)
    statuses_on_page = page["status"].tolist()
    assert "dropped" in statuses_on_page and "kept" in statuses_on_page
    assert table_page(table, page=1, page_size=10)["id"].tolist()[0] == "sys"
    assert table_page(table, page=10_000, page_size=10)["id"].tolist()[-1] == "a59"  # clamped to the last page


def test_a_precomputed_layout_gives_the_same_projection_r15() -> None:
    path = resumed_path()
    layout = path_layout(path, teaching_estimator)
    for max_tokens in (24, 60, 75, 120):
        plain = project(path, **{**RESUME_BUDGET, "max_tokens": max_tokens})
        cached = project(path, **{**RESUME_BUDGET, "max_tokens": max_tokens}, layout=layout)
        assert cached.table.equals(plain.table) and cached.reason == plain.reason
        assert cached.breakdown == plain.breakdown


def test_from_session_opens_a_file_of_any_format_and_starts_at_the_boundary(tmp_path: Path) -> None:
    explorer = ProjectionExplorer.from_session(sample_path("pi"))
    assert explorer.scenario.options == ("pi.jsonl",)
    assert explorer.projection is not None and explorer.projection.result.reason == "trimmed"
    assert "status-kept" in explorer.table.value and "status-dropped" in explorer.table.value


def test_from_session_pages_a_long_path_and_a_page_move_only_redraws_the_table() -> None:
    explorer = ProjectionExplorer.from_session(long_path(200), page_size=20)
    assert explorer.projection is not None and explorer.paging is not None and explorer.paging.pages > 10
    assert explorer.projection.result.kept_entry_ids[0] == "u100"  # the default budget keeps the newer half
    assert explorer.page.value == explorer.paging.boundary_page
    assert explorer.table.value.count("<tr class=") == 20
    projection = explorer.projection
    explorer.page.value = 1
    assert explorer.projection is projection  # nothing recomputed
    assert "<td style='padding:2px 8px'>sys</td>" in explorer.table.value
    explorer.max_tokens.value = explorer.max_tokens.value // 2  # a budget move jumps back to the boundary
    assert explorer.projection is not projection
    assert explorer.page.value == explorer.paging.boundary_page != 1
    explorer.page_size.value = 1000
    assert explorer.paging.pages == 1 and explorer.paging_controls.layout.display == "none"


def test_from_session_accepts_wire_dicts_and_its_sliders_reach_the_whole_cost() -> None:
    wire = [to_json_dict(entry) for entry in long_path(5)]
    explorer = ProjectionExplorer.from_session(
        wire, estimate_tokens=teaching_estimator, max_tokens=30, reserved_output=2
    )
    assert (explorer.max_tokens.value, explorer.reserved_output.value, explorer.safety_margin.value) == (30, 2, 0)
    everything = build_context(
        long_path(5), max_tokens=10**9, reserved_output=0, safety_margin=0, estimate_tokens=teaching_estimator
    )
    assert explorer.max_tokens.max >= everything.tokens.total
