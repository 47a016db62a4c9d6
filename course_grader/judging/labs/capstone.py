"""The capstone's hidden cases: ``should_compact``, ``find_cut_point`` and ``retry_after_overflow`` (L1–L4).

The drawn cases decide thresholds for drawn windows, reserves and contexts
(right at, above and below the limit), cut generated sessions for drawn
``keep_recent_tokens``, and recover from drawn scripts of model answers. The
covering set holds the exact threshold with compaction on and off and every
bad number (L1, L2), ``keep_recent_tokens`` at, just below and just above
each running total of the newest groups' costs on the chapter's paths (L3),
and every path of overflow recovery (L4), under drawn windows and texts.
"""

from __future__ import annotations

import random
from typing import Any

from course_lib import fixtures
from course_lib.builders import PathBuilder
from course_lib.lifecycle.cut_point import context_groups, group_cost
from course_lib.models import SessionEntry, StopReason
from course_lib.parsing import to_json_dict
from course_lib.teaching.i18n import message
from course_lib.teaching.wording import Wording, say

from .. import shapes
from ..calls import FIXED, Calls, describe_path
from ..draws import Covering, Draw
from ..generate import SessionRecipe, random_session
from ..hidden import HiddenCall, HiddenTest

Script = tuple[Wording, list[dict[str, Any]], int | float, Any]
"""A covering recovery: what it shows, the model's answers in order, the context window, max_attempts."""


def hidden(rng: random.Random) -> tuple[HiddenTest, ...]:
    decided = _drawn_thresholds(rng)
    made = _drawn_cut_points(rng)
    recovered = _drawn_recoveries(rng)
    return _tests(decided, made, recovered)


def _tests(
    decided: tuple[HiddenCall, ...], cut: tuple[HiddenCall, ...], recovered: tuple[HiddenCall, ...]
) -> tuple[HiddenTest, ...]:
    return (
        HiddenTest(
            "generated_thresholds",
            "capstone",
            "L1 L2",
            message(
                "compact only when enabled and strictly above window minus reserve, in both modes refusing bad numbers "
                "with a ValueError"
            ),
            decided,
        ),
        HiddenTest(
            "generated_cut_points",
            "capstone",
            "L3",
            message("newest whole groups until keep_recent_tokens is reached; the first kept entry opens a group"),
            cut,
        ),
        HiddenTest(
            "generated_overflow_recovery",
            "capstone",
            "L4",
            message(
                "an error or length stop is an overflow when its text says so or its reported input is above the window; "
                "compact and resend at most max_attempts times (an int >= 0), then raise OverflowRecoveryError"
            ),
            recovered,
        ),
    )


def _drawn_thresholds(rng: random.Random) -> tuple[HiddenCall, ...]:
    thresholds = Calls("capstone", "should_compact")
    decided = []
    for _ in range(12):
        window = rng.randint(200, 200_000)
        reserve = rng.randint(1, window - 1)
        settings = {
            "enabled": rng.random() < 0.85,
            "reserve_tokens": reserve,
            "keep_recent_tokens": rng.randint(1, 5000),
        }
        tokens = rng.choice((window - reserve, window - reserve + 1, window - reserve - 1, rng.randint(0, window * 2)))
        decided.append(
            thresholds.make(
                _threshold(window, reserve, settings["enabled"], tokens),
                options={"context_tokens": tokens, "context_window": window, "settings": settings},
            )
        )
    for bad in (-3, float("inf")):
        decided.append(
            thresholds.make(
                say("context_tokens {bad}", bad=repr(bad)),
                reject=("context_tokens",),
                options={
                    "context_tokens": bad,
                    "context_window": 800,
                    "settings": {"reserve_tokens": 160, "keep_recent_tokens": 120},
                },
            )
        )
    return tuple(decided)


def _drawn_cut_points(rng: random.Random) -> tuple[HiddenCall, ...]:
    cuts = Calls("capstone", "find_cut_point")
    made = []
    for number in range(12):
        path = random_session(rng.randrange(10**6), SessionRecipe(groups=(1, 7), compactions=number % 3, metadata=True))
        estimator = rng.choice(("teaching", "chars"))
        keep = rng.choice((1, rng.randint(2, 60), rng.randint(60, 400)))
        made.append(
            cuts.make(
                say(
                    "{path}, keep_recent_tokens={keep}, {estimator} estimator",
                    path=describe_path(path),
                    keep=keep,
                    estimator=estimator,
                ),
                path=path,
                options={"keep_recent_tokens": keep},
                estimator=estimator,
            )
        )
    return tuple(made)


def _drawn_recoveries(rng: random.Random) -> tuple[HiddenCall, ...]:
    recoveries = Calls("capstone", "retry_after_overflow")
    recovered = []
    for _ in range(8):
        window = rng.randint(100, 10_000)
        answers = [_scripted_answer(rng, window, number) for number in range(1, rng.randint(1, 5) + 1)]
        cap = rng.randint(0, 4)
        recovered.append(
            recoveries.make(
                say(
                    "{count} scripted answer(s), window {window}, max_attempts {cap}",
                    count=len(answers),
                    window=window,
                    cap=cap,
                ),
                value={"answers": answers},
                options={"context_window": window, "max_attempts": cap},
            )
        )
    return tuple(recovered)


def _scripted_answer(rng: random.Random, window: int, number: int) -> dict[str, Any]:
    """One model answer for overflow recovery: an overflow (by text or by size), another error, or a plain stop (L4)."""
    stop: StopReason = rng.choice(("stop", "error", "error", "length", "aborted"))
    error = rng.choice((None, None, "prompt is too long", "exceeds the context window", "rate limited"))
    size = rng.choice((rng.randint(0, window), window, window + 1, rng.randint(window, window * 2)))
    entry = (
        PathBuilder()
        .assistant(
            f"reply-{number}",
            f"Scripted answer {number}.",
            stop_reason=stop,
            input_tokens=size,
            error_message=error if stop != "stop" else None,
        )
        .entries[-1]
    )
    return to_json_dict(entry)


def covering(draw: Draw) -> Covering:
    decided = _covering_thresholds(draw)
    cut = _covering_cut_points(draw)
    recovered = _covering_recoveries(draw)
    return {
        "generated_thresholds": decided,
        "generated_cut_points": cut,
        "generated_overflow_recovery": recovered,
    }


def _covering_thresholds(draw: Draw) -> tuple[HiddenCall, ...]:
    """L1, L2: the exact threshold and its neighbours, every bad context and window, with compaction on and off."""
    thresholds = Calls("capstone", "should_compact", FIXED)
    window = draw.between(400, 200_000)
    reserve = draw.between(2, window // 3)
    limit = window - reserve
    decided = []
    for enabled in (True, False):
        settings = {"enabled": enabled, "reserve_tokens": reserve, "keep_recent_tokens": draw.between(1, 5000)}
        for tokens in (0, limit - 1, limit, limit + 0.5, limit + 1, window * 12):
            decided.append(
                thresholds.make(
                    _threshold(window, reserve, enabled, tokens),
                    options={"context_tokens": tokens, "context_window": window, "settings": settings},
                )
            )
        for bad in (-1, float("nan"), float("inf"), True, str(limit + 1), None):
            decided.append(
                thresholds.make(
                    say("enabled {enabled}, context_tokens {bad}", enabled=enabled, bad=repr(bad)),
                    reject=("context_tokens",),
                    options={"context_tokens": bad, "context_window": window, "settings": settings},
                )
            )
        small = draw.between(1, reserve - 1)
        for too_small, names in (
            (reserve, ("reserve",)),
            (small, ("reserve",)),
            (0, ()),
            (float("nan"), ("context_window",)),
        ):
            decided.append(
                thresholds.make(
                    say(
                        "enabled {enabled}, a window of {window} with reserve {reserve}",
                        enabled=enabled,
                        window=repr(too_small),
                        reserve=reserve,
                    ),
                    reject=names,
                    options={"context_tokens": draw.between(1, 20), "context_window": too_small, "settings": settings},
                )
            )
    return tuple(decided)


def _threshold(window: Any, reserve: Any, enabled: Any, tokens: Any) -> Wording:
    """A threshold case in words: the window, the reserve, whether compaction is on, the context's tokens."""
    fields = {"window": window, "reserve": reserve, "enabled": enabled, "tokens": tokens}
    return say("window {window}, reserve {reserve}, enabled {enabled}, context {tokens}", **fields)


def _covering_cut_points(draw: Draw) -> tuple[HiddenCall, ...]:
    """L3: every keep_recent_tokens edge on the chapter's paths and the ladder, then every bad value."""
    cuts = Calls("capstone", "find_cut_point", FIXED)
    opening = shapes.opening(draw.fresh()).entries
    paths = [
        (say("a path shaped like the chapter's opening path"), opening),
        (say("a path shaped like the chapter's path after compact-1"), shapes.resumed(draw.fresh()).entries),
        (say("a four-group path with a system patch"), shapes.plain_path(draw.fresh())),
        (say("a path resumed twice"), shapes.resumed_path(draw.fresh())),
    ]
    cut = [
        cuts.make(
            say("{what}, keep_recent_tokens={keep}, teaching estimator", what=what, keep=keep),
            path=path,
            options={"keep_recent_tokens": keep},
            estimator="teaching",
        )
        for what, path in paths
        for keep in _keeps(path)
    ]
    cut += [
        cuts.make(
            say("a path shaped like the chapter's opening path, keep_recent_tokens={bad}", bad=repr(bad)),
            path=opening,
            options={"keep_recent_tokens": bad},
            estimator="teaching",
            reject=("keep_recent_tokens",),
        )
        for bad in (0, -draw.between(1, 9), float("nan"), True)
    ]
    return tuple(cut)


def _keeps(path: list[SessionEntry]) -> list[int | float]:
    """keep_recent_tokens at, just below and just above each running total of the newest groups' costs (L3)."""
    totals: list[int | float] = []
    running: int | float = 0
    for cost in reversed(_context_costs(path)):
        running += cost
        totals.append(running)
    return sorted(
        {0.5, 1, *(keep for total in totals for keep in (total - 1, total - 0.5, total, total + 1) if keep > 0)}
    )


def _context_costs(path: list[SessionEntry]) -> list[int | float]:
    return [group_cost(group, fixtures.teaching_estimator) for group in context_groups(path)]


def _covering_recoveries(draw: Draw) -> tuple[HiddenCall, ...]:
    """L4: every scripted path of the recovery loop, then every bad max_attempts."""
    recoveries = Calls("capstone", "retry_after_overflow", FIXED)
    recovered = [
        recoveries.make(
            say("{what}: window {window}, max_attempts {cap}", what=what, window=context_window, cap=cap),
            value={"answers": answers},
            options={"context_window": context_window, "max_attempts": cap},
        )
        for what, answers, context_window, cap in _recovery_scripts(draw)
    ]
    recovered += [
        recoveries.make(
            say("max_attempts {bad}", bad=repr(bad)),
            value={"answers": [_answer(draw, "stop")]},
            reject=("max_attempts",),
            options={"context_window": draw.between(300, 9000), "max_attempts": bad},
        )
        for bad in (-1, True, 1.5, "3", None)
    ]
    return tuple(recovered)


def _answer(
    draw: Draw, stop: StopReason, *, error: str | None = None, input_tokens: int | None = None, number: int = 1
) -> dict[str, Any]:
    entry = (
        PathBuilder(clock=draw.clock())
        .assistant(
            draw.id(f"reply-{number}"),
            draw.text(2, 5),
            stop_reason=stop,
            input_tokens=draw.between(1, 60) if input_tokens is None else input_tokens,
            error_message=error,
        )
        .entries[-1]
    )
    return to_json_dict(entry)


def _recovery_scripts(draw: Draw) -> list[Script]:
    """Every path of L4's loop, under drawn windows and texts: how many attempts, then what counts as an overflow."""
    window = draw.between(300, 9000)
    too_long = f"prompt is too long: {window + draw.between(1, 500)} tokens > {window} maximum"
    ok = _answer(draw, "stop", number=9)
    big = draw.between(2000, 20_000)
    return _attempt_scripts(draw, window, too_long, ok) + _overflow_scripts(draw, window, too_long, ok, big)


def _attempt_scripts(draw: Draw, window: int, too_long: str, ok: dict[str, Any]) -> list[Script]:
    """Overflows by their error text, answered within max_attempts or not, a cap of 0 included."""

    def overflow(number: int = 1) -> dict[str, Any]:
        return _answer(draw, "error", error=too_long, number=number)

    return [
        (say("no overflow"), [ok], window, draw.between(1, 5)),
        (say("one overflow (error text), then an answer"), [overflow(), ok], window, draw.between(1, 5)),
        (say("an overflow every time"), [overflow()], window, draw.between(2, 5)),
        (say("an overflow, cap 0"), [overflow()], window, 0),
        (
            say("two overflows, then an answer, cap 2"),
            [overflow(), _answer(draw, "length", error=too_long, number=2), ok],
            window,
            2,
        ),
        (say("two overflows, then an answer, cap 1"), [overflow(), overflow(2), ok], window, 1),
    ]


def _overflow_scripts(draw: Draw, window: int, too_long: str, ok: dict[str, Any], big: int) -> list[Script]:
    """What is an overflow and what is not: another error, a reported input above or exactly the window, a stop."""
    return [
        (
            say("another error (rate limited), not an overflow"),
            [_answer(draw, "error", error="rate limited, try again later")],
            window,
            draw.between(1, 5),
        ),
        (
            say("an error with no text, reported input above the window"),
            [_answer(draw, "error", input_tokens=window + 1), ok],
            window,
            draw.between(1, 5),
        ),
        (
            say("a length stop, reported input above the window"),
            [_answer(draw, "length", input_tokens=big + draw.between(1, 900)), ok],
            big,
            draw.between(1, 5),
        ),
        (
            say("a length stop with the overflow text"),
            [_answer(draw, "length", error="maximum context length exceeded"), ok],
            window,
            draw.between(1, 5),
        ),
        (
            say("a length stop, reported input exactly the window"),
            [_answer(draw, "length", input_tokens=window), ok],
            window,
            draw.between(1, 5),
        ),
        (
            say("a stop with reported input above the window"),
            [_answer(draw, "stop", input_tokens=window + draw.between(1, 99))],
            window,
            draw.between(1, 5),
        ),
        (say("an aborted answer with the overflow text"), [_answer(draw, "aborted", error=too_long)], window, 3),
        (say("overflows past a large cap"), [_answer(draw, "error", input_tokens=big + 1)], big, draw.between(5, 8)),
    ]
