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

The top-level ``submitted_at`` is the *latest* attempt's. Each attempt's own
time is in ``submission_history`` (``?include[]=submission_history``): its
``attempt``, ``submitted_at`` and the ``attachments`` it uploaded, whose
``id`` is the number a download name carries after the user id
(``smithjudy_48213_9981299_…``). Those are read as ``Attempt``s, so a first
attempt handed in on time is on time, and a file of another assignment
(an attachment this one never had) is told apart. So is the file's
``assignment_id`` (one per file: its pages are one assignment's) and, with
``?include[]=assignment``, the assignment's ``name``.

Every refusal names the line and column of the value, as an editor shows
it: the JSON is parsed by the standard library, and ``_elements`` and
``_members`` walk the already valid text with its decoder to find where each
value starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .lms_times import Attempt, SubmissionTimesError, TimeRow, once_each, position

BROWSER_PREFIX = "while(1);"
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()
Refuse = Callable[[int, str], SubmissionTimesError]


def is_canvas_json(text: str) -> bool:
    """A JSON list as saved from Canvas (with or without its ``while(1);``): no CSV header starts so."""
    start = text.lstrip()
    return start.startswith((BROWSER_PREFIX, "[", "{"))


@dataclass
class Submissions:
    """A submissions JSON (one page of it) read: one time per user, every attempt's attachments, the assignment."""

    rows: list[TimeRow] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    assignment: str = ""
    assignment_at: int = 0
    title: str = ""


def read_submissions(text: str, where: str, path: Path | None = None) -> Submissions:
    """The students with a ``submitted_at`` and their attempts; ``SubmissionTimesError`` names the line and column
    of a bad value."""

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
        raise refuse(_skip(text, end), "more after the list of submissions (save each page of the API's answer apart)")
    if not isinstance(data, list):
        raise refuse(start, "not a list of submissions (GET …/assignments/:assignment_id/submissions answers one)")
    found = Submissions()
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
        _of_assignment(found, text, at, submission, refuse)
        if "submitted_at" not in submission:
            raise refuse(offset, f"{who}'s submission has no submitted_at")
        written = submission["submitted_at"]
        if written is None:  # nothing submitted (workflow_state "unsubmitted"), or graded without a submission
            continue
        when = _time(written)
        if when is None:
            raise refuse(at["submitted_at"], f"submitted_at {written!r} is not an ISO 8601 time with its offset")
        line, column = position(text, at["submitted_at"])
        found.rows.append(TimeRow(key=str(user), when=when, line=line, column=column, who=who, path=path))
        found.attempts.extend(_attempts(text, offset, submission, str(user), path, refuse))
    once_each(seen, where)
    return found


def _of_assignment(
    found: Submissions, text: str, at: dict[str, int], submission: dict[str, object], refuse: Refuse
) -> None:
    """The submission's ``assignment_id`` (one per file, refused otherwise) and its ``assignment.name``, if given."""
    value = submission.get("assignment_id")
    ident = str(value) if isinstance(value, int | str) and not isinstance(value, bool) and str(value).isdigit() else ""
    if ident and found.assignment and ident != found.assignment:
        line = position(text, found.assignment_at)[0]
        raise refuse(
            at["assignment_id"],
            f"assignment_id {ident}, but line {line} is assignment {found.assignment}'s: one assignment's "
            "submissions per times file (the API's pages of one assignment may be several files)",
        )
    if ident and not found.assignment:
        found.assignment, found.assignment_at = ident, at["assignment_id"]
    named = submission.get("assignment")
    title = named.get("name") if isinstance(named, dict) else None
    if isinstance(title, str) and title.strip() and not found.title:
        found.title = title.strip()


def _attempts(
    text: str, offset: int, submission: dict[str, object], user: str, path: Path | None, refuse: Refuse
) -> list[Attempt]:
    """Every attachment of the submission (its own: the latest attempt's) and of each attempt in its history."""
    found: dict[str, Attempt] = {}
    history = submission.get("submission_history")
    entries: list[tuple[int, object]] = [(offset, submission)]
    if isinstance(history, list):
        entries += list(zip(_elements(text, _members(text, offset)["submission_history"]), history))
    for entry_at, entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("attachments"), list) or not entry["attachments"]:
            continue
        members = _members(text, entry_at)
        when = _time(entry.get("submitted_at"))
        if when is None:
            problem = f"user {user}'s attempt {entry.get('attempt')!r} has no submitted_at with its offset"
            raise refuse(members.get("submitted_at", entry_at), problem)
        line, column = position(text, members["submitted_at"])
        attempt = entry.get("attempt")
        number = attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else None
        for attachment_at, attachment in zip(_elements(text, members["attachments"]), entry["attachments"]):
            ident = attachment.get("id") if isinstance(attachment, dict) else None
            if isinstance(ident, bool) or not isinstance(ident, int | str) or not str(ident).isdigit():
                raise refuse(attachment_at, f"user {user}'s attachment {ident!r} has no id (a number)")
            earlier = found.get(str(ident))
            if earlier is None or earlier.when > when:  # listed twice: the attempt that first uploaded it
                found[str(ident)] = Attempt(
                    attachment=str(ident), user=user, attempt=number, when=when, line=line, column=column, path=path
                )
    return list(found.values())


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
