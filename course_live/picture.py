"""One picture of the session: how the room's pass rate per check moved, as an SVG the server draws (issue 46).

For each check of the session's lab, after every run of that lab: the share of the
learners who have run the lab so far whose latest verdict on the check passes.
Drawn by hand (lines, axes, a legend; every text escaped), so it needs no
plotting library in the server and reads the same in any browser.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from . import catalogue
from .messages import MESSAGES
from .store import StoredRun

WIDTH, HEIGHT = 860, 380
LEFT, RIGHT, TOP, BOTTOM = 56, 300, 40, 48
COLOURS = ("#1b7837", "#c2410c", "#1d4ed8", "#7e22ce", "#b45309", "#0f766e")
MAX_POINTS = 300
"""Points per line at most: a long session is thinned evenly (the last point always kept)."""


def pass_rates(runs: Iterable[StoredRun], lab: str) -> tuple[list[float], dict[int, list[float]]]:
    """The times (seconds from the first run of ``lab``) and, per check, the pass rate after each run."""
    numbers = [check.number for check in catalogue.CHECKS[lab]]
    latest: dict[str, dict[int, str]] = {}
    passing = dict.fromkeys(numbers, 0)
    times: list[float] = []
    rates: dict[int, list[float]] = {number: [] for number in numbers}
    start: float | None = None
    for stored in runs:
        if stored.run.lab != lab:
            continue
        start = stored.received if start is None else start
        statuses = latest.setdefault(stored.run.name, {})
        for verdict in stored.run.verdicts:
            before = statuses.get(verdict.check)
            passing[verdict.check] += (verdict.status == "pass") - (before == "pass")
            statuses[verdict.check] = verdict.status
        times.append(stored.received - start)
        for number in numbers:
            rates[number].append(passing[number] / len(latest))
    return times, rates


def _thinned(indexes: int) -> list[int]:
    if indexes <= MAX_POINTS:
        return list(range(indexes))
    step = indexes / MAX_POINTS
    return sorted({int(i * step) for i in range(MAX_POINTS)} | {indexes - 1})


def svg(runs: Iterable[StoredRun], lab: str, language: str) -> str:
    times, rates = pass_rates(runs, lab)
    title = MESSAGES("{lab}: the pass rate of each check over the session", language).format(
        lab=catalogue.lab_label(lab, language)
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    span = max(times[-1] if times else 0.0, 60.0)
    parts += _axes(plot_w, plot_h, span, language)
    if not times:
        # outside the f-string, where Python 3.11's message extractor reads it too (3.12's reads both)
        empty = escape(MESSAGES("no runs yet", language))
        parts.append(f'<text x="{LEFT + 12}" y="{TOP + plot_h // 2}">{empty}</text>')
    for index, check in enumerate(catalogue.CHECKS[lab]):
        colour = COLOURS[index % len(COLOURS)]
        points = " ".join(
            f"{LEFT + plot_w * times[i] / span:.1f},{TOP + plot_h * (1 - rates[check.number][i]):.1f}"
            for i in _thinned(len(times))
        )
        if points:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        y = TOP + 16 + 20 * index
        parts.append(f'<line x1="{WIDTH - RIGHT + 16}" y1="{y - 4}" x2="{WIDTH - RIGHT + 36}" y2="{y - 4}"'
                     f' stroke="{colour}" stroke-width="3"/>')  # fmt: skip
        parts.append(f'<text x="{WIDTH - RIGHT + 42}" y="{y}">{escape(f"{check.number} · {check.name}")}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _axes(plot_w: int, plot_h: int, span: float, language: str) -> list[str]:
    parts = [f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>']
    for share in (0, 25, 50, 75, 100):
        y = TOP + plot_h * (1 - share / 100)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{share} %</text>')
    minutes = span / 60
    step = next(s for s in (1, 2, 5, 10, 15, 30, 60, 120) if minutes / s <= 8)
    for minute in range(0, int(minutes) + 1, step):
        x = LEFT + plot_w * minute * 60 / span
        parts.append(f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle">{minute}</text>')
    label = escape(MESSAGES("minutes since the first run", language))
    parts.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">{label}</text>')
    return parts
