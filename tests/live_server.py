"""A real live lab server for the tests: ``course-live serve`` in a process of its own, on a free port (issue 46).

The learner's side (tests/lib/checklist/test_live.py), the SIGKILL test, the browser
and hub tests all talk to the server a learner's kernel would: uvicorn, the session's
SQLite file, over the loopback. ``state`` reads the instructor's snapshot with the token.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

CODE = "TEST-CODE"
TOKEN = "instructor-token-for-tests"
START_SECONDS = 60.0


@dataclass(frozen=True)
class Server:
    url: str
    code: str
    token: str
    process: subprocess.Popen[str]
    port: int


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(db: Path, *, lab: str = "11.3", port: int | None = None, extra: Sequence[str] = ()) -> Server:
    """``course-live serve`` on ``db``, once it answers; the caller stops it (``stop``)."""
    port = port or free_port()
    command = [sys.executable, "-m", "course_live", "serve", "--lab", lab, "--db", str(db), "--port", str(port)]
    command += ["--code", CODE, "--token", TOKEN, *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    server = Server(f"http://127.0.0.1:{port}", CODE, TOKEN, process, port)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"course-live serve exited {process.returncode}:\n{process.communicate()[0]}")
        try:
            with urllib.request.urlopen(f"{server.url}/static/live.css", timeout=2):
                return server
        except OSError:
            time.sleep(0.1)
    stop(server)
    raise RuntimeError(f"course-live serve did not answer within {START_SECONDS} s")


def stop(server: Server) -> str:
    """Stop the server (SIGTERM, then SIGKILL) and return what it printed."""
    server.process.terminate()
    try:
        return server.process.communicate(timeout=15)[0]
    except subprocess.TimeoutExpired:
        server.process.kill()
        return server.process.communicate()[0]


@contextmanager
def running(db: Path, **options: Any) -> Iterator[Server]:
    server = start(db, **options)
    try:
        yield server
    finally:
        stop(server)


def state(server: Server, **query: str) -> dict[str, Any]:
    """The instructor's snapshot (``/api/state``), read with the token."""
    request = urllib.request.Request(
        f"{server.url}/api/state?{urlencode(query)}", headers={"Authorization": f"Bearer {server.token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer
