"""Canvas's submissions API JSON read as submission times: each student's ``submitted_at``.

Canvas's download names carry the user id and a ``LATE`` flag, never the
time. ``GET /api/v1/courses/:course_id/assignments/:assignment_id/submissions``
has it: a list of submission objects with ``user_id``, ``submitted_at`` (ISO
8601 in UTC, ``2026-10-16T21:40:00Z``; ``null`` when nothing was submitted),
``late``, ``attempt`` and ``workflow_state``. An instructor logged in to
Canvas opens that address in the browser (``?per_page=100``: Canvas pages a
list) and saves what it shows; Canvas puts ``while(1);`` in front of JSON it
sends to a browser session (so no other site can read it as a script), which
is read past. Canvas's own ``late`` is by its due date; the course file's
deadline, grace and extensions decide here, so only the time is read.

Every refusal names the line and column of the value, as an editor shows
it: the JSON is parsed by the standard library, and ``_elements`` and
``_members`` walk the already valid text with its decoder to find where each
value starts.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from .lms_times import SubmissionTimesError, TimeRow, once_each, position

BROWSER_PREFIX = "while(1);"
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def is_canvas_json(text: str) -> bool:
    """A JSON list as saved from Canvas (with or without its ``while(1);``): no CSV header starts so."""
    start = text.lstrip()
    return start.startswith((BROWSER_PREFIX, "[", "{"))


def read_submissions(text: str, where: str) -> list[TimeRow]:
    """The students with a ``submitted_at``; ``SubmissionTimesError`` names the line and column of a bad value."""

    def refuse(offset: int, problem: str) -> SubmissionTimesError:
        line, column = position(text, offset)
        return SubmissionTimesError(f"{where}, line {line}, column {column}: {problem}")

    start = _skip(text, 0)
    if text.startswith(BROWSER_PREFIX, start):
        start = _skip(text, start + len(BROWSER_PREFIX))
    try:
        data, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise refuse(exc.pos, f"not JSON ({exc.msg})") from None
    if _skip(text, end) != len(text):
        raise refuse(_skip(text, end), "more after the list of submissions (save one page of the API's answer)")
    if not isinstance(data, list):
        raise refuse(start, "not a list of submissions (GET …/assignments/:assignment_id/submissions answers one)")
    rows: list[TimeRow] = []
    seen: list[tuple[str, int, int, str]] = []
    for offset, submission in zip(_elements(text, start), data):
        if not isinstance(submission, dict):
            raise refuse(offset, "not a submission (an object with user_id and submitted_at)")
        at = _members(text, offset)
        user = submission.get("user_id")
        if isinstance(user, bool) or not isinstance(user, int | str) or not str(user).isdigit():
            raise refuse(at.get("user_id", offset), f"user_id {user!r} is not a Canvas user id")
        who = f"user {user}"
        seen.append((str(user), *position(text, at["user_id"]), who))
        if "submitted_at" not in submission:
            raise refuse(offset, f"{who}'s submission has no submitted_at")
        written = submission["submitted_at"]
        if written is None:  # nothing submitted (workflow_state "unsubmitted"), or graded without a submission
            continue
        when = _time(written)
        if when is None:
            raise refuse(at["submitted_at"], f"submitted_at {written!r} is not an ISO 8601 time with its offset")
        line, column = position(text, at["submitted_at"])
        rows.append(TimeRow(key=str(user), when=when, line=line, column=column, who=who))
    once_each(seen, where)
    return rows


def _time(written: object) -> datetime | None:
    if not isinstance(written, str):
        return None
    try:
        when = datetime.fromisoformat(written.strip())
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def _skip(text: str, offset: int) -> int:
    match = _SPACE.match(text, offset)
    return match.end() if match else offset


def _elements(text: str, offset: int) -> list[int]:
    """Where each element of the (valid) JSON list at ``offset`` starts."""
    found: list[int] = []
    at = _skip(text, offset + 1)
    while text[at] != "]":
        found.append(at)
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def _members(text: str, offset: int) -> dict[str, int]:
    """Where each member's value of the (valid) JSON object at ``offset`` starts, by its key."""
    found: dict[str, int] = {}
    at = _skip(text, offset + 1)
    while text[at] != "}":
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the colon
        found[key] = at
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found
