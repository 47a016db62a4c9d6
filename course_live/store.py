"""The session on disk: one SQLite database in WAL mode, written before a post is acknowledged (issue 46).

Every accepted run is one transaction (the run, then a row per verdict), committed
before the server answers, so a server killed with SIGKILL loses no acknowledged
post: WAL mode appends each commit to the ``-wal`` file, which outlives the process
(``synchronous = NORMAL``: a power cut, not a killed process, may lose the last
commits). The session's settings (join code, token, lab) live in the same file, so
stopping and restarting the server keeps the session. Nothing is ever updated or
deleted: the room is replayed from the runs (``room.py``), the export and the
picture read them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import SessionFileError
from .posts import Run, Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, learner TEXT NOT NULL, lab TEXT NOT NULL, received REAL NOT NULL, sent TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    run INTEGER NOT NULL REFERENCES runs(id), check_number INTEGER NOT NULL, status TEXT NOT NULL,
    rules TEXT NOT NULL, PRIMARY KEY (run, check_number)
);
"""
KIND = "course-live session 1"
"""The ``kind`` setting of a database this server wrote: any other file is refused, never written to."""


@dataclass(frozen=True)
class StoredRun:
    id: int
    received: float
    """Seconds since the epoch, by the server's clock: what the room, the export and the picture use."""
    run: Run


class Store:
    """``Store(path)`` opens (or creates) a session database; ``add`` commits a run and returns its id."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._claim()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise SessionFileError(f"{path}: not a live lab session database ({exc})") from None
        except SessionFileError:
            self._db.close()
            raise

    def _claim(self) -> None:
        """Refuse someone else's database before writing a byte to it; then WAL mode and the tables."""
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "settings" not in tables:
            raise SessionFileError(f"{self.path}: a database of something else (tables {sorted(tables)})")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise SessionFileError(f"{self.path}: SQLite could not use WAL mode here (journal mode {mode})")
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.executescript(SCHEMA)
        kind = self.setting("kind")
        if kind is None:
            self.set_setting("kind", KIND)
        elif kind != KIND:
            raise SessionFileError(f"{self.path}: a database of {kind!r}, not of {KIND!r}")

    def setting(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                         (key, value, value))  # fmt: skip

    def add(self, run: Run, received: float) -> int:
        """Commit ``run`` (one transaction) and return its id; only then may the post be acknowledged."""
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO runs (learner, lab, received, sent) VALUES (?, ?, ?, ?)",
                (run.name, run.lab, received, run.sent),
            )
            run_id = cursor.lastrowid
            assert run_id is not None
            self._db.executemany(
                "INSERT INTO verdicts (run, check_number, status, rules) VALUES (?, ?, ?, ?)",
                [(run_id, v.check, v.status, " ".join(v.rules)) for v in run.verdicts],
            )
        return run_id

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def runs(self) -> Iterator[StoredRun]:
        """Every run in the order it was received, with its verdicts in check order."""
        verdicts = self._db.execute(
            "SELECT run, check_number, status, rules FROM verdicts ORDER BY run, check_number"
        ).fetchall()
        by_run: dict[int, list[Verdict]] = {}
        for run_id, number, status, rules in verdicts:
            by_run.setdefault(run_id, []).append(Verdict(number, status, tuple(rules.split())))
        for run_id, learner, lab, received, sent in self._db.execute(
            "SELECT id, learner, lab, received, sent FROM runs ORDER BY id"
        ):
            yield StoredRun(run_id, received, Run(learner, lab, sent, tuple(by_run.get(run_id, ()))))

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def close(self) -> None:
        self._db.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` when the block raises: a run is stored whole or not at all."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")
