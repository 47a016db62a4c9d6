"""Debian's chromium under Playwright, started one way by every browser test (make test-browser, make test-hub)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))


@contextmanager
def launched(target: str = "make test-browser") -> Iterator[Browser]:
    """A headless chromium, closed afterwards; a missing one fails the test, naming the target that installs it."""
    if not CHROMIUM.exists():
        pytest.fail(f"no chromium at {CHROMIUM}: `{target}` installs Debian's")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()
