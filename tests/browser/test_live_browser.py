"""The live lab in a real browser (issue 46): three learners' real checklist runs appear on the instructor's page.

Three kernels run Lab 11.3 headless through nbclient with the join variables set
(``tests/live_learners.py``): the solution, a mutant (a group that does not fit is
skipped and older ones still tried, R19) and the learner's stub. Debian's chromium,
driven by Playwright, opens the page a real ``course-live serve`` prints; the grid
must show each learner's verdicts as their own checklist showed them, the rule to
explain next must be the mutant's, and the stuck flag must appear once the page
shortens its N. A hostile name is shown as text under the page's strict CSP, with
no console error. The page is saved as docs/live-lab.png, in Chinese as docs/zh/live-lab.png.

Run with ``make test-browser`` (never ``playwright install``).
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the live lab's helpers and the mutant corpus live beside the other tests

import chromium  # noqa: E402 - needs the path above
import live_learners  # noqa: E402 - needs the path above
import live_server  # noqa: E402 - needs the path above
from mutants.lab_11_3 import MUTANTS  # noqa: E402 - needs the path above

SCREENSHOT = Path(os.environ.get("LIVE_LAB_SCREENSHOT", ROOT / "docs" / "live-lab.png"))
CHINESE_SCREENSHOT = Path(os.environ.get("LIVE_LAB_CHINESE_SCREENSHOT", ROOT / "docs" / "zh" / "live-lab.png"))
HOSTILE = '<img src=x onerror="window.__pwned = 1">'
STEP_MS = 60_000
"""Each step's wait at most. The page's CSP forbids eval, so waits are Playwright's own (``expect``, selectors)."""
MUTANT = next(m for m in MUTANTS if m.name == "11_3_skips_and_goes_on")
LEARNERS = [
    live_learners.Learner("Ada", "solution"),
    live_learners.Learner("Bo", MUTANT.name, MUTANT),
    live_learners.Learner("Chen", "stub"),
]


@pytest.fixture
def browser() -> Iterator[Browser]:
    with chromium.launched() as browser:
        yield browser


def opened(browser: Browser, url: str) -> tuple[Page, list[str]]:
    """The page at ``url`` and the problems it reported: console errors and warnings, uncaught errors, failed requests."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.set_default_timeout(STEP_MS)
    page.goto(url, wait_until="load")
    return page, problems


def grid(page: Page) -> dict[str, list[str]]:
    rows = page.eval_on_selector_all(
        "#grid tbody tr",
        "rows => rows.map(row => [row.querySelector('th').textContent, [...row.querySelectorAll('td')].map(td => td.className)])",
    )
    return {name: [status.replace("-", " ") for status in cells] for name, cells in rows}


def post_hostile(server: live_server.Server) -> None:
    body = {"code": server.code, "name": HOSTILE, "lab": "11.3", "time": "2026-05-04T09:30:00+00:00",
            "checks": [{"check": 7, "status": "pass", "rules": ["R17"]}]}  # fmt: skip
    request = urllib.request.Request(
        f"{server.url}/api/runs", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    urllib.request.urlopen(request, timeout=10).close()


def test_three_learners_runs_appear_with_the_mutants_rule_and_the_stuck_flag(browser: Browser, tmp_path: Path) -> None:
    with live_server.running(tmp_path / "lab-day.sqlite") as server:
        outputs = live_learners.run_all(LEARNERS, server)
        assert all("Shared with the live lab" in output for output in outputs.values()), outputs
        page, problems = opened(browser, f"{server.url}/?token={server.token}")
        playwright.expect(page.locator("#grid tbody tr")).to_have_count(3)
        shown = grid(page)
        for learner in LEARNERS:
            expected = live_learners.seen(outputs[learner.name])
            assert shown[learner.name] == [expected[n][0] for n in (7, 8, 9)], learner.name
        assert shown["Ada"] == ["pass"] * 3 and shown["Chen"] == ["not implemented"] * 3 and "fail" in shown["Bo"]
        assert page.text_content("#rule-id") == MUTANT.rule == "R19"
        assert page.text_content("#rule-sentence").startswith("failed by 1 of 3")
        assert page.is_hidden("#stuck li") and page.text_content("#stuck-summary") == "0 of 3"

        page.fill("input[name=stuck]", "0.05")  # three seconds: the mutant's failing check makes Bo stuck
        page.click("#thresholds button")
        page.wait_for_selector("#grid tr.stuck")
        assert page.eval_on_selector_all("#grid tr.stuck th", "rows => rows.map(r => r.textContent)") == ["Bo"]
        assert page.text_content("#stuck li").startswith("Bo: check ")
        page.wait_for_selector("#picture[src]")
        assert (
            page.evaluate(
                "() => new Promise(done => { const p = document.getElementById('picture'); p.complete ? done(p.naturalWidth) : p.onload = () => done(p.naturalWidth); })"
            )
            > 0
        )
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), full_page=True)
        page.click("a[lang=zh]")  # the same page in Chinese, N kept: docs/zh/live-lab.md's picture
        playwright.expect(page.locator("#grid tr.stuck")).to_have_count(1)
        page.wait_for_selector("#picture[src]")
        page.wait_for_load_state("networkidle")
        CHINESE_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(CHINESE_SCREENSHOT), full_page=True)

        post_hostile(server)
        playwright.expect(page.locator("#grid tbody tr")).to_have_count(4)
        assert HOSTILE in grid(page)
        assert page.evaluate("() => window.__pwned") is None
        assert page.locator("#grid img").count() == 0
        assert not problems, problems


def test_the_projector_shows_no_name_and_the_page_speaks_chinese(browser: Browser, tmp_path: Path) -> None:
    with live_server.running(tmp_path / "lab-day.sqlite") as server:
        live_learners.run(LEARNERS[1], server)
        page, problems = opened(browser, f"{server.url}/projector?token={server.token}&lang=zh&stuck=0")
        playwright.expect(page.locator("#stuck li")).to_have_count(1)
        assert "Bo" not in page.content() and page.locator("#grid").count() == 0
        assert page.text_content("#rule-id") == "R19"
        assert "未通过" in (page.text_content("#rule-sentence") or "")
        assert not problems, problems
