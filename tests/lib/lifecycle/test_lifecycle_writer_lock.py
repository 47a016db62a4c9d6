"""Benefit 3: one writer per session file; a second writer is refused with SessionLockedError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import JsonlSessionStore, PathBuilder, SessionStoreError
from course_lib.lifecycle import SessionLockedError, demonstrate_single_writer, lock_path, open_session_writer


def entries() -> list:
    return PathBuilder().user("u1", "Hi.").assistant("a1", "Hello.").entries


def test_a_second_writer_is_refused_while_the_first_holds_the_session(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    with open_session_writer(session, fsync=False) as first:
        assert isinstance(first, JsonlSessionStore)
        first.append(entries()[0])
        with pytest.raises(SessionLockedError, match=r"s\.jsonl already has a writer") as caught:
            with open_session_writer(session, fsync=False):
                pytest.fail("the second writer must never get the store")
        assert caught.value.session == "s.jsonl"
        assert isinstance(caught.value, SessionStoreError)
        first.append(entries()[1])  # the first writer is unaffected
    assert [e.id for e in JsonlSessionStore.open(session).entries()] == ["u1", "a1"]


def test_the_lock_is_released_when_the_writer_closes_even_after_an_error(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    with pytest.raises(RuntimeError):
        with open_session_writer(session, fsync=False):
            raise RuntimeError("boom")
    with open_session_writer(session, fsync=False) as again:
        again.append(entries()[0])
    assert lock_path(session) == session  # the lock is on the session file itself, no sidecar
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_the_writer_sees_entries_appended_by_the_previous_writer(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    with open_session_writer(session, fsync=False) as first:
        first.append(entries()[0])
    with open_session_writer(session, fsync=False) as second:
        assert [e.id for e in second.entries()] == ["u1"]
        second.append(entries()[1])


@pytest.mark.slow  # starts a second process: make test, not make check
def test_another_process_is_refused_too(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    code = (
        "import sys\n"
        "from course_lib.lifecycle import open_session_writer, SessionLockedError\n"
        "try:\n"
        "    with open_session_writer(sys.argv[1]):\n"
        "        print('acquired')\n"
        "except SessionLockedError as exc:\n"
        "    print('refused:', exc.session)\n"
    )
    with open_session_writer(session, fsync=False):
        held = subprocess.run([sys.executable, "-c", code, str(session)], capture_output=True, text=True, check=True)
    free = subprocess.run([sys.executable, "-c", code, str(session)], capture_output=True, text=True, check=True)
    assert held.stdout.strip() == "refused: s.jsonl"
    assert free.stdout.strip() == "acquired"


def test_demonstrate_single_writer_reports_the_refusal(tmp_path: Path) -> None:
    demo = demonstrate_single_writer(tmp_path / "demo.jsonl", entries())
    assert demo.refused
    assert "demo.jsonl" in demo.error and str(tmp_path) not in demo.error
    assert demo.first_writer_appended == demo.lines_on_disk == 2
