"""A feedback page and the class report in a real browser: Debian's chromium, driven by Playwright.

Run with ``make test-browser`` (or ``COURSE_BROWSER_TEST=1 pytest -p no:nbval tests/browser -k feedback``;
never ``playwright install``). The feedback page is a real grade: a learner's
mistake from the mutant corpus (Lab 11.3, a group that does not fit is skipped
and older ones still tried, R19), judged by the grader in this process, with a
hostile file name and note. It must render with no console error and no
script run, show the hostile text as text, and is saved as docs/feedback.png.
The report of a generated class of 48 must show both its charts; its top is
saved as docs/report.png.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the mutant corpus and the generated class live beside the other tests

import chromium  # noqa: E402 - needs the path above
from mutants import MUTANTS  # noqa: E402 - needs the path above
from mutants.run import graded  # noqa: E402 - needs the path above
from synthetic_class import generated_class  # noqa: E402 - needs the path above

from course_grader.publish.feedback import write_feedback  # noqa: E402 - kept with the imports above
from course_grader.publish.report import build_report  # noqa: E402 - kept with the imports above
from course_grader.publish.report_grades import read_grades  # noqa: E402 - kept with the imports above
from course_grader.results.grades_frame import write_csv  # noqa: E402 - kept with the imports above
from course_grader.results.records import companion, write_records  # noqa: E402 - kept with the imports above

FEEDBACK_SCREENSHOT = Path(os.environ.get("FEEDBACK_SCREENSHOT", ROOT / "docs" / "feedback.png"))
REPORT_SCREENSHOT = Path(os.environ.get("REPORT_SCREENSHOT", ROOT / "docs" / "report.png"))
HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
STEP_MS = 60_000


@pytest.fixture
def browser() -> Iterator[Browser]:
    with chromium.launched() as browser:
        yield browser


def _open(browser: Browser, path: Path, width: int = 1100) -> tuple[Page, list[str]]:
    """The page at ``path`` and the problems it reported: console errors, uncaught errors, failed requests."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}") if message.type in ("error", "warning") else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    page.set_default_timeout(STEP_MS)
    page.goto(path.as_uri(), wait_until="load")
    return page, problems


def test_a_feedback_page_renders_safely(browser: Browser, tmp_path: Path) -> None:
    mutant = next(m for m in MUTANTS if m.name == "11_3_skips_and_goes_on")
    result = graded(mutant).model_copy(
        update={
            "student": "alice",
            "student_source": "folder",
            "submission": f"alice/{HOSTILE}.ipynb",
            "status": "ok",
            "execution_time": 6.3,
            "notes": (f"exercise cell 2: ValueError: {HOSTILE}",),
        }
    )
    page_path = write_feedback([result], tmp_path, rules_base="https://example.org/course/blob/main/docs/rules.md")[0]
    page, problems = _open(browser, page_path)
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("script").count() == 0 and page.locator("img").count() == 0
    assert page.inner_text("#submission") == f"alice/{HOSTILE}.ipynb"
    assert HOSTILE in page.inner_text("#notes")
    failed = page.locator("tr.test.failed")
    assert failed.count() == sum(not test.passed for test in result.tests) == 5
    assert "Counterexample (a practice case" in page.inner_text("#hidden")
    assert page.locator('a[href="https://example.org/course/blob/main/docs/rules.md#r19"]').count() >= 2
    FEEDBACK_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(FEEDBACK_SCREENSHOT), full_page=True)
    assert problems == []


def test_a_chinese_status_stays_on_one_line_beside_a_long_message(browser: Browser, tmp_path: Path) -> None:
    """未通过 once wrapped one character per line: the message column took every pixel (issue 45)."""
    mutant = next(m for m in MUTANTS if m.name == "11_3_skips_and_goes_on")
    page_path = write_feedback([graded(mutant)], tmp_path, language="zh")[0]  # its messages long, its labels Chinese
    page, problems = _open(browser, page_path, width=560)
    lines = page.evaluate(
        """() => [...document.querySelectorAll('td.status-failed, td.status-passed')].map(cell => {
            const range = document.createRange(); range.selectNodeContents(cell);
            return [cell.innerText, new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size];
        })"""
    )
    assert lines and all(text in ("未通过", "通过") and count == 1 for text, count in lines), lines
    assert problems == []


def test_the_class_report_shows_its_charts(browser: Browser, tmp_path: Path) -> None:
    results = generated_class(students=48)
    csv = tmp_path / "grades.csv"
    write_csv(results, csv)
    write_records(results, companion(csv))
    report = tmp_path / "report.html"
    report.write_text(build_report(read_grades(csv), results, "grades.csv"), encoding="utf-8")
    page, problems = _open(browser, report)
    sizes = page.evaluate("() => [...document.images].map(image => [image.complete, image.naturalWidth])")
    assert len(sizes) == 2 and all(complete and width > 300 for complete, width in sizes)
    for section in ("#distribution", "#rules", "#items", "#messages"):
        assert page.locator(section).is_visible()
    REPORT_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    box = page.locator("#rule-shares").bounding_box()
    page.screenshot(
        path=str(REPORT_SCREENSHOT),
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1100, "height": box["y"] if box else 1800},
    )
    assert problems == []
