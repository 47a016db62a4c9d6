"""The notebooks' charts in the reader's language (``course_lib.teaching.chart_font``, issue 45): drawn with a
Chinese font where one is installed, and in English where none is, never with boxes."""

from __future__ import annotations

import warnings

import pytest

from course_lib.teaching.chart_font import CHINESE_FAMILIES, chart_language, use_chart_font
from course_lib.teaching.i18n import MESSAGES


def test_a_chinese_chart_uses_an_installed_chinese_font_and_draws_no_box() -> None:
    plt = pytest.importorskip("matplotlib.pyplot")
    family = use_chart_font()
    if family is None:
        pytest.skip("no Chinese font installed (`make chart-font` installs one)")
    assert chart_language("zh") == "zh"
    figure, axes = plt.subplots()
    axes.set_title(MESSAGES("reserved output", "zh"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph … missing from font(s)" for each box it draws
        figure.canvas.draw()
    plt.close(figure)


def test_with_no_chinese_font_a_chart_keeps_english_words() -> None:
    nowhere = ("No Such Font",)
    assert use_chart_font(nowhere) is None
    assert chart_language("zh", nowhere) == "en" and chart_language("en", nowhere) == "en"
    assert CHINESE_FAMILIES[0] == "WenQuanYi Micro Hei"  # the one `make chart-font` installs
