"""How the explorer draws a projection: an HTML table and a to-scale SVG budget bar.

Plain strings, so a notebook cell, a widget and a browser test all show the same
thing; one ``status-…`` class per table row lets the browser test count rows.
A reader reads the columns, the statuses and the bar's legend in their language
(``readable``, ``LABELS``; issue 45); the code keys on the English names.
"""

from __future__ import annotations

import html

import pandas as pd

from ..teaching.i18n import MESSAGES, message
from .table import SEGMENTS

STATUS_COLOURS = {
    "replayed system": "#d9d9d9",
    "kept": "#b7e1b0",
    "dropped": "#f4b6b6",
    "summarized": "#c9d7f2",
    "skipped": "#f5f5f5",
    "summary": "#ffd98a",
}
SEGMENT_COLOURS = {
    "system": "#9e9e9e",
    "summary": "#f0b429",
    "kept messages": "#4caf50",
    "reserved output": "#5c8dd6",
    "safety margin": "#a58bd6",
    "unused": "#eeeeee",
}


LABELS = {
    # the table's columns
    "id": message("id"),
    "kind": message("kind"),
    "group": message("group"),
    "cost": message("cost"),
    "status": message("status"),
    # its statuses (table.STATUSES)
    "replayed system": message("replayed system"),
    "kept": message("kept"),
    "dropped": message("dropped"),
    "summarized": message("summarized"),
    "skipped": message("skipped"),
    "summary": message("summary"),
    # the bar's segments (table.SEGMENTS) that are not statuses
    "system": message("system"),
    "kept messages": message("kept messages"),
    "reserved output": message("reserved output"),
    "safety margin": message("safety margin"),
    "unused": message("unused"),
}
"""What a reader reads for each column, status and segment name the code keys on (English: the name itself)."""


def label(name: str) -> str:
    """``name`` (a column, status or segment) as the reader reads it."""
    return MESSAGES(LABELS[name]) if name in LABELS else name


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """The projection table as a reader reads it: its columns and statuses in their language."""
    shown = table.assign(status=[label(status) for status in table["status"]])
    return shown.rename(columns=label)


def table_html(table: pd.DataFrame) -> str:
    """The table as plain HTML, one ``status-…`` class per row so a browser test can count rows."""
    header = "".join(f"<th style='padding:2px 8px;text-align:left'>{label(name)}</th>" for name in table.columns)
    body = []
    for record in table.itertuples(index=False):
        status = record.status
        cells = "".join(
            f"<td style='padding:2px 8px'>{'' if pd.isna(value) else html.escape(str(value))}</td>"
            for value in record._replace(status=label(status))
        )
        css = "status-" + status.replace(" ", "-")
        body.append(f"<tr class='{css}' style='background:{STATUS_COLOURS[status]}'>{cells}</tr>")
    return (
        "<table class='projection-rows' style='border-collapse:collapse;font-family:monospace;line-height:1.4'>"
        f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def budget_bar_svg(breakdown: dict[str, int | float], *, width: int = 640) -> str:
    """A stacked bar drawn to scale; a red line marks ``max_tokens`` when the total overflows it."""
    segments = [(name, breakdown[name]) for name in SEGMENTS]
    scale_total = sum(value for _, value in segments) or 1
    max_tokens = scale_total - breakdown["over budget"]
    px = width / scale_total
    parts, x = [], 0.0
    for name, value in segments:
        if value <= 0:
            continue
        w = value * px
        parts.append(
            f"<rect x='{x:.1f}' y='0' width='{w:.1f}' height='26' fill='{SEGMENT_COLOURS[name]}' "
            f"stroke='white'><title>{label(name)} {value:g}</title></rect>"
        )
        if w > 7 * len(f"{value:g}"):
            parts.append(f"<text x='{x + w / 2:.1f}' y='17' text-anchor='middle' font-size='12'>{value:g}</text>")
        x += w
    if breakdown["over budget"] > 0:
        mx = max_tokens * px
        parts.append(f"<line x1='{mx:.1f}' y1='-4' x2='{mx:.1f}' y2='30' stroke='#d32f2f' stroke-width='3'/>")
        parts.append(
            f"<text x='{min(mx + 4, width - 4):.1f}' y='42' font-size='12' fill='#d32f2f' "
            f"text-anchor='{'start' if mx < width / 2 else 'end'}'>"
            + MESSAGES("max_tokens {max_tokens} (over by {over})").format(
                max_tokens=f"{max_tokens:g}", over=f"{breakdown['over budget']:g}"
            )
            + "</text>"
        )
    legend, lx = [], 0
    for name, _ in segments:
        shown = label(name)
        legend.append(
            f"<rect x='{lx}' y='50' width='12' height='12' fill='{SEGMENT_COLOURS[name]}' stroke='#999'/>"
            f"<text x='{lx + 16}' y='60' font-size='12'>{shown}</text>"
        )
        lx += 16 + sum(7 if character.isascii() else 12 for character in shown) + 14
    return (
        f"<svg class='budget-bar' xmlns='http://www.w3.org/2000/svg' width='{width}' height='68' "
        f"viewBox='0 -6 {width} 74' font-family='sans-serif'>{''.join(parts)}{''.join(legend)}</svg>"
    )
