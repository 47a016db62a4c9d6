"""What a learner's kernel may post, read strictly: a join (``/api/hello``) and a checklist run (``/api/runs``).

A post is refused, changing nothing, unless it is small (``MAX_BODY`` bytes), JSON,
carries the session's join code, and names only what the course has: a lab of the
registry, checks of that lab, rule ids of the rules table, a status of ``STATUSES``
(``course_live.catalogue``). Unknown fields are refused too, as the chapter's parser
refuses an unknown key (R1): a client that sends more than verdicts is not one of ours.
Each refusal says its HTTP status and names the field, in the client's language.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from . import catalogue
from .errors import Refusal
from .messages import MESSAGES

MAX_BODY = 4096
"""Bytes of one post at most: a run of a whole lab's checks is a few hundred."""
NAME_LIMIT = 64
MAX_CHECKS = 20
MAX_RULES = 8
STATUSES = ("pass", "fail", "not implemented")
RUN_FIELDS = frozenset({"code", "name", "lab", "time", "checks"})
VERDICT_FIELDS = frozenset({"check", "status", "rules"})
HELLO_FIELDS = frozenset({"code", "name"})
INVISIBLE = re.compile("[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
"""Controls, zero-width characters and bidirectional overrides: never part of a name a page shows."""


@dataclass(frozen=True)
class Verdict:
    check: int
    status: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class Run:
    """One checklist run of one learner, as posted: who, which lab, when they sent it, and a verdict per check."""

    name: str
    lab: str
    sent: str
    verdicts: tuple[Verdict, ...]


def read_hello(body: bytes, code: str, language: str) -> str:
    """The name of a learner joining with ``code``; a ``Refusal`` otherwise."""
    data = _object(body, code, HELLO_FIELDS, language)
    return _name(data.get("name"), language)


def read_run(body: bytes, code: str, language: str) -> Run:
    """A checklist run posted with ``code``; a ``Refusal`` naming the first thing wrong otherwise."""
    data = _object(body, code, RUN_FIELDS, language)
    name = _name(data.get("name"), language)
    lab = data.get("lab")
    if not isinstance(lab, str) or catalogue.lab_id(lab) is None:
        raise Refusal(422, MESSAGES("unknown lab {lab}", language).format(lab=_shown(lab)))
    sent = data.get("time")
    if not isinstance(sent, str) or not _is_time(sent):
        raise Refusal(
            422, MESSAGES("time must be an ISO 8601 date and time, got {value}", language).format(value=_shown(sent))
        )
    checks = data.get("checks")
    if not isinstance(checks, list) or not 1 <= len(checks) <= MAX_CHECKS:
        raise Refusal(
            422, MESSAGES("checks must be a list of 1 to {limit} verdicts", language).format(limit=MAX_CHECKS)
        )
    verdicts = tuple(_verdict(lab, item, index, language) for index, item in enumerate(checks))
    if len({v.check for v in verdicts}) != len(verdicts):
        raise Refusal(422, MESSAGES("checks names a check twice", language))
    return Run(name, lab, sent, verdicts)


def _object(body: bytes, code: str, fields: frozenset[str], language: str) -> Mapping[str, Any]:
    if len(body) > MAX_BODY:
        raise Refusal(413, MESSAGES("the post is over {limit} bytes", language).format(limit=MAX_BODY))
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refusal(400, MESSAGES("the post is not JSON", language)) from None
    if not isinstance(data, dict):
        raise Refusal(400, MESSAGES("the post must be a JSON object", language))
    given = data.get("code")
    if not isinstance(given, str) or not hmac.compare_digest(normalised_code(given), normalised_code(code)):
        raise Refusal(403, MESSAGES("wrong join code", language))
    unknown = sorted(set(data) - fields)
    if unknown:
        raise Refusal(422, MESSAGES("unknown field {field}", language).format(field=_shown(unknown[0])))
    return data


def normalised_code(code: str) -> bytes:
    """A join code as compared: case and spaces do not matter (``abcd 2345`` is ``ABCD-2345``'s letters)."""
    return "".join(char for char in code.upper() if char.isalnum()).encode("utf-8")


def _name(value: object, language: str) -> str:
    name = " ".join(INVISIBLE.sub("", value).split()) if isinstance(value, str) else ""
    if not name or len(name) > NAME_LIMIT:
        raise Refusal(422, MESSAGES("name must be 1 to {limit} characters", language).format(limit=NAME_LIMIT))
    return name


def _verdict(lab: str, item: object, index: int, language: str) -> Verdict:
    where = f"checks[{index}]"
    if not isinstance(item, dict) or set(item) != VERDICT_FIELDS:
        raise Refusal(422, MESSAGES("{where} must hold check, status and rules", language).format(where=where))
    number, status, rules = item["check"], item["status"], item["rules"]
    if isinstance(number, bool) or not isinstance(number, int) or catalogue.check(lab, number) is None:
        raise Refusal(
            422,
            MESSAGES("{where}: Lab {lab} has no check {check}", language).format(
                where=where, lab=lab, check=_shown(number)
            ),
        )
    if status not in STATUSES:
        raise Refusal(
            422, MESSAGES("{where}: unknown status {status}", language).format(where=where, status=_shown(status))
        )
    if not isinstance(rules, list) or len(rules) > MAX_RULES:
        raise Refusal(422, MESSAGES("{where}: rules must be a list of rule ids", language).format(where=where))
    for rule in rules:
        if not isinstance(rule, str) or not catalogue.known_rule(rule):
            raise Refusal(
                422, MESSAGES("{where}: unknown rule {rule}", language).format(where=where, rule=_shown(rule))
            )
    return Verdict(number, status, tuple(rules))


def _is_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return len(text) <= 40


def _shown(value: object) -> str:
    """A value quoted in a refusal, short and printable."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text[:40] + ("…" if len(text) > 40 else "")
