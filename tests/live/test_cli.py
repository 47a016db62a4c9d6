"""``course-live serve`` from a shell (issue 46): its options as the issue names them, and what it prints.

The command, its options (``--lab``, ``--db``, ``--port``, ``--code``, ``--token``) and the
variables learners join with are used by scripts outside the repository.
"""

from __future__ import annotations

from pathlib import Path

import live_server
import pytest

from course_live.cli import main, parser


def test_the_options_the_issue_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    said = capsys.readouterr().out
    assert all(option in said for option in ("--lab", "--db", "--port", "--code", "--token"))
    arguments = parser("en").parse_args(["serve", "--lab", "11.3", "--db", "lab-day.sqlite", "--port", "9000"])
    assert (arguments.lab, arguments.db, arguments.port) == ("11.3", Path("lab-day.sqlite"), 9000)


def test_a_new_file_without_a_lab_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "holds no session yet: name its lab (--lab 11.3)" in capsys.readouterr().err


@pytest.mark.slow  # a server process
def test_serve_prints_the_join_code_how_to_join_and_the_instructors_address(tmp_path: Path) -> None:
    server = live_server.start(tmp_path / "lab-day.sqlite")
    printed = live_server.stop(server)
    assert f"join code:   {server.code}" in printed
    assert f'live.join("{server.code}", url="{server.url}")' in printed
    assert f"COURSE_LIVE_URL={server.url} COURSE_LIVE_CODE={server.code}" in printed
    assert f"instructor:  {server.url}/?token={server.token}" in printed
    assert f"projector:   {server.url}/projector?token={server.token}" in printed
