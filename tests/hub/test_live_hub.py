"""The live lab on a real JupyterHub (issue 46): the server as a hub service, behind the hub's own login.

A JupyterHub started here (jupyterhub from the package index, configurable-http-proxy
from the npm registry, installed by ``make test-hub`` into ``build/hub-tools``), with
a dummy authenticator and a local spawner, runs ``course-live serve --hub`` as a
service with the configuration docs/live-lab.md documents (its ``hub-config`` block, read here): the
learners' servers get the live lab's address and code through the spawner's
environment, their names are the hub users'. Two hub users run Lab 11.3 in their own
servers' kernels (the solution and a mutant); the instructor, a hub user the hub
grants the service (a role with ``access:services!service=course-live``), signs in
through the hub's login page in chromium and sees both; a learner signed in the
same way is refused the page.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the live lab's helpers and the mutant corpus live beside the other tests

import chromium  # noqa: E402 - needs the path above
import hub_kernels  # noqa: E402 - beside this file
import live_learners  # noqa: E402 - needs the path above
from live_server import free_port  # noqa: E402 - needs the path above
from mutants.lab_11_3 import MUTANTS  # noqa: E402 - needs the path above

PROXY = Path(
    os.environ.get(
        "CONFIGURABLE_HTTP_PROXY", ROOT / "build" / "hub-tools" / "node_modules" / ".bin" / "configurable-http-proxy"
    )
).absolute()
PASSWORD = "any"
"""The dummy authenticator takes any password."""
TESTER_TOKEN = "hub-test-service-token-0123456789"
START_SECONDS = 120
MUTANT = next(m for m in MUTANTS if m.name == "11_3_skips_and_goes_on")

DOCS = ROOT / "docs" / "live-lab.md"
SNIPPET = re.compile(r"<!-- hub-config:[^>]*-->\n```python\n(.*?)```\n<!-- /hub-config -->", re.DOTALL)
"""The ``jupyterhub_config.py`` lines docs/live-lab.md gives instructors: this hub runs exactly them."""
TEST_HUB = """
# --- the test's own hub: local, dummy logins, one process per user, and an API client for the test ---
c.JupyterHub.services.append({{"name": "tester", "api_token": "{tester_token}"}})
c.JupyterHub.load_roles.append(
    {{"name": "tester", "services": ["tester"], "scopes": ["admin:users", "admin:servers", "access:servers"]}}
)
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {public_port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{folder}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {{"alice", "bob", "teacher"}}
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = "{folder}/home/{{username}}"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = ["--allow-root"] if {root} else []
c.Spawner.start_timeout = {start}
c.Spawner.http_timeout = {start}
"""


def hub_config(folder: Path, public_port: int) -> str:
    """The documented lines, with this machine's addresses and files, then the test hub's own settings."""
    found = SNIPPET.search(DOCS.read_text(encoding="utf-8"))
    assert found, f"{DOCS}: no hub-config block"
    live_port = str(free_port())
    documented = (
        found.group(1)
        .replace("https://hub.example.edu", f"http://127.0.0.1:{public_port}")
        .replace("8765", live_port)
        .replace("/srv/course-live/lab-day.sqlite", str(folder / "lab-day.sqlite"))
    )
    assert documented.count(live_port) == 2 and str(folder) in documented
    return documented + TEST_HUB.format(
        tester_token=TESTER_TOKEN, public_port=public_port, hub_port=free_port(), proxy_port=free_port(),
        proxy=str(PROXY), folder=folder, singleuser=str(Path(sys.executable).parent / "jupyterhub-singleuser"),
        root=os.geteuid() == 0, start=START_SECONDS,
    )  # fmt: skip


@dataclass(frozen=True)
class Hub:
    public: str
    process: subprocess.Popen[bytes]
    log: Path


def api(hub: Hub, method: str, path: str) -> dict[str, object]:
    request = urllib.request.Request(
        f"{hub.public}/hub/api{path}", method=method, headers={"Authorization": f"token {TESTER_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return json.loads(body) if body else {}


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    if not PROXY.exists():
        pytest.skip(f"no configurable-http-proxy at {PROXY} (make test-hub installs it)")
    public_port = free_port()
    public = f"http://127.0.0.1:{public_port}"
    config = tmp_path / "jupyterhub_config.py"
    config.write_text(hub_config(tmp_path, public_port), encoding="utf-8")
    log = tmp_path / "hub.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT
        )
    running = Hub(public, process, log)
    try:
        _wait(running, "/hub/api/")
        yield running
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait(hub: Hub, path: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if hub.process.poll() is not None:
            raise RuntimeError(f"jupyterhub exited:\n{hub.log.read_text()[-4000:]}")
        try:
            urllib.request.urlopen(f"{hub.public}{path}", timeout=5).close()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"jupyterhub did not answer within {START_SECONDS} s:\n{hub.log.read_text()[-4000:]}")


def spawned(hub: Hub, user: str) -> None:
    api(hub, "POST", f"/users/{user}/server")
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        model = api(hub, "GET", f"/users/{user}")
        servers = model.get("servers", {})
        if isinstance(servers, dict) and servers.get("", {}).get("ready"):
            return
        time.sleep(0.5)
    raise RuntimeError(f"{user}'s server did not start:\n{hub.log.read_text()[-4000:]}")


def signed_in(browser: Browser, hub: Hub, user: str) -> Page:
    """A page at the live lab's address, signed in through the hub's login as ``user``."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(60_000)
    page.goto(f"{hub.public}/services/course-live/")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit], button[type=submit]")
    page.wait_for_load_state("load")
    return page


@pytest.fixture
def browser() -> Iterator[Browser]:
    with chromium.launched("make test-hub") as browser:
        yield browser


def test_two_hub_users_runs_appear_on_the_page_behind_the_hubs_login(hub: Hub, browser: Browser) -> None:
    outputs = {}
    for user, notebook in (
        ("alice", live_learners.Learner("alice", "solution").notebook()),
        ("bob", MUTANT.notebook()),
    ):
        spawned(hub, user)
        outputs[user] = hub_kernels.run_notebook(hub.public, user, TESTER_TOKEN, notebook)
        assert f"Shared with the live lab at {hub.public}/services/course-live as {user}" in outputs[user], outputs[
            user
        ]

    page = signed_in(browser, hub, "teacher")
    playwright.expect(page.locator("#grid tbody tr")).to_have_count(2)
    rows = page.eval_on_selector_all(
        "#grid tbody tr",
        "rows => rows.map(r => [r.querySelector('th').textContent, [...r.querySelectorAll('td')].map(td => td.className)])",
    )
    for name, cells in rows:
        assert [cell.replace("-", " ") for cell in cells] == [
            live_learners.seen(outputs[name])[n][0] for n in (7, 8, 9)
        ], name
    assert page.text_content("#rule-id") == MUTANT.rule

    learner_page = signed_in(browser, hub, "alice")  # the hub itself refuses her the service
    assert "You do not have permission to access JupyterHub service course-live" in learner_page.inner_text("body")
    assert learner_page.locator("#grid").count() == 0
