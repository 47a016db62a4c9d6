"""A per-learner rate limit: a token bucket per name, so one learner (or a loop) cannot flood the room (issue 46).

A learner runs the checklist by hand, a few times a minute; a run of the whole
chapter is one post per lab. ``BURST`` posts may come at once, then one per
``1 / PER_SECOND`` seconds; past that a post is refused (429) with the seconds to wait.
The buckets are the server's memory only: a restart forgives everyone.
"""

from __future__ import annotations

from dataclasses import dataclass

BURST = 10
PER_SECOND = 2.0


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimit:
    def __init__(self, burst: int = BURST, per_second: float = PER_SECOND) -> None:
        self.burst = burst
        self.per_second = per_second
        self._buckets: dict[str, _Bucket] = {}

    def wait(self, learner: str, now: float) -> float:
        """Take one post from ``learner``'s bucket: 0 when it may go, else the seconds until it may."""
        bucket = self._buckets.get(learner)
        if bucket is None:
            bucket = self._buckets[learner] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.per_second)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.per_second
