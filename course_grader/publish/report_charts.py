"""The class report's charts, drawn with matplotlib and shown inline: the score distribution and the rules heatmap.

matplotlib's object API draws them (no pyplot state, no display), as SVG with
text as paths and stable ids, so a page is the same for the same grades.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from course_lib import lab_registry

from ..safe_text import abbreviated
from .report_grades import Grades

LABEL_LIMIT = 28
"""Characters of a student id on the heatmap's axis."""
LABELLED_ROWS = 150
"""Up to this many students the heatmap names each row; a larger class is drawn at a fixed height, unlabelled."""


def picture(draw: Callable[[], Figure], format: str = "svg") -> bytes:
    """A chart drawn and saved in the report's style; matplotlib's object API, so no pyplot state and no display."""
    buffer = io.BytesIO()
    # A student id such as ``$\\frac`` is text, not mathtext; SVG text as paths (no fonts needed); stable ids.
    with matplotlib.rc_context(
        {"text.parse_math": False, "svg.fonttype": "path", "svg.hashsalt": "course-grade-report", "font.size": 9}
    ):
        draw().savefig(
            buffer, format=format, bbox_inches="tight", dpi=110, metadata={"Date": None} if format == "svg" else None
        )
    return buffer.getvalue()


def data_url(svg: bytes) -> str:
    """A chart for the page: a ``data:`` URL of its SVG, shown inline and isolated (an ``<img>`` runs nothing)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def distribution_chart(grades: Grades) -> Figure:
    labs = [lab for lab in lab_registry.LABS if (grades.frame["lab"] == lab).any()]
    figure = Figure(figsize=(2.3 * max(1, len(labs)), 2.4), layout="tight")
    axes = figure.subplots(1, max(1, len(labs)), sharey=True, squeeze=False)[0]
    for axis, lab in zip(axes, labs):
        percent = pd.to_numeric(grades.frame.loc[grades.frame["lab"] == lab, "percent"], errors="coerce").dropna()
        axis.hist(percent, bins=np.linspace(0, 100, 11), color="#4c72b0", edgecolor="white")
        axis.set_title(f"{lab_registry.lab(lab).label} (n={len(percent)})")
        axis.set_xlabel("% of tests passed")
        axis.set_xlim(0, 100)
    axes[0].set_ylabel("submissions")
    return figure


def heatmap_chart(matrix: pd.DataFrame) -> Figure:
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
        axis.set_ylabel(f"{rows} students, in id order")
    axis.tick_params(axis="both", length=0)
    axis.xaxis.set_ticks_position("top")
    figure.colorbar(
        image, ax=axis, fraction=0.04, pad=0.02, label="share of the rule's tests passed (grey: none handed in)"
    )
    return figure
