"""The explorer's words in the reader's language (issue 45): the table's columns and statuses, the bar's legend."""

from __future__ import annotations

import pytest

from course_lib.explorer import LABELS, SEGMENTS, STATUSES, budget_bar_svg, project, readable, table_html
from course_lib.fixtures import RESUME_BUDGET, TIGHT_BUDGET, opening_path, resumed_path


@pytest.fixture
def chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSE_LANG", "zh")


def test_every_column_status_and_segment_has_a_label() -> None:
    assert {"id", "kind", "group", "cost", "status", *STATUSES, *SEGMENTS} - {"over budget"} <= set(LABELS)


def test_in_english_the_readable_table_is_the_table() -> None:
    table = project(resumed_path(), **RESUME_BUDGET).table
    assert readable(table).equals(table)


def test_in_chinese_the_table_reads_chinese_and_keeps_its_rows(chinese: None) -> None:
    table = project(resumed_path(), **RESUME_BUDGET).table
    shown = readable(table)
    assert list(shown.columns) == ["id", "类型", "组", "成本", "状态"]
    assert set(shown["状态"]) == {"重放的 system", "被摘要", "跳过", "摘要", "保留"}
    assert shown["id"].tolist() == table["id"].tolist() and table["status"].iloc[0] == "replayed system"
    markup = table_html(table)
    assert "<th style='padding:2px 8px;text-align:left'>状态</th>" in markup and ">被摘要</td>" in markup
    assert markup.count("class='status-summarized'") == 2  # the code's names still mark the rows


def test_in_chinese_the_bar_says_its_segments_and_its_overflow(chinese: None) -> None:
    bar = budget_bar_svg(project(opening_path(), **TIGHT_BUDGET).breakdown)
    assert ">回答预留</text>" in bar and ">安全余量</text>" in bar and "（超出 " in bar
    assert ">reserved output<" not in bar and "over by" not in bar
