"""After the session: ``GET /export.csv`` with the token, one row per run and check (issue 46).

Columns ``learner, lab, check, status, rules, time``, as scripts outside the
repository read them; a name a spreadsheet would run as a formula is neutralised.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from pathlib import Path

from live_app import BEARER, client, run, verdicts


def test_one_row_per_run_and_check_in_the_issues_columns(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        http.post(
            "/api/runs",
            json=run("ada", checks=verdicts(("fail", ["R17", "R22"]), ("pass", ["R20"]), ("not implemented", []))),
        )
        http.post("/api/runs", json=run('=HYPERLINK("x")', checks=[{"check": 9, "status": "pass", "rules": ["R19"]}]))
        answer = http.get("/export.csv", headers=BEARER)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert 'filename="live-lab.csv"' in answer.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0] == ["learner", "lab", "check", "status", "rules", "time"]
    assert [row[:5] for row in rows[1:]] == [
        ["ada", "11.3", "7", "fail", "R17 R22"],
        ["ada", "11.3", "8", "pass", "R20"],
        ["ada", "11.3", "9", "not implemented", ""],
        ['\'=HYPERLINK("x")', "11.3", "9", "pass", "R19"],
    ]
    times = [datetime.fromisoformat(row[5]) for row in rows[1:]]
    assert all(time.utcoffset() is not None and time.utcoffset().total_seconds() == 0 for time in times)  # type: ignore[union-attr]
    assert times == sorted(times)
