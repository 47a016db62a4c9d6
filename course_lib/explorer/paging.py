"""Pages of a long projection table, laid so the keep/drop boundary sits mid-page (R18, R19).

A 10,000-entry session's table is too long to show whole; the explorer shows one
page at a time and opens on the page where the budget's cut falls, the row a
reader came to see.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import pandas as pd

from ..errors import OptionError

PAGE_SIZE = 40


@dataclass(frozen=True)
class Paging:
    """How a long table is cut into pages: one page is centred on the keep/drop boundary.

    The boundary is the first ``kept`` row: above it what the budget dropped (or a
    compaction summarised), from it on what this call sends (R18, R19). Pages
    are numbered from 1; ``boundary_page`` is the one a reader should see first.
    """

    starts: tuple[int, ...]
    rows: int
    boundary_row: int
    boundary_page: int

    @property
    def pages(self) -> int:
        return len(self.starts)

    def bounds(self, page: int) -> tuple[int, int]:
        """The rows ``[start, stop)`` of ``page`` (1-based; clamped to the pages there are)."""
        index = min(max(page, 1), self.pages) - 1
        stop = self.starts[index + 1] if index + 1 < self.pages else self.rows
        return self.starts[index], stop


def paging(table: pd.DataFrame, page_size: int = PAGE_SIZE) -> Paging:
    """Pages of ``page_size`` rows, laid so the boundary sits in the middle of its page.

    The pages before it tile back to the first row (the first one may be shorter,
    but never under half a page); finding the boundary is one vectorised scan.
    """
    if page_size < 1:
        raise OptionError(f"page_size must be at least 1, got {page_size}")
    rows = len(table)
    kept = (table["status"] == "kept").to_numpy().nonzero()[0]
    boundary = int(kept[0]) if len(kept) else 0
    first = max(0, boundary - page_size // 2)
    starts = [*range(first % page_size, first, page_size), *range(first, max(rows, 1), page_size)]
    if 0 < starts[0] < page_size // 2:
        starts[0] = 0  # a first page shorter than half a page joins the next one
    elif starts[0] > 0:
        starts.insert(0, 0)
    return Paging(tuple(starts), rows, boundary, bisect.bisect_right(starts, boundary))


def table_page(table: pd.DataFrame, page: int | None = None, page_size: int = PAGE_SIZE) -> pd.DataFrame:
    """The rows of one page (1-based), by default the page around the keep/drop boundary."""
    layout = paging(table, page_size)
    start, stop = layout.bounds(layout.boundary_page if page is None else page)
    return table.iloc[start:stop]
