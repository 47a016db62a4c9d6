"""The live lab's app in this process, for Starlette's test client (issue 46): a session of its own per test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from course_live import LiveLab, Options, build

CODE = "ABCD-2345"
TOKEN = "the-instructors-token"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@contextmanager
def client(db: Path, **options: Any) -> Iterator[tuple[TestClient, LiveLab]]:
    app, lab = build(Options(db=db, **{"lab": "11.3", "code": CODE, "token": TOKEN, **options}))
    with TestClient(app) as test_client:
        yield test_client, lab


def run(name: Any = "ada", lab: Any = "11.3", **changes: Any) -> dict[str, Any]:
    """A checklist run's post as a learner's kernel sends it: every check of Lab 11.3 passing unless ``checks``."""
    body: dict[str, Any] = {
        "code": CODE,
        "name": name,
        "lab": lab,
        "time": "2026-05-04T09:30:00+00:00",
        "checks": [
            {"check": 7, "status": "pass", "rules": ["R15", "R16", "R17", "R22"]},
            {"check": 8, "status": "pass", "rules": ["R20"]},
            {"check": 9, "status": "pass", "rules": ["R19", "R21", "R23"]},
        ],
    }
    return {**body, **changes}


def verdicts(*statuses: tuple[str, list[Any]]) -> list[dict[str, Any]]:
    """Checks 7, 8, 9 with the given (status, rules) each."""
    return [{"check": number, "status": s, "rules": r} for number, (s, r) in zip((7, 8, 9), statuses, strict=True)]
