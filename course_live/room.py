"""The room right now: each learner's latest verdict per check, since when it fails, and when they last ran.

Built by replaying the stored runs in order (``Store.runs``) and kept current by
``add`` as each run is accepted, so a page never reads the database. A check's
failing streak starts at the first run of an unbroken series in which it failed
(``failing_since``): "stuck" is that streak, or the time since the learner's last
run, past the thresholds a page chooses (``snapshot.py``). Times are the server's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .posts import Run
from .store import StoredRun


@dataclass(frozen=True)
class CheckState:
    status: str
    rules: tuple[str, ...]
    failing_since: float | None
    """When the current series of failing runs of this check began; ``None`` unless it fails now."""


@dataclass
class Learner:
    name: str
    lab: str
    """The lab of their latest run: where they are."""
    last_run: float
    checks: dict[tuple[str, int], CheckState] = field(default_factory=dict)

    def state(self, lab: str, number: int) -> CheckState | None:
        return self.checks.get((lab, number))


class Room:
    """Every learner who has posted, by name; ``add`` one run at a time, in the order they were received."""

    def __init__(self, runs: Iterable[StoredRun] = ()) -> None:
        self.learners: dict[str, Learner] = {}
        self.runs = 0
        self.latest_run = 0
        self.first_run: float | None = None
        for stored in runs:
            self.add(stored.id, stored.run, stored.received)

    def add(self, run_id: int, run: Run, received: float) -> None:
        learner = self.learners.get(run.name)
        if learner is None:
            learner = self.learners[run.name] = Learner(run.name, run.lab, received)
        learner.lab, learner.last_run = run.lab, received
        for verdict in run.verdicts:
            key = (run.lab, verdict.check)
            before = learner.checks.get(key)
            since = None
            if verdict.status == "fail":
                kept = before is not None and before.failing_since is not None
                since = before.failing_since if kept and before is not None else received
            learner.checks[key] = CheckState(verdict.status, verdict.rules, since)
        self.runs += 1
        self.latest_run = max(self.latest_run, run_id)
        self.first_run = received if self.first_run is None else min(self.first_run, received)
