"""The instructor's page as the server sends it (issue 46): a strict CSP, no inline code, names only through the feed.

The page is a frame in the instructor's language; learners' names never appear in
its HTML (the feed carries them as JSON, which the script places as text: the
browser test, tests/browser/test_live_browser.py, shows a hostile name as text).
The projector's frame has no grid and asks the feed for no names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from live_app import BEARER, TOKEN, client, run

from course_live import Thresholds
from course_live.app import CSP

HOSTILE = '<img src=x onerror="window.__pwned=1">'


def test_every_response_sends_the_strict_csp(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        answers = [
            http.get(f"/?token={TOKEN}"),
            http.get("/static/live.js"),
            http.get("/api/state", headers=BEARER),
            http.get("/api/state"),
            http.post("/api/runs", content=b"{"),
            http.get("/static/../app.py"),
        ]
    for answer in answers:
        assert answer.headers["Content-Security-Policy"] == CSP
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert "script-src 'self';" in CSP and "'unsafe-inline'" not in CSP and "default-src 'none'" in CSP
    assert answers[-1].status_code == 404


def test_the_page_holds_no_inline_code_and_no_name(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        http.post("/api/runs", json=run(HOSTILE))
        page = http.get(f"/?token={TOKEN}").text
        state = http.get("/api/state", headers=BEARER).json()
    assert re.findall(r"<script[^>]*>", page) == ['<script src="static/live.js" defer>']
    assert not re.search(r"\sstyle=|\son\w+=", page)
    assert "img src=x" not in page and "onerror" not in page
    assert state["grid"][0]["name"] == HOSTILE  # data, for the script to place as text


def test_the_projector_frame_has_no_grid_and_its_feed_no_names(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        http.post("/api/runs", json=run("Ada Lovelace"))
        projector = http.get(f"/projector?token={TOKEN}").text
        instructor = http.get(f"/?token={TOKEN}").text
        anonymous = http.get("/api/state?names=0", headers=BEARER).json()
    assert 'id="grid"' in instructor and 'id="grid"' not in projector
    assert "names=0" in projector and "names=1" in instructor
    assert "Ada" not in json.dumps(anonymous)


def test_the_page_speaks_the_language_asked_for(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        english = http.get(f"/?token={TOKEN}").text
        chinese = http.get(f"/?token={TOKEN}&lang=zh").text
        browser = http.get(f"/?token={TOKEN}", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}).text
        unknown = http.get(f"/?token={TOKEN}&lang=tlh", headers={"Accept-Language": "fr, zh"}).text
    assert '<html lang="en">' in english and '<html lang="zh">' in chinese
    assert chinese == browser == unknown
    headings = re.compile(r"<h2>(.*?)</h2>")
    assert all(a != b for a, b in zip(headings.findall(english), headings.findall(chinese), strict=True))


def test_n_and_m_are_the_pages_own(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite", thresholds=Thresholds(7, 20)) as (http, _):
        default = http.get(f"/?token={TOKEN}").text
        chosen = http.get(f"/?token={TOKEN}&stuck=0.5&idle=3").text
        wrong = http.get(f"/?token={TOKEN}&stuck=-1&idle=nan").text
    assert 'name="stuck" type="number" min="0" step="any" value="7"' in default
    assert "stuck=0.5&amp;idle=3" in chosen and "stuck=7&amp;idle=20" in wrong


def test_the_feed_sends_the_snapshot_as_events(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        http.post("/api/runs", json=run("ada"))
        with http.stream("GET", f"/events?token={TOKEN}&names=0") as feed:
            assert feed.headers["content-type"].startswith("text/event-stream")
            lines = feed.iter_lines()
            data = next(line for line in lines if line.startswith("data: "))
    snapshot = json.loads(data.removeprefix("data: "))
    assert snapshot["latest_run"] == 1 and snapshot["grid"] == []
