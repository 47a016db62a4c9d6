"""A server killed with SIGKILL mid-load loses no acknowledged post (issue 46).

Eight threads post checklist runs to a real server as fast as it takes them; once
it has acknowledged a few hundred, the test kills it with SIGKILL while the posts go
on. Every run it acknowledged (its id, its learner) must be in the database, and a
server started again on the file must show the room with them.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import sqlite3
import threading
import time
import urllib.request
from pathlib import Path

import live_server
import pytest

pytestmark = pytest.mark.slow  # a server under load, killed and started again

THREADS = 8
KILL_AFTER = 300
"""Acknowledged posts before the kill."""


def post(url: str, name: str) -> int | None:
    """One run posted; its id when acknowledged, ``None`` when refused or unanswered."""
    body = {
        "code": live_server.CODE,
        "name": name,
        "lab": "11.3",
        "time": "2026-05-04T09:30:00+00:00",
        "checks": [{"check": 9, "status": "fail", "rules": ["R19"]}],
    }
    request = urllib.request.Request(
        f"{url}/api/runs", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(json.loads(response.read())["run"])
    except (OSError, http.client.HTTPException):  # refused (429), or the server is gone, mid-answer too
        return None


def test_sigkill_mid_load_loses_no_acknowledged_post(tmp_path: Path) -> None:
    db = tmp_path / "lab-day.sqlite"
    server = live_server.start(db)
    acknowledged: dict[int, str] = {}
    lock = threading.Lock()
    killed = threading.Event()

    def learner(thread: int) -> None:
        for count in range(100_000):
            if killed.is_set() and count % 5 == 0 and time.monotonic() > killed_at[0] + 0.5:
                return
            name = f"learner-{thread}-{count % 40}"
            run = post(server.url, name)
            if run is not None:
                with lock:
                    acknowledged[run] = name

    killed_at = [0.0]
    threads = [threading.Thread(target=learner, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < KILL_AFTER and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(server.process.pid, signal.SIGKILL)  # mid-load: the threads are still posting
    killed_at[0] = time.monotonic()
    killed.set()
    for thread in threads:
        thread.join(30)
    server.process.wait(10)
    assert len(acknowledged) >= KILL_AFTER

    with sqlite3.connect(db) as stored:
        runs = dict(stored.execute("SELECT id, learner FROM runs").fetchall())
        verdicts = stored.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
    lost = {run: name for run, name in acknowledged.items() if runs.get(run) != name}
    assert not lost, f"{len(lost)} acknowledged runs lost of {len(acknowledged)}"
    assert verdicts == len(runs)  # a run is stored whole or not at all

    with live_server.running(db) as again:
        state = live_server.state(again)
    assert state["latest_run"] >= max(acknowledged)
    assert {row["name"] for row in state["grid"]} >= set(acknowledged.values())
