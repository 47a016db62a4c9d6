"""A lab day of 40 learners (issue 46): the real Lab 11.3 notebook in 40 kernels, the instructor's page in chromium.

Forty simulated learners (``tests/live_learners.py``: 16 run the solution, 16 a
mutant of the corpus, 8 the learner's stub) each run the whole notebook through
nbclient with the join variables set, two kernels at a time, against a real
``course-live serve``. The page must show, per check, as many learners passing,
failing and not started as saw that in their own checklist cell; the rule most of
their failing messages name, with how many; every learner with a failing check as
stuck once the page's N is short; and every learner as idle once its M is.

Forty kernels take a minute or two: this runs with ``make test-browser``, not ``make test``.
"""

from __future__ import annotations

import sys
import time
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

LEARNERS = 40
SHORT = 0.05
"""Minutes (three seconds): N or M short enough that every learner it can flag is flagged."""


@pytest.fixture
def browser() -> Iterator[Browser]:
    with chromium.launched() as browser:
        yield browser


def page_at(browser: Browser, server: live_server.Server, query: str) -> Page:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(60_000)
    page.goto(f"{server.url}/?token={server.token}&{query}", wait_until="load")
    playwright.expect(page.locator("#grid tbody tr")).to_have_count(LEARNERS)
    return page


def checks_shown(page: Page) -> dict[int, tuple[int, int, int]]:
    rows = page.eval_on_selector_all(
        "#checks tbody tr", "rows => rows.map(row => [...row.querySelectorAll('td')].map(td => td.textContent))"
    )
    return {int(cells[0].split(" ")[0]): (int(cells[1]), int(cells[2]), int(cells[3])) for cells in rows}


def stuck_names(page: Page) -> set[str]:
    return {
        text.split(": ")[0] for text in page.eval_on_selector_all("#stuck li", "items => items.map(i => i.textContent)")
    }


def test_forty_learners_running_the_real_lab(browser: Browser, tmp_path: Path) -> None:
    learners = live_learners.room(LEARNERS)
    with live_server.running(tmp_path / "lab-day.sqlite") as server:
        outputs = live_learners.run_all(learners, server)
        unshared = [name for name, output in outputs.items() if "Shared with the live lab" not in output]
        assert not unshared, unshared
        failing = {
            name for name, output in outputs.items() if any(s == "fail" for s, _ in live_learners.seen(output).values())
        }
        assert 0 < len(failing) < LEARNERS

        time.sleep(SHORT * 60)  # every failing check has now failed for longer than SHORT
        page = page_at(browser, server, f"stuck={SHORT}&idle=600")
        assert checks_shown(page) == live_learners.counts(outputs, (7, 8, 9))
        rule, failed_by = live_learners.most_failed_rule(outputs)
        assert page.text_content("#rule-id") == rule
        assert (page.text_content("#rule-sentence") or "").startswith(f"failed by {failed_by} of {LEARNERS}, for ")
        assert stuck_names(page) == failing
        assert page.eval_on_selector_all("#grid tr.stuck th", "rows => rows.map(r => r.textContent)") == sorted(failing)

        idle = page_at(browser, server, f"stuck=600&idle={SHORT}")
        assert stuck_names(idle) == {learner.name for learner in learners}
        assert all(
            "no run for" in text for text in idle.eval_on_selector_all("#stuck li", "i => i.map(x => x.textContent)")
        )
