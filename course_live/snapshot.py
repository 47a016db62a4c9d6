"""What an instructor's page shows, computed from the room at one moment, in the page's language.

Per check of the session's lab, how many learners pass, fail, or have not started
(no run yet, or the stub's "not implemented": a stub is not a failure); the room's
most-failed rule, each learner counted once per rule among their failing checks,
with its statement and the sentence learners read; the learners stuck (a check
failing for ``stuck_after`` seconds, or no run for ``idle_after``), longest first;
where the room is (learners by the lab of their latest run); and the grid of
learners × checks. A projector's snapshot (``names=False``) holds no name at all,
not merely hidden ones. Every sentence is said here, so the page's script only
places text (``textContent``): a name is never markup.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from course_lib.teaching import lab_registry

from . import catalogue
from .messages import MESSAGES
from .room import Learner, Room


@dataclass(frozen=True)
class View:
    """How one page looks at the room: its language, its thresholds (seconds) and whether it shows names."""

    language: str = "en"
    stuck_after: float = 600.0
    idle_after: float = 900.0
    names: bool = True


CELLS = {"pass": "✓", "fail": "✗", "not implemented": "…", "none": "·"}
"""Each cell's mark; its word is the column's status in the page's language (``_status_word``)."""


def snapshot(room: Room, lab: str, view: View, now: float) -> dict[str, Any]:
    checks = catalogue.CHECKS[lab]
    learners = sorted(room.learners.values(), key=lambda learner: learner.name.casefold())
    stuck = [(learner, why) for learner in learners if (why := _stuck(learner, view, now)) is not None]
    stuck.sort(key=lambda pair: -pair[1][0])
    stuck_names = {learner.name for learner, _ in stuck}
    language = view.language
    cells = {
        status: {"status": status, "mark": mark, "word": _status_word(status, language)}
        for status, mark in CELLS.items()
    }
    return {
        "latest_run": room.latest_run,
        "title": catalogue.lab_label(lab, language),
        "summary": MESSAGES("learners: {learners} · checklist runs: {runs}", language).format(
            learners=len(learners), runs=room.runs
        ),
        "where": _where(learners, lab, language),
        "checks": [_check_counts(learners, lab, check, language) for check in checks],
        "top_rule": _top_rule(learners, len(learners), view, now),
        "stuck_summary": MESSAGES("{count} of {learners}", language).format(count=len(stuck), learners=len(learners)),
        "stuck": [{"name": learner.name if view.names else None, "why": why} for learner, (_, why) in stuck],
        "columns": [str(check.number) for check in checks],
        "grid": [_row(learner, lab, checks, cells, stuck_names) for learner in learners] if view.names else [],
    }


def _status(learner: Learner, lab: str, number: int) -> str:
    state = learner.state(lab, number)
    return "none" if state is None else state.status


def _check_counts(learners: list[Learner], lab: str, check: catalogue.Check, language: str) -> dict[str, Any]:
    counts = Counter(_status(learner, lab, check.number) for learner in learners)
    return {
        "label": f"{check.number} · {check.name}",
        "pass": counts["pass"],
        "fail": counts["fail"],
        "not_started": counts["none"] + counts["not implemented"],
        "words": MESSAGES("{passed} pass · {failed} fail · {waiting} not started", language).format(
            passed=counts["pass"], failed=counts["fail"], waiting=counts["none"] + counts["not implemented"]
        ),
    }


def _top_rule(learners: list[Learner], total: int, view: View, now: float) -> dict[str, Any] | None:
    """The rule most learners fail now (each counted once), the check most of them fail it in, and since when."""
    by_rule: Counter[str] = Counter()
    by_check: Counter[tuple[str, int, str]] = Counter()
    since: dict[str, float] = {}
    for learner in learners:
        rules: set[str] = set()
        for (lab, number), state in learner.checks.items():
            if state.failing_since is None:
                continue
            for rule in state.rules:
                by_check[(rule, number, lab)] += 1
                since[rule] = min(since.get(rule, now), state.failing_since)
                rules.add(rule)
        by_rule.update(rules)
    if not by_rule:
        return None
    rule = min(by_rule, key=lambda r: (-by_rule[r], catalogue.RULE_ORDER.get(r, 0)))
    number = max((key for key in by_check if key[0] == rule), key=lambda key: (by_check[key], -key[1]))[1]
    language = view.language
    return {
        "rule": rule,
        "statement": catalogue.statement(rule, language),
        "message": catalogue.learner_message(number, rule, language) or "",
        "sentence": MESSAGES("failed by {failing} of {learners}, for {time}", language).format(
            failing=by_rule[rule], learners=total, time=duration(now - since[rule], language)
        ),
    }


def _stuck(learner: Learner, view: View, now: float) -> tuple[float, str] | None:
    """How long and why ``learner`` is stuck: the longest-failing check past ``stuck_after``, else no run lately."""
    failing = [
        (now - state.failing_since, number)
        for (_, number), state in learner.checks.items()
        if state.failing_since is not None and now - state.failing_since >= view.stuck_after
    ]
    if failing:
        seconds, number = max(failing)
        return seconds, MESSAGES("check {check} failing for {time}", view.language).format(
            check=number, time=duration(seconds, view.language)
        )
    idle = now - learner.last_run
    if idle >= view.idle_after:
        return idle, MESSAGES("no run for {time}", view.language).format(time=duration(idle, view.language))
    return None


def _where(learners: list[Learner], lab: str, language: str) -> list[dict[str, Any]]:
    counts = Counter(learner.lab for learner in learners)
    return [
        {"label": lab_registry.LABS[at].spoken_label(language), "learners": counts[at], "current": at == lab}
        for at in lab_registry.LABS
        if counts[at] or at == lab
    ]


def _row(
    learner: Learner, lab: str, checks: tuple[catalogue.Check, ...], cells: dict[str, Any], stuck: set[str]
) -> dict[str, Any]:
    """One learner's row: each check's cell (one shared object per status: said once per snapshot)."""
    return {
        "name": learner.name,
        "stuck": learner.name in stuck,
        "cells": [cells[_status(learner, lab, check.number)] for check in checks],
    }


def _status_word(status: str, language: str) -> str:
    words = {
        "pass": MESSAGES("passes", language),
        "fail": MESSAGES("fails", language),
        "not implemented": MESSAGES("not implemented yet", language),
        "none": MESSAGES("no run yet", language),
    }
    return words[status]


def duration(seconds: float, language: str) -> str:
    """``45 s`` under a minute, else whole minutes: ``12 min``."""
    if seconds < 60:
        return MESSAGES("{seconds} s", language).format(seconds=max(0, int(seconds)))
    return MESSAGES("{minutes} min", language).format(minutes=int(seconds // 60))
