"""A picture of the session tree: the active path in a row, side branches below, compaction arrows above.

Drawn from the entries themselves (never by hand), so the picture in the
notebooks cannot drift from the fixture. Colours are the explorer's statuses for
one projection of the active path, which makes the picture and the table one
vocabulary: what the summary replaces, what the budget keeps, what is off the path.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import pandas as pd

from ..context import Estimator
from ..fixtures import teaching_estimator
from ..models import CompactionEntry, MessageEntry, SessionEntry
from ..paths import path_to
from . import STATUS_COLOURS, projection_table

STEP, NODE_W, NODE_H = 84, 70, 34
MARGIN_X, ROW0_Y, ROW_GAP = 16, 96, 86
OFF_PATH = "off path"


def session_tree_svg(
    entries: Sequence[SessionEntry],
    leaf_id: str,
    *,
    budget: Mapping[str, int | float] | None = None,
    estimate_tokens: Estimator = teaching_estimator,
) -> str:
    """The tree of ``entries`` with the path to ``leaf_id`` on top (R10).

    With a ``budget`` the active path is coloured by ``projection_table``'s
    statuses; every compaction on the path gets an arrow back to its
    ``firstKeptEntryId`` (R18).
    """
    active = path_to(entries, leaf_id)
    status, groups = _statuses(active, budget, estimate_tokens)
    position, rows = _layout(entries, active)
    by_id = {entry.id: entry for entry in entries}
    width = MARGIN_X * 2 + STEP * (max(c for c, _ in position.values()) + 1)
    height = ROW0_Y + ROW_GAP * (rows - 1) + NODE_H + 70
    parts: list[str] = [_arrow_marker()]
    parts += _edges(by_id, position)
    parts += _group_brackets(groups, position)
    compactions = [e for e in active if isinstance(e, CompactionEntry) and e.first_kept_entry_id in position]
    parts += [_compaction_arrow(entry, position) for entry in compactions]
    for entry_id, (column, row) in position.items():
        parts.append(_node(by_id[entry_id], column, row, status.get(entry_id, OFF_PATH)))
    parts.append(_legend(height - 22, budget is not None))
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='session-tree' viewBox='0 0 {width} {height}' "
        f"width='100%' style='max-width:{width}px;height:auto' font-family='sans-serif'>{''.join(parts)}</svg>"
    )


def _statuses(
    active: Sequence[SessionEntry], budget: Mapping[str, int | float] | None, estimate_tokens: Estimator
) -> tuple[dict[str, str], dict[str, int]]:
    """Each active entry's explorer status (``skipped`` for what is never sent) and its group, with a budget."""
    status = {entry.id: "skipped" if entry.type != "message" else "" for entry in active}
    groups: dict[str, int] = {}
    if budget is not None:
        table = projection_table(active, estimate_tokens=estimate_tokens, **budget)
        status.update(zip(table["id"], table["status"], strict=True))
        groups = {i: int(g) for i, g in zip(table["id"], table["group"], strict=True) if not pd.isna(g)}
    return status, groups


def _layout(entries: Sequence[SessionEntry], active: Sequence[SessionEntry]) -> tuple[dict[str, tuple[int, int]], int]:
    """Each entry's (column, row): the active path along row 0, side branches below it; and the rows used."""
    on_path = {entry.id for entry in active}
    position: dict[str, tuple[int, int]] = {entry.id: (column, 0) for column, entry in enumerate(active)}
    children: dict[str | None, list[SessionEntry]] = {}
    for entry in entries:
        children.setdefault(entry.parent_id, []).append(entry)
    next_row = 1

    def unplaced(parent_id: str) -> list[SessionEntry]:
        return [c for c in children.get(parent_id, []) if c.id not in on_path and c.id not in position]

    def place(node: SessionEntry, column: int, row: int) -> None:
        """A branch runs along its row through first children; any further child opens a new row."""
        nonlocal next_row
        position[node.id] = (column, row)
        kids = unplaced(node.id)
        if kids:
            place(kids[0], column + 1, row)
        for extra in kids[1:]:
            next_row += 1
            place(extra, column + 1, next_row - 1)

    for entry in active:
        for child in unplaced(entry.id):
            next_row += 1
            place(child, position[entry.id][0] + 1, next_row - 1)
    return position, next_row


def _xy(column: int, row: int) -> tuple[int, int]:
    return MARGIN_X + STEP * column, ROW0_Y + ROW_GAP * row


def _node(entry: SessionEntry, column: int, row: int, status: str) -> str:
    x, y = _xy(column, row)
    kind = entry.message.role if isinstance(entry, MessageEntry) else entry.type
    fill = STATUS_COLOURS.get(status, "#ffffff")
    dash = " stroke-dasharray='4 3'" if status == OFF_PATH else ""
    title = html.escape(f"{entry.id} ({kind}): {status or 'on path'}")
    return (
        f"<g><title>{title}</title>"
        f"<rect x='{x}' y='{y}' width='{NODE_W}' height='{NODE_H}' rx='6' fill='{fill}' stroke='#555'{dash}/>"
        f"<text x='{x + NODE_W / 2}' y='{y + 15}' text-anchor='middle' font-size='12' font-weight='bold'>"
        f"{html.escape(entry.id)}</text>"
        f"<text x='{x + NODE_W / 2}' y='{y + 28}' text-anchor='middle' font-size='9' fill='#444'>{kind}</text></g>"
    )


def _edges(by_id: Mapping[str, SessionEntry], position: Mapping[str, tuple[int, int]]) -> list[str]:
    """parent → child: straight along a row, an elbow down into a branch."""
    lines = []
    for entry_id, (column, row) in position.items():
        parent = by_id[entry_id].parent_id
        if parent is None or parent not in position:
            continue
        px, py = _xy(*position[parent])
        x, y = _xy(column, row)
        if position[parent][1] == row:
            d = f"M{px + NODE_W},{py + NODE_H / 2} L{x - 2},{y + NODE_H / 2}"
        else:
            d = f"M{px + NODE_W / 2},{py + NODE_H} L{px + NODE_W / 2},{y + NODE_H / 2} L{x - 2},{y + NODE_H / 2}"
        lines.append(f"<path d='{d}' fill='none' stroke='#555' marker-end='url(#tip)'/>")
    return lines


def _compaction_arrow(entry: CompactionEntry, position: Mapping[str, tuple[int, int]]) -> str:
    """An arc over the row from the compaction back to the entry it keeps from (R18)."""
    x1, y1 = _xy(*position[entry.id])
    x2, y2 = _xy(*position[entry.first_kept_entry_id])
    start, end = (x1 + NODE_W / 2, y1), (x2 + NODE_W / 2, y2 - 2)
    top = min(y1, y2) - 70
    middle = (start[0] + end[0]) / 2
    return (
        f"<path d='M{start[0]},{start[1]} C{start[0]},{top} {end[0]},{top} {end[0]},{end[1]}' fill='none' "
        f"stroke='#e07b00' stroke-width='2' stroke-dasharray='6 4' marker-end='url(#tip-orange)'/>"
        f"<text x='{middle}' y='{top + 12}' text-anchor='middle' font-size='12' fill='#b35f00'>"
        f"{html.escape(entry.id)}.firstKeptEntryId = {html.escape(entry.first_kept_entry_id)!s}</text>"
    )


def _group_brackets(groups: Mapping[str, int], position: Mapping[str, tuple[int, int]]) -> list[str]:
    """A bracket under each interaction group of the active path, numbered as in the explorer."""
    spans: dict[int, list[int]] = {}
    for entry_id, group in groups.items():
        spans.setdefault(group, []).append(position[entry_id][0])
    parts = []
    for group, columns in spans.items():
        left = _xy(min(columns), 0)[0]
        right = _xy(max(columns), 0)[0] + NODE_W
        y = ROW0_Y + NODE_H + 8
        parts.append(
            f"<path d='M{left},{y} L{left},{y + 6} L{right},{y + 6} L{right},{y}' fill='none' stroke='#777'/>"
            f"<text x='{(left + right) / 2}' y='{y + 19}' text-anchor='middle' font-size='11' fill='#555'>"
            f"group {group}</text>"
        )
    return parts


def _legend(y: int, coloured: bool) -> str:
    items = [*(STATUS_COLOURS.items() if coloured else ()), (OFF_PATH, "#ffffff")]
    parts, x = [], MARGIN_X
    for name, colour in items:
        dash = " stroke-dasharray='4 3'" if name == OFF_PATH else ""
        parts.append(
            f"<rect x='{x}' y='{y}' width='14' height='14' rx='3' fill='{colour}' stroke='#555'{dash}/>"
            f"<text x='{x + 19}' y='{y + 11}' font-size='11'>{name}</text>"
        )
        x += 19 + round(6.2 * len(name)) + 18
    return "".join(parts)


def _arrow_marker() -> str:
    return (
        "<defs>"
        "<marker id='tip' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' markerHeight='7' orient='auto'>"
        "<path d='M0,0 L10,5 L0,10 z' fill='#555'/></marker>"
        "<marker id='tip-orange' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='5' markerHeight='5' orient='auto'>"
        "<path d='M0,0 L10,5 L0,10 z' fill='#e07b00'/></marker>"
        "</defs>"
    )
