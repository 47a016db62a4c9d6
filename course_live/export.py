"""After the session: ``GET /export.csv``, one row per checklist run and check (issue 46).

Columns ``learner, lab, check, status, rules, time``: the learner's display name,
the lab id, the check's number, ``pass``/``fail``/``not implemented``, the rule ids
separated by spaces, and when the server received the run (ISO 8601, UTC). Scripts
outside the repository read these columns: keep them. A name a spreadsheet would
read as a formula (``=``, ``+``, ``-``, ``@`` first; OWASP, *CSV Injection*) is
written with a ``'`` before it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from .store import StoredRun

COLUMNS = ("learner", "lab", "check", "status", "rules", "time")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(text: str) -> str:
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def rows(runs: Iterable[StoredRun]) -> Iterator[tuple[str, ...]]:
    for stored in runs:
        time = datetime.fromtimestamp(stored.received, UTC).isoformat(timespec="milliseconds")
        for verdict in stored.run.verdicts:
            yield (
                neutralised(stored.run.name),
                stored.run.lab,
                str(verdict.check),
                verdict.status,
                " ".join(verdict.rules),
                time,
            )


def csv_text(runs: Iterable[StoredRun]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows(runs))
    return out.getvalue()
