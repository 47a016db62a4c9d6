"""Every bad input and misuse is refused with a clear status and changes nothing (issue 46).

Posts need the session's code; every read needs the instructor's token; bodies over
``MAX_BODY`` bytes, JSON that is not JSON or not an object, other content types,
unknown fields, labs, checks, statuses and rule ids are refused, each naming what was
wrong; a learner who posts too often waits; a learner reads nothing of anyone else.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from live_app import BEARER, CODE, TOKEN, client, run, verdicts

from course_live.posts import MAX_BODY
from course_live.rate_limit import BURST


def posted(db: Path, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any], int]:
    """The status and answer of one post to a fresh session, and how many runs the session holds after it."""
    with client(db) as (http, lab):
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        answer = http.post("/api/runs", content=content, headers=headers or {"Content-Type": "application/json"})
        return answer.status_code, answer.json(), lab.store.count()


def test_a_good_run_is_acknowledged_and_stored(tmp_path: Path) -> None:
    status, answer, stored = posted(tmp_path / "s.sqlite", run())
    assert (status, answer, stored) == (200, {"run": 1}, 1)


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (run(code="WRONG-CODE"), 403, "wrong join code"),
        ({**run(), "code": None}, 403, "wrong join code"),
        (b"{not json", 400, "the post is not JSON"),
        (b"\xff\xfe", 400, "the post is not JSON"),
        (b"[1, 2]", 400, "the post must be a JSON object"),
        (run(lab="11.9"), 422, "unknown lab '11.9'"),
        (run(lab=11.3), 422, "unknown lab 11.3"),
        (run(checks=verdicts(("pass", []), ("pass", []), ("pass", [])) + [{"check": 12, "status": "pass", "rules": []}]),
         422, "checks[3]: Lab 11.3 has no check 12"),
        (run(checks=[{"check": True, "status": "pass", "rules": []}]), 422, "Lab 11.3 has no check true"),
        (run(checks=verdicts(("pass", []), ("fail", ["R99"]), ("pass", []))), 422, "checks[1]: unknown rule 'R99'"),
        (run(checks=verdicts(("pass", []), ("fail", [7]), ("pass", []))), 422, "checks[1]: unknown rule 7"),
        (run(checks=verdicts(("passed", []), ("pass", []), ("pass", []))), 422, "checks[0]: unknown status 'passed'"),
        (run(checks=[]), 422, "checks must be a list of 1 to 20 verdicts"),
        (run(checks=[{"check": 7, "status": "pass", "rules": [], "code": "def f(): ..."}]), 422, "checks[0] must hold"),
        (run(source="import os"), 422, "unknown field 'source'"),
        (run(name=""), 422, "name must be 1 to 64 characters"),
        (run(name="\u202e\u200b"), 422, "name must be 1 to 64 characters"),
        (run(name="x" * 65), 422, "name must be 1 to 64 characters"),
        (run(time="yesterday"), 422, "time must be an ISO 8601 date and time"),
        (run(checks=verdicts(("pass", []), ("pass", []), ("pass", []))[:1] * 2), 422, "checks names a check twice"),
    ],
)  # fmt: skip
def test_a_bad_post_is_refused_naming_what_is_wrong(tmp_path: Path, body: Any, status: int, says: str) -> None:
    answered, answer, stored = posted(tmp_path / "s.sqlite", body)
    assert (answered, stored) == (status, 0)
    assert says in answer["error"]


def test_a_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    padded = json.dumps({**run(), "name": "x" * MAX_BODY}).encode()
    assert posted(tmp_path / "a.sqlite", padded)[0::2] == (413, 0)
    streamed = iter([padded[:1000], padded[1000:]])  # no Content-Length: counted as it arrives
    with client(tmp_path / "b.sqlite") as (http, lab):
        answer = http.post("/api/runs", content=streamed, headers={"Content-Type": "application/json"})
        assert (answer.status_code, lab.store.count()) == (413, 0)
        assert answer.json() == {"error": f"the post is over {MAX_BODY} bytes"}


def test_only_json_is_read(tmp_path: Path) -> None:
    status, answer, stored = posted(tmp_path / "s.sqlite", run(), {"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, stored) == (415, 0) and answer == {"error": "the post must be application/json"}


def test_a_join_needs_the_code_too(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, lab):
        assert http.post("/api/hello", json={"code": "NOPE-NOPE", "name": "eve"}).status_code == 403
        assert http.post("/api/hello", json={"code": CODE, "name": "eve", "extra": 1}).status_code == 422
        answer = http.post("/api/hello", json={"code": CODE.lower().replace("-", " "), "name": "eve"})
        assert (answer.status_code, answer.json(), lab.store.count()) == (200, {"lab": "11.3"}, 0)


def test_a_learner_who_posts_too_often_waits(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        answers = [http.post("/api/runs", json=run("loop")) for _ in range(BURST + 3)]
        other = http.post("/api/runs", json=run("calm"))
    codes = [answer.status_code for answer in answers]
    assert codes[:BURST] == [200] * BURST and 429 in codes[BURST:]
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert int(refused.headers["Retry-After"]) >= 1 and "too many runs" in refused.json()["error"]
    assert other.status_code == 200  # the limit is per learner


READS = ["/", "/projector", "/events", "/api/state", "/export.csv", "/pass-rate.svg"]


@pytest.mark.parametrize("path", READS)
def test_every_read_needs_the_token(tmp_path: Path, path: str) -> None:
    """Not the code (a learner's), not a wrong token, not a token of another scheme; the right one, by header or address."""
    with client(tmp_path / "s.sqlite") as (http, _):
        http.post("/api/runs", json=run("ada"))
        for headers, query in [
            ({}, ""),
            ({}, f"?token={CODE}"),
            ({"Authorization": f"Bearer {CODE}"}, ""),
            ({"Authorization": f"Bearer {TOKEN}x"}, ""),
            ({"Authorization": f"Basic {TOKEN}"}, ""),
        ]:
            answer = http.get(path + query, headers=headers)
            assert answer.status_code == 401, (headers, query)
            assert "ada" not in answer.text and answer.headers["WWW-Authenticate"] == "Bearer"
        if path != "/events":  # a stream never ends by itself: its access is the refusals above
            assert http.get(path, headers=BEARER).status_code == 200
            assert http.get(f"{path}?token={TOKEN}").status_code == 200


def test_a_learner_reads_nothing_of_anyone_else(tmp_path: Path) -> None:
    """What a learner's posts answer carries only their own run's number; no learner route reads the room."""
    with client(tmp_path / "s.sqlite") as (http, _):
        first = http.post("/api/runs", json=run("ada", checks=verdicts(("fail", ["R17"]), ("pass", []), ("pass", []))))
        second = http.post("/api/runs", json=run("bob"))
        hello = http.post("/api/hello", json={"code": CODE, "name": "bob"})
        assert [first.json(), second.json(), hello.json()] == [{"run": 1}, {"run": 2}, {"lab": "11.3"}]
        for path in ("/api/runs", "/api/hello"):
            assert http.get(path).status_code == 405
        for path in READS[1:]:
            assert http.get(path, params={"code": CODE, "name": "bob"}).status_code == 401
