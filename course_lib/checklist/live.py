"""The live lab, the learner's side: once a learner joins, each checklist run shares its verdicts (issue 46).

Opt-in. Nothing leaves the kernel until the learner joins, with a cell
(``live.join("CODE", url=…)``) or with the variables a hub or a shell sets:
``COURSE_LIVE_URL`` (the server), ``COURSE_LIVE_CODE`` (the session's join code)
and, optionally, ``COURSE_LIVE_NAME`` (the name the instructor sees; else the hub
user, ``JUPYTERHUB_USER``, else the account's name). From then on every
``checklist.run`` posts, per check, only its verdict: the lab, the check's number,
``pass``, ``fail`` or ``not implemented``, the rule ids (the rule a failure's
message names first, else the rules the check cites), the time and the display
name; never code, outputs, messages or files. The report then carries one line
saying what was shared (``ChecklistReport.shared``).

Sharing never blocks or breaks a lab: the request runs in a thread the checklist
waits for at most ``TIMEOUT`` seconds, and whatever goes wrong (no server, a
refusal, a timeout) becomes one quiet line, never an exception. Standard library
only (``urllib``): this runs in learners' kernels. And never while grading: the
grader's view of the package (``course_grader/sandbox/view.py``) sets ``GRADING``,
so a graded notebook sends nothing even with the variables set or a ``join`` in a
cell (its environment does not carry them either).
"""

from __future__ import annotations

import getpass
import json
import os
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from ..teaching import i18n
from ..teaching.i18n import MESSAGES, message
from ..teaching.rules import cited

GRADING = False
"""True only in the grading sandbox's view of the package: nothing is ever sent there."""
URL_VARIABLE, CODE_VARIABLE, NAME_VARIABLE = "COURSE_LIVE_URL", "COURSE_LIVE_CODE", "COURSE_LIVE_NAME"
HUB_USER_VARIABLE = "JUPYTERHUB_USER"
TIMEOUT = 1.5
"""Seconds a checklist run waits for the server at most."""
NAME_LIMIT = 64
STATUSES: Mapping[str, str] = {
    "passed": "pass",
    "failed": "fail",
    "error": "fail",
    "not implemented yet": "not implemented",
}
"""A checklist status as the live lab counts it: a check that crashed failed; a stub has not started."""
LEADING_RULES = re.compile(r"\s*((?:[RLM]\d+)(?:\s*[/ ,]\s*[RLM]\d+)*)\s*[:：]")
"""The rule ids a failure's message starts with (``R17/R22: tokens …``, in any language)."""


class Verdict(Protocol):
    """What sharing reads of a checklist record (``runner.CheckRecord``)."""

    @property
    def number(self) -> int: ...
    @property
    def lab(self) -> str: ...
    @property
    def rules(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def message(self) -> str: ...


@dataclass(frozen=True)
class Joined:
    """Where this kernel's checklist runs are shared, and under which name."""

    url: str
    code: str
    name: str


_joined: Joined | None = None
"""Set by ``join``; otherwise the variables decide (``joined``)."""


def display_name(name: str | None = None) -> str:
    """The name the instructor sees: ``name``, else ``COURSE_LIVE_NAME``, the hub user, the account's name."""
    chosen = name or os.environ.get(NAME_VARIABLE) or os.environ.get(HUB_USER_VARIABLE) or _account()
    return " ".join(chosen.split())[:NAME_LIMIT] or "learner"


def _account() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "learner"


def joined() -> Joined | None:
    """The session this kernel shares with: the last ``join``, else the variables (both URL and code set)."""
    if _joined is not None:
        return _joined
    url, code = os.environ.get(URL_VARIABLE, "").strip(), os.environ.get(CODE_VARIABLE, "").strip()
    return Joined(url.rstrip("/"), code, display_name()) if url and code else None


def join(code: str, url: str | None = None, name: str | None = None) -> None:
    """Share this kernel's checklist runs with the live lab whose join code is ``code``, and say so in one line.

    ``url`` is the server's address (default ``COURSE_LIVE_URL``); ``name`` the one the instructor sees.
    The server checks the code now, so a mistyped one is said at once; an unreachable server is said too,
    and runs are shared once it answers.
    """
    global _joined
    if GRADING:
        return
    address = (url or os.environ.get(URL_VARIABLE, "")).strip().rstrip("/")
    if not address:
        print(MESSAGES('Not joined: give the live lab\'s address, live.join(code, url="http://…").'))
        return
    candidate = Joined(address, code.strip(), display_name(name))
    answer = _post(candidate, "/api/hello", {"code": candidate.code, "name": candidate.name})
    if answer.refused:
        print(MESSAGES("Not joined: the live lab at {url} refused: {reason}").format(url=address, reason=answer.text))
        return
    _joined = candidate
    print(MESSAGES(JOINED).format(url=address, name=candidate.name))
    if not answer.ok:
        print(
            MESSAGES("The live lab does not answer yet ({reason}); your runs are shared once it does.").format(
                reason=answer.text
            )
        )


JOINED = message(
    "Joined the live lab at {url} as {name}: from now on each checklist run shares its verdicts "
    "(lab, check, pass/fail/not implemented, rule ids, time, your name), never your code, outputs or files."
)


def leave() -> None:
    """Stop sharing (until the next ``join``; the variables, if set, still name a session)."""
    global _joined
    _joined = None


def share(records: Iterable[Verdict]) -> str:
    """Post the verdicts of one checklist run, one post per lab, and return the line saying what was shared.

    ``""`` when this kernel has not joined (or is being graded). Never raises.
    """
    session = None if GRADING else joined()
    if session is None:
        return ""
    by_lab: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_lab.setdefault(record.lab, []).append(verdict(record))
    shared = 0
    for lab, checks in by_lab.items():
        body = {"code": session.code, "name": session.name, "lab": lab, "time": _now(), "checks": checks}
        answer = _post(session, "/api/runs", body)
        if not answer.ok:
            return _failed(answer)
        shared += len(checks)
    labs = ", ".join(by_lab)
    return MESSAGES(SHARED).format(url=session.url, name=session.name, labs=labs, count=shared)


SHARED = message(
    "Shared with the live lab at {url} as {name}: the verdicts of {count} checks of Lab {labs} "
    "(status, rule ids, time); no code, outputs or files."
)


def _failed(answer: Answer) -> str:
    if answer.refused:
        return MESSAGES("The live lab refused this run ({reason}); nothing was shared.").format(reason=answer.text)
    return MESSAGES("The live lab did not answer ({reason}); this run was not shared.").format(reason=answer.text)


def verdict(record: Verdict) -> dict[str, Any]:
    """One check's verdict as it is posted: its number, its status, and the rule ids it is about."""
    status = STATUSES.get(record.status, "fail")
    rules = cited(record.rules)
    if status == "fail":
        leading = LEADING_RULES.match(record.message)
        rules = cited(leading.group(1)) if leading else rules
    return {"check": record.number, "status": status, "rules": rules}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Answer:
    """How a post ended: ``ok``, ``refused`` by the server (a 4xx, with its reason), or neither (no answer)."""

    ok: bool
    refused: bool
    text: str


def _post(session: Joined, path: str, body: Mapping[str, Any]) -> Answer:
    """POST ``body`` as JSON to the server, waiting at most ``TIMEOUT`` seconds; never raises."""
    result: list[Answer] = []
    sender = threading.Thread(target=lambda: result.append(_send(session.url + path, body)), daemon=True)
    sender.start()
    sender.join(TIMEOUT)
    return result[0] if result else _no_answer()


def _no_answer() -> Answer:
    return Answer(False, False, MESSAGES("no answer within {seconds} s").format(seconds=TIMEOUT))


def _send(url: str, body: Mapping[str, Any]) -> Answer:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "Accept-Language": i18n.language()},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            response.read(4096)
        return Answer(True, False, "")
    except urllib.error.HTTPError as exc:
        return Answer(False, 400 <= exc.code < 500, _reason(exc))
    except Exception as exc:  # noqa: BLE001 - any failure to reach the server is one quiet line, never a crash
        reason = getattr(exc, "reason", None) or exc
        if isinstance(reason, TimeoutError):  # the socket's own timeout: the same as the thread's, said the same way
            return _no_answer()
        return Answer(False, False, str(reason)[:120] or type(exc).__name__)


def _reason(exc: urllib.error.HTTPError) -> str:
    """The server's own reason for a refusal (its JSON ``error``), else the HTTP status."""
    try:
        said = json.loads(exc.read(4096) or b"{}").get("error")
    except (ValueError, AttributeError, OSError):
        said = None
    return str(said)[:200] if said else f"HTTP {exc.code}"
