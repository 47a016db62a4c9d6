"""A failing Chinese checklist as a reader meets it: Lab 11.2's Chinese notebook with a planted mistake, in JupyterLab.

Run with ``make test-browser`` (Debian's chromium through Playwright, never ``playwright install``).
JupyterLab serves a throwaway folder laid out as the repository (``labs/zh/``; the notebook's catalog
comes with the installed package) holding the Chinese solution of Lab 11.2 with one mistake of the learner-bug corpus planted in its exercise
cells (tests/mutants: the last group is never closed, R11). Run All stops at the first demonstration
the mistake breaks, as it does for a learner, who then runs the checklist cell; its output must fail
the checks that mistake breaks, in Chinese, and is saved as
docs/checklist-zh.png (issue 45: the picture of a failing Chinese checklist).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from grading_corpus import tagged
from mutants import MUTANTS
from test_explorer_browser import KERNEL_IDLE, lab_url, notebook_page, run_from_menu

from course_lib.teaching import lab_registry

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = Path(os.environ.get("CHECKLIST_SCREENSHOT", ROOT / "docs" / "checklist-zh.png"))
PLANTED = "11_2_last_group_dropped"
HAN = re.compile(r"[\u4e00-\u9fff]")
LINES_IN = """cell => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set(Array.from(range.getClientRects(), rect => Math.round(rect.top))).size;
}"""
"""How many lines a table cell's text takes on the page."""
__all__ = ["lab_url"]  # the fixture, imported for this module's test


@pytest.fixture
def lab_folder(lab_url: str, tmp_path: Path) -> Path:
    """Into the folder ``lab_url`` serves: the planted Chinese lab in the repository's layout."""
    mutant = next(m for m in MUTANTS if m.name == PLANTED)
    entry = lab_registry.lab(mutant.lab)
    notebook = nbformat.read(ROOT / entry.folder / "zh" / "solutions" / f"{entry.notebook}.ipynb", as_version=4)
    cells = tagged(notebook, "exercise")
    for old, new in mutant.edits:
        (holding,) = [cell for cell in cells if old in cell.source]
        holding.source = holding.source.replace(old, new, 1)
    folder = tmp_path / "notebooks"  # lab_url serves this folder
    (folder / entry.folder / "zh").mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, folder / entry.folder / "zh" / f"{entry.notebook}.ipynb")
    # Every cell drawn, not only those on screen, so the checklist's output can be found after Run All.
    tracker = tmp_path / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True, exist_ok=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    return folder / entry.folder / "zh" / f"{entry.notebook}.ipynb"


def test_a_planted_mistake_fails_the_chinese_checklist_in_chinese(
    lab_folder: Path, lab_url: str, tmp_path: Path
) -> None:
    served = lab_folder.relative_to(tmp_path / "notebooks").as_posix()
    with notebook_page(lab_url, served, tmp_path) as page:
        run_from_menu(page, "Run All Cells")
        page.wait_for_function(KERNEL_IDLE)
        # The mistake also breaks a demonstration cell above the checklist (group 3 is missing), which stops Run
        # All there, as it would for the learner; they then run the checklist cell itself.
        cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text="checklist.run("))
        cell.locator(".jp-InputPrompt").click()  # selects the cell (command mode)
        run_from_menu(page, "Run Selected Cell")
        checklist = cell.locator(".jp-OutputArea-output").first
        playwright.expect(checklist).to_contain_text("❌")
        page.wait_for_function(KERNEL_IDLE)
        text = checklist.inner_text()
        failing = [line for line in text.splitlines() if "❌" in line]
        assert failing and all(HAN.search(line) for line in failing), text
        assert "R11" in text, text
        # A status (❌ 未通过) and a check's rules each read on one line, however the message column wraps.
        for marked in checklist.locator("td", has_text="❌").all():
            status, rules = marked, marked.locator("xpath=preceding-sibling::td[1]")
            for held in (status, rules):
                assert held.evaluate(LINES_IN) == 1, held.inner_text()
        checklist.scroll_into_view_if_needed()
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        checklist.screenshot(path=str(SCREENSHOT))
