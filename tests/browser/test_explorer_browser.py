"""The projection explorer in a real browser: JupyterLab + Debian's chromium, driven by Playwright.

Run with ``make test-browser`` (it installs chromium when missing and sets
``COURSE_BROWSER_TEST=1``). JupyterLab serves a temporary copy of ``notebooks/``
with autosave off, so a run never rewrites a committed notebook. Every wait is
bounded; JupyterLab and the browser are stopped even when an assertion fails.

What it pins (R19, through the widget): at the chapter's budget the table keeps 7
entries; one token less keeps 5 (group 2 no longer fits); 38 keeps all 9.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "01_projection_explorer.ipynb"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
SCREENSHOT = Path(os.environ.get("EXPLORER_SCREENSHOT", ROOT / "docs" / "explorer.png"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_S = 60
STEP_MS = 60_000  # the bound on any one wait in the page
KEPT_ROWS = ".projection-table tr.status-kept"
KERNEL_IDLE = """() => {
    const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
    const status = document.querySelector('.jp-StatusBar-Widget')?.innerText ?? '';
    return indicator?.dataset.status === 'idle' && /[|] Idle/.test(status) && !/No Kernel/.test(status);
}"""

# Settings a learner's JupyterLab would not need: no autosave, no news or update checks.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_server(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"JupyterLab did not answer within {SERVER_START_S} s:\n{log.read_text()[-3000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server and the kernels it started: they share the new session we gave it."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


@pytest.fixture
def lab_url(tmp_path: Path) -> Iterator[str]:
    """JupyterLab on 127.0.0.1 serving a throwaway copy of ``notebooks/``."""
    notebooks = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    settings = tmp_path / "settings"
    for name, values in LAB_SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    environment = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    port = _free_port()
    command = [
        sys.executable, "-m", "jupyter", "lab",
        "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        "--IdentityProvider.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={notebooks}",
    ]  # fmt: skip
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = tmp_path / "jupyterlab.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=notebooks, env=environment, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for_server(url, process, log)
        yield url
    finally:
        _stop(process)


def _only_localhost(route: Any) -> None:  # a playwright Route (the module is imported only when installed)
    host = urlparse(route.request.url).hostname
    if host in ("127.0.0.1", "localhost"):
        route.continue_()
    else:
        route.abort()


@contextmanager
def notebook_page(lab_url: str, served: str, tmp_path: Path) -> Iterator[Any]:
    """JupyterLab in Debian's chromium on the notebook ``served`` (a path under the served folder), its kernel
    idle: a playwright Page, every wait bounded; on a failure the page is saved as ``tmp_path/failure.png``."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test-browser` installs it (apt-get install -y chromium)")
    playwright.expect.set_options(timeout=STEP_MS)
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, timeout=STEP_MS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(STEP_MS)
        try:
            page.route("**/*", _only_localhost)
            page.goto(f"{lab_url}/lab/tree/{served}?reset", wait_until="domcontentloaded")
            # Run All before the kernel is idle clears the outputs and runs nothing. The toolbar
            # says "idle" even before a kernel exists, so wait for the status bar to name one.
            page.wait_for_function(KERNEL_IDLE)
            yield page
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"page at the failure: {tmp_path / 'failure.png'}")
            raise
        finally:
            browser.close()


def run_from_menu(page: Any, item: str) -> None:
    """JupyterLab's Run menu, then ``item`` ("Run All Cells", "Run Selected Cell")."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$")).click()


def test_max_tokens_slider_redraws_the_projection_table(lab_url: str, tmp_path: Path) -> None:
    """Keyboard on the max_tokens slider: 31 → 30 keeps fewer rows, 38 keeps all (R19, R20)."""
    committed = (ROOT / "notebooks" / NOTEBOOK).read_bytes()
    with notebook_page(lab_url, NOTEBOOK, tmp_path) as page:
        run_from_menu(page, "Run All Cells")
        kept = page.locator(KEPT_ROWS)
        playwright.expect(kept).to_have_count(7)  # the chapter's 31 tokens: groups 2 and 3
        # The cells after the widget run too, and the last one sets the slider (30, 38, 31):
        # a key pressed before it has run is overwritten, so wait until Run All has finished.
        page.wait_for_function(KERNEL_IDLE)
        reason = page.locator(".projection-reason")
        playwright.expect(reason).to_contain_text("trimmed")
        before = page.locator(".projection-table").inner_text()

        handle = page.locator(".projection-max-tokens .noUi-handle")
        handle.focus()
        handle.press("ArrowLeft")  # 30: 21 left, group 2 (7) no longer fits beside group 3 (15)
        playwright.expect(kept).to_have_count(5)
        assert page.locator(".projection-table").inner_text() != before
        for _ in range(8):  # 38: 29 left, every group fits
            handle.press("ArrowRight")
        playwright.expect(kept).to_have_count(9)
        playwright.expect(reason).to_contain_text("within_budget")
        playwright.expect(page.locator(".projection-table tr.status-dropped")).to_have_count(0)

        for _ in range(7):  # back to the chapter's 31 for the picture
            handle.press("ArrowLeft")
        playwright.expect(kept).to_have_count(7)
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".projection-explorer").screenshot(path=str(SCREENSHOT))
    assert (ROOT / "notebooks" / NOTEBOOK).read_bytes() == committed
