"""The class report's charts, drawn with matplotlib and shown inline: the score distribution and the rules heatmap.

matplotlib's object API draws them (no pyplot state, no display), as SVG with
text as paths and stable ids, so a page is the same for the same grades.

Their labels are in the run's language (issue 32). Text drawn as paths needs a
font that has its glyphs: English is drawn in matplotlib's own font; Chinese
falls back, glyph by glyph, to an installed CJK font (``FONTS``). Without one
the charts' labels stay in English (``chart_language``), never boxes, and
``course-grade report`` says so.
"""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Callable
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import font_manager
from matplotlib.figure import Figure

from course_lib.teaching import i18n, lab_registry

from ..messages import MESSAGES
from ..safe_text import abbreviated
from .report_grades import Grades

LABEL_LIMIT = 28
"""Characters of a student id on the heatmap's axis."""
LABELLED_ROWS = 150
"""Up to this many students the heatmap names each row; a larger class is drawn at a fixed height, unlabelled."""
FONTS: dict[str, tuple[str, ...]] = {
    "zh": (
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Source Han Sans SC",
        "Source Han Sans CN",
        "WenQuanYi Micro Hei",
        "WenQuanYi Zen Hei",
        "Droid Sans Fallback",
        "Microsoft YaHei",
        "PingFang SC",
        "Hiragino Sans GB",
        "SimHei",
    ),
}
"""The font families that draw a language's glyphs, preferred first (a language not listed needs none)."""
NO_FONT = "install one of Noto Sans CJK SC, WenQuanYi Micro Hei, …; e.g. Debian's fonts-wqy-microhei (make chart-font)"


@functools.cache
def chart_fonts(language: str) -> tuple[str, ...]:
    """The installed families of ``FONTS[language]`` (empty for a language matplotlib's own font draws).

    matplotlib lists the system's fonts once and caches the list (``fontlist-*.json``), so a font installed since
    is missing from it: "no font installed draws zh" while one was (issue 45). When none of the families is listed,
    the notebooks' own remedy adds the system's Chinese font files to the list (``course_lib.teaching.chart_font``).
    """
    wanted = FONTS.get(language, ())
    if wanted and not _listed(wanted):
        from course_lib.teaching.chart_font import use_chart_font

        use_chart_font()
    return _listed(wanted)


def _listed(families: tuple[str, ...]) -> tuple[str, ...]:
    """Those of ``families`` matplotlib's font list holds, in their order."""
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return tuple(family for family in families if family in installed)


def chart_language(language: str) -> str:
    """The language the charts are labelled in: ``language`` when a font draws it, else English."""
    return language if language not in FONTS or chart_fonts(language) else i18n.DEFAULT


def picture(draw: Callable[[], Figure], language: str = i18n.DEFAULT, format: str = "svg") -> bytes:
    """A chart drawn and saved in the report's style; matplotlib's object API, so no pyplot state and no display."""
    buffer = io.BytesIO()
    # A student id such as ``$\\frac`` is text, not mathtext; SVG text as paths (no fonts needed); stable ids.
    style: dict[Any, Any] = {
        "text.parse_math": False,
        "svg.fonttype": "path",
        "svg.hashsalt": "course-grade-report",
        "font.size": 9,
    }
    if chart_fonts(language):  # matplotlib's own font first, then glyph by glyph the language's
        style["font.family"] = ["sans-serif", *chart_fonts(language)]
    with matplotlib.rc_context(style):
        draw().savefig(
            buffer, format=format, bbox_inches="tight", dpi=110, metadata={"Date": None} if format == "svg" else None
        )
    return buffer.getvalue()


def data_url(svg: bytes) -> str:
    """A chart for the page: a ``data:`` URL of its SVG, shown inline and isolated (an ``<img>`` runs nothing)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def distribution_chart(grades: Grades, language: str = i18n.DEFAULT) -> Figure:
    labs = [lab for lab in lab_registry.LABS if (grades.frame["lab"] == lab).any()]
    figure = Figure(figsize=(2.3 * max(1, len(labs)), 2.4), layout="tight")
    axes = figure.subplots(1, max(1, len(labs)), sharey=True, squeeze=False)[0]
    for axis, lab in zip(axes, labs):
        percent = pd.to_numeric(grades.frame.loc[grades.frame["lab"] == lab, "percent"], errors="coerce").dropna()
        axis.hist(percent, bins=np.linspace(0, 100, 11), color="#4c72b0", edgecolor="white")
        title = MESSAGES("{lab} (n={count})", language)
        axis.set_title(title.format(lab=lab_registry.lab(lab).spoken_label(language), count=len(percent)))
        axis.set_xlabel(MESSAGES("% of tests passed", language))
        axis.set_xlim(0, 100)
    axes[0].set_ylabel(MESSAGES("submissions", language))
    return figure


def heatmap_chart(matrix: pd.DataFrame, language: str = i18n.DEFAULT) -> Figure:
    rows = len(matrix.index)
    figure = Figure(figsize=(1.6 + 0.3 * len(matrix.columns), 1.2 + 0.16 * min(rows, LABELLED_ROWS)), layout="tight")
    axis = figure.subplots()
    colours = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#e6e6e6")
    image = axis.imshow(
        np.ma.masked_invalid(matrix.to_numpy(dtype=float)),
        cmap=colours,
        vmin=0,
        vmax=1,
        aspect="auto",
        interpolation="nearest",
    )
    axis.set_xticks(range(len(matrix.columns)), list(matrix.columns), rotation=90)
    if rows <= LABELLED_ROWS:
        axis.set_yticks(range(rows), [abbreviated(student, LABEL_LIMIT) for student in matrix.index])
    else:
        axis.set_yticks([])
        axis.set_ylabel(MESSAGES("{count} students, in id order", language).format(count=rows))
    axis.tick_params(axis="both", length=0)
    axis.xaxis.set_ticks_position("top")
    figure.colorbar(
        image,
        ax=axis,
        fraction=0.04,
        pad=0.02,
        label=MESSAGES("share of the rule's tests passed (grey: none handed in)", language),
    )
    return figure
