"""The three benefits of append-only history, each as one call that returns what it measured.

1. replay and audit: every past request rebuilt from the log equals what was sent;
2. prompt-cache stability: prefix reuse of append-only vs rewrite-the-history;
3. safe concurrency: a second writer of a session file is refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..models import SessionEntry
from ..teaching.i18n import MESSAGES
from .errors import SessionLockedError
from .prefix_reuse import PrefixReuse, append_only_requests, measure_prefix_reuse, rewrite_history_requests
from .replay import ReplayCheck, compare_with_sent
from .scripted_model import SentRequest
from .writer_lock import open_session_writer


def demonstrate_replay(entries: Sequence[SessionEntry], sent: Sequence[SentRequest]) -> list[ReplayCheck]:
    """Benefit 1: one check per request; ``all(check.matches …)`` is the claim."""
    return compare_with_sent(entries, sent)


def demonstrate_prefix_reuse(entries: Sequence[SessionEntry]) -> tuple[PrefixReuse, PrefixReuse]:
    """Benefit 2: the same requests under both strategies, append-only first."""
    return (
        measure_prefix_reuse("append-only", append_only_requests(entries)),
        measure_prefix_reuse("rewrite history", rewrite_history_requests(entries)),
    )


def prefix_reuse_table(*reports: PrefixReuse) -> Any:
    """Side by side, one row per strategy (a pandas table), its headers in the reader's language."""
    import pandas as pd

    strategy = MESSAGES("strategy")
    return pd.DataFrame(
        [
            {
                strategy: report.strategy,
                MESSAGES("requests"): len(report.rows),
                MESSAGES("prefix breaks"): report.prefix_breaks,
                MESSAGES("reused messages"): f"{report.message_ratio:.1%}",
                MESSAGES("reused tokens"): f"{report.token_ratio:.1%}",
            }
            for report in reports
        ]
    ).set_index(strategy)


@dataclass(frozen=True)
class WriterDemo:
    """What happened when a second writer tried to open a session the first one holds."""

    refused: bool
    error: str
    first_writer_appended: int
    lines_on_disk: int


def demonstrate_single_writer(session_path: str | os.PathLike[str], entries: Sequence[SessionEntry]) -> WriterDemo:
    """Benefit 3: the first writer appends ``entries`` while a second writer is refused."""
    error = ""
    with open_session_writer(session_path, fsync=False) as first:
        for entry in entries:
            first.append(entry)
        try:
            with open_session_writer(session_path, fsync=False):
                pass
        except SessionLockedError as exc:
            error = str(exc)
    with open(session_path, encoding="utf-8") as handle:
        lines = sum(1 for line in handle if line.strip())
    return WriterDemo(refused=bool(error), error=error, first_writer_appended=len(entries), lines_on_disk=lines)
