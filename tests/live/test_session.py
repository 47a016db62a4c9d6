"""A session lives in its database (issue 46): a restarted server keeps its code, token, lab, learners and runs.

``course-live serve`` on the file of a session resumes it; ``--code`` and ``--token``
replace what it holds (a hub's configuration sets them); a file that is not a live
lab's session is refused, never written to.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from live_app import BEARER, CODE, client, run

from course_live import Options, build
from course_live.errors import LiveError, SessionFileError


def test_a_restart_keeps_the_session(tmp_path: Path) -> None:
    db = tmp_path / "lab-day.sqlite"
    with client(db) as (http, _):
        assert http.post("/api/runs", json=run("ada")).json() == {"run": 1}
    _, lab = build(Options(db=db))  # no --lab, --code or --token: the file's own
    try:
        assert (lab.session.lab, lab.session.code, lab.session.token) == ("11.3", CODE, BEARER["Authorization"][7:])
        assert list(lab.room.learners) == ["ada"] and lab.room.latest_run == 1
    finally:
        lab.store.close()
    with client(db, code=None, token=None, lab=None) as (http, _):
        assert http.post("/api/runs", json=run("bob")).json() == {"run": 2}
        state = http.get("/api/state", headers=BEARER).json()
    assert [row["name"] for row in state["grid"]] == ["ada", "bob"]


def test_a_new_session_gets_a_code_and_a_token_and_given_ones_replace_them(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite"
    _, first = build(Options(db=db, lab="11.3"))
    first.store.close()
    assert len(first.session.code) == 9 and first.session.code[4] == "-" and len(first.session.token) >= 32
    _, second = build(Options(db=db, code="HUB-CODE", token="hub-token"))
    second.store.close()
    assert (second.session.code, second.session.token, second.session.lab) == ("HUB-CODE", "hub-token", "11.3")


def test_a_new_file_needs_a_lab_and_a_known_one(tmp_path: Path) -> None:
    with pytest.raises(LiveError, match=r"holds no session yet: name its lab \(--lab 11.3\)"):
        build(Options(db=tmp_path / "a.sqlite"))
    with pytest.raises(LiveError, match=r"unknown lab '11\.9'"):
        build(Options(db=tmp_path / "b.sqlite", lab="11.9"))
    with pytest.raises(LiveError, match="--code must be at least 4 characters"):
        build(Options(db=tmp_path / "c.sqlite", lab="11.3", code="ab"))


def test_a_file_that_is_not_a_session_is_refused_and_left_alone(tmp_path: Path) -> None:
    other = tmp_path / "grades.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE grades (student TEXT, score REAL)")
    before = other.read_bytes()
    with pytest.raises(SessionFileError, match=r"a database of something else \(tables \['grades'\]\)"):
        build(Options(db=other, lab="11.3"))
    assert other.read_bytes() == before
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all, " * 100)
    with pytest.raises(SessionFileError, match="not a live lab session database"):
        build(Options(db=text, lab="11.3"))


def test_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "wal.sqlite"
    with client(db) as (http, _):
        http.post("/api/runs", json=run("ada"))
        with sqlite3.connect(db) as reader:
            assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert reader.execute("SELECT learner, lab FROM runs").fetchall() == [("ada", "11.3")]
