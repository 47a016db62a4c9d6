"""The live lab's learner side against a real server (issue 46): opt-in, verdicts only, never a broken lab.

A ``course-live serve`` process of its own (``tests/live_server.py``) receives the
posts of ``checklist.run`` in this process, as a learner's kernel sends them: after
``live.join`` or with the variables set, and not before. A server that is not there,
or never answers, or refuses, costs the learner one quiet line, never an exception.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import live_server
import pytest

from course_lib import checklist
from course_lib.checklist import live
from course_lib.checklist.runner import CheckRecord

pytestmark = pytest.mark.slow  # a server process per module, the reference's checks run


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[live_server.Server]:
    with live_server.running(tmp_path_factory.mktemp("live") / "lab-day.sqlite") as running:
        yield running


@pytest.fixture(autouse=True)
def not_joined(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for variable in (live.URL_VARIABLE, live.CODE_VARIABLE, live.NAME_VARIABLE, live.HUB_USER_VARIABLE):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("COURSE_LANG", "en")
    live.leave()
    yield
    live.leave()


def learner(state: dict[str, Any], name: str) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = next(row["cells"] for row in state["grid"] if row["name"] == name)
    return cells


def statuses(state: dict[str, Any], name: str) -> list[str]:
    return [cell["status"] for cell in learner(state, name)]


def test_nothing_is_shared_before_joining(server: live_server.Server) -> None:
    report = checklist.run(lab="11.3")
    assert report.shared == ""
    assert "live lab" not in str(report)
    assert not any(row["name"] == live.display_name() for row in live_server.state(server)["grid"])


def test_the_variables_join_and_each_run_shares_its_verdicts(
    server: live_server.Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(live.URL_VARIABLE, server.url)
    monkeypatch.setenv(live.CODE_VARIABLE, server.code.lower())  # a code is read without regard to case
    monkeypatch.setenv(live.NAME_VARIABLE, "Ada <b>L</b>")
    report = checklist.run(lab="11.3")
    assert report.shared.startswith(f"Shared with the live lab at {server.url} as Ada <b>L</b>")
    assert "3 checks of Lab 11.3" in report.shared and "no code, outputs or files" in report.shared
    assert str(report).endswith(report.shared)
    assert "Ada &lt;b&gt;L&lt;/b&gt;" in report._repr_html_()
    assert statuses(live_server.state(server), "Ada <b>L</b>") == ["pass", "pass", "pass"]


def test_the_hub_user_is_the_name_when_none_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(live.HUB_USER_VARIABLE, "grace")
    assert live.display_name() == "grace"
    monkeypatch.setenv(live.NAME_VARIABLE, "  Grace   Hopper ")
    assert live.display_name() == "Grace Hopper"
    assert live.display_name("typed") == "typed"


def test_join_checks_the_code_and_then_shares(server: live_server.Server, capsys: pytest.CaptureFixture[str]) -> None:
    live.join("WRONG-CODE", url=server.url, name="mallory")
    assert "refused: wrong join code" in capsys.readouterr().out
    assert live.joined() is None
    live.join(server.code, url=server.url + "/", name="bob")
    said = capsys.readouterr().out
    assert said.startswith(f"Joined the live lab at {server.url} as bob") and "never your code" in said

    def stub(*args: object, **kwargs: object) -> object:
        raise NotImplementedError("Lab 11.3 not implemented yet: build_context")

    report = checklist.run(lab="11.3", build_context=stub)
    assert "as bob" in report.shared
    assert statuses(live_server.state(server), "bob") == ["not implemented"] * 3


def test_a_failure_shares_the_rule_its_message_names() -> None:
    """The rule the learner's message starts with, in either language; a crash with no rule, the check's rules."""
    failed = CheckRecord(9, "11.3", "trims", "R19 R21 R23", "failed", "R19/R20: kept ids — expected [1], got [2]")
    assert live.verdict(failed) == {"check": 9, "status": "fail", "rules": ["R19", "R20"]}
    chinese = CheckRecord(9, "11.3", "trims", "R19 R21 R23", "failed", "R21：消息——不一致")
    assert live.verdict(chinese)["rules"] == ["R21"]
    crashed = CheckRecord(8, "11.3", "newest", "R20", "error", "ZeroDivisionError: division by zero")
    assert live.verdict(crashed) == {"check": 8, "status": "fail", "rules": ["R20"]}
    stub = CheckRecord(7, "11.3", "fixed", "R15 R16", "not implemented yet", "R17: looks like a rule")
    assert live.verdict(stub) == {"check": 7, "status": "not implemented", "rules": ["R15", "R16"]}


def test_an_unreachable_server_is_one_quiet_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(live.URL_VARIABLE, f"http://127.0.0.1:{live_server.free_port()}")
    monkeypatch.setenv(live.CODE_VARIABLE, "ANY-CODE")
    report = checklist.run(lab="11.3")
    assert report.passed == report.total
    assert report.shared.startswith("The live lab did not answer (") and report.shared.endswith("was not shared.")


def test_a_server_that_never_answers_costs_at_most_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that takes the connection and says nothing: the run goes on once ``TIMEOUT`` has passed."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    taken: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: taken.append(silent.accept()[0]), daemon=True)
    accepting.start()
    monkeypatch.setattr(live, "TIMEOUT", 0.3)
    monkeypatch.setenv(live.URL_VARIABLE, f"http://127.0.0.1:{silent.getsockname()[1]}")
    monkeypatch.setenv(live.CODE_VARIABLE, "ANY-CODE")
    try:
        report = checklist.run(lab="11.3")
    finally:
        silent.close()
        for connection in taken:
            connection.close()
    assert report.shared == "The live lab did not answer (no answer within 0.3 s); this run was not shared."


def test_a_refused_run_says_why(server: live_server.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(live.URL_VARIABLE, server.url)
    monkeypatch.setenv(live.CODE_VARIABLE, "NOT-THE-CODE")
    report = checklist.run(lab="11.3")
    assert report.shared == "The live lab refused this run (wrong join code); nothing was shared."


def test_a_join_without_an_address_says_how(capsys: pytest.CaptureFixture[str]) -> None:
    live.join("ANY-CODE")
    assert "Not joined: give the live lab's address" in capsys.readouterr().out
    assert live.joined() is None


def test_the_line_is_said_in_the_learners_language(
    server: live_server.Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setenv(live.URL_VARIABLE, server.url)
    monkeypatch.setenv(live.CODE_VARIABLE, "NOT-THE-CODE")
    shared = checklist.run(lab="11.3").shared
    assert shared and "live lab" not in shared  # the sentence and the server's reason, both in Chinese
