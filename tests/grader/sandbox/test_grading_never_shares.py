"""A graded notebook shares nothing with a live lab, whatever its cells or variables say (issue 46).

The grader's view of ``course_lib`` (``sandbox/view.py``) turns the live lab off
(``live.GRADING``), and its kernels get an environment without the join variables.
A listening server counts every request: a checklist run in the view, with the
variables set and after ``live.join``, sends it none; nor does a notebook graded by
``course-grade --no-sandbox`` (Gradescope's mode: the kernel has the network) whose
exercise cell joins and runs the checklist while the grader's own environment holds
the variables.
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import nbformat
import pytest
from grading_corpus import edited, solution

from course_grader.cli import app as cli
from course_grader.errors import SandboxError
from course_grader.sandbox.view import LIVE, build_view, never_sharing
from course_lib.checklist import live
from course_lib.teaching.lab_registry import LABS


class Counting(http.server.BaseHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        Counting.requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"run": 1, "lab": "11.3"}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def listening() -> Iterator[str]:
    """A server that answers every post as the live lab would, and counts them."""
    Counting.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def joined_environment(url: str) -> dict[str, str]:
    return {live.URL_VARIABLE: url, live.CODE_VARIABLE: "TEST-CODE", live.NAME_VARIABLE: "graded"}


SHARE = """
import sys
sys.path.insert(0, {view!r})
import course_lib
from course_lib import checklist
from course_lib.checklist import live
assert course_lib.__file__.startswith({view!r}), course_lib.__file__
live.join("TEST-CODE", url={url!r})
report = checklist.run(lab="11.1")  # a lab whose reference the view keeps
print(repr(report.shared), live.GRADING)
"""


@pytest.mark.slow  # starts a counting server: make test, not make check
def test_the_counting_server_counts_an_ordinary_run(listening: str) -> None:
    """The check itself: outside the grader's view, the same code posts (a join and a run)."""
    env = {**os.environ, **joined_environment(listening)}
    code = "from course_lib import checklist\nprint(bool(checklist.run(lab='11.1').shared))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True" and Counting.requests == ["/api/runs"]


@pytest.mark.slow  # starts a counting server: make test, not make check
def test_the_views_checklist_sends_nothing(listening: str, tmp_path: Path) -> None:
    view = build_view(LABS["11.2"], tmp_path)
    assert "GRADING = True\n" in (view / LIVE).read_text(encoding="utf-8")
    code = SHARE.format(view=str(view.parent), url=listening)
    env = {**os.environ, **joined_environment(listening)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["''", "True"]
    assert Counting.requests == []


def test_a_view_whose_live_module_lost_its_switch_is_not_built(tmp_path: Path) -> None:
    copy = tmp_path / "live.py"
    copy.write_text("GRADING = bool(0)\n", encoding="utf-8")
    with pytest.raises(SandboxError, match="expected one line 'GRADING = False'"):
        never_sharing(copy)


JOIN_AND_RUN = 'from course_lib.checklist import live\nlive.join("TEST-CODE", url={url!r})\n'


@pytest.mark.slow  # a kernel grades the notebook
def test_a_graded_notebook_that_joins_sends_nothing(
    listening: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable, value in joined_environment(listening).items():
        monkeypatch.setenv(variable, value)
    notebook = edited(
        solution("11.2"),
        "group_interactions",
        lambda source: (
            JOIN_AND_RUN.format(url=listening) + source + '\nprint(checklist.run(lab="11.1"))\n'
        ),  # Lab 11.2's own checks need the reference the view withholds
    )
    path = tmp_path / "lab_11_2_group_interactions.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    assert cli.main([str(path), "--results", str(tmp_path / "results.json"), "--no-sandbox"]) == 0
    assert (tmp_path / "results.json").is_file()
    assert Counting.requests == []
