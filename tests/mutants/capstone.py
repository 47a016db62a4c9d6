"""The capstone: the threshold trigger, the cut point and bounded overflow recovery (L1–L4).

Equivalent mutant, left out: ``compaction_threshold`` computed before the
``context_tokens`` test instead of after it. Both raise a ValueError; they
differ only on a call whose window and count are both invalid, and R15's rule
(name what is wrong) holds for either, so no case can prefer one order.
"""

from __future__ import annotations

from . import Mutant, mutant

LAB = "capstone"
STRICT = "return settings.enabled and context_tokens > threshold"
VALIDATE_TOKENS = "    number = isinstance(context_tokens, (int, float))"
CUT = "return None if index == 0 else groups[index][0].id"
LOOP = "while is_context_overflow(answer, context_window):"
CAP = """    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 0:
        raise ValueError(f"max_attempts must be an int >= 0, got {max_attempts!r} (L4)")
"""

MUTANTS: tuple[Mutant, ...] = (
    mutant(
        LAB,
        "threshold_inclusive",
        "L2",
        "compacts at exactly window - reserve (>= instead of >)",
        (STRICT, STRICT.replace(" > ", " >= ")),
    ),
    mutant(
        LAB,
        "enabled_ignored",
        "L1 L2",
        "compacts above the threshold even when compaction is disabled",
        (STRICT, "return context_tokens > threshold"),
    ),
    mutant(
        LAB,
        "disabled_skips_checks",
        "L1 L2",
        "when compaction is disabled, bad numbers are not refused",
        (VALIDATE_TOKENS, "    if not settings.enabled:\n        return False\n" + VALIDATE_TOKENS),
    ),
    mutant(
        LAB,
        "threshold_ignores_reserve",
        "L2",
        "compacts only above the whole window",
        (STRICT, "return settings.enabled and context_tokens > context_window"),
    ),
    mutant(
        LAB,
        "window_unchecked",
        "L1",
        "a window no larger than the reserve is not refused",
        (
            "threshold = compaction_threshold(context_window, settings)",
            "threshold = context_window - settings.reserve_tokens",
        ),
    ),
    mutant(
        LAB,
        "context_tokens_unchecked",
        "L2",
        "a negative, infinite or boolean context_tokens is accepted",
        (
            VALIDATE_TOKENS,
            "    return settings.enabled and context_tokens > compaction_threshold(context_window, settings)\n"
            + VALIDATE_TOKENS,
        ),
    ),
    mutant(
        LAB,
        "cut_strictly_above",
        "L3",
        "a group that reaches keep_recent_tokens exactly is not enough (> instead of >=)",
        ("if kept >= keep_recent_tokens:", "if kept > keep_recent_tokens:"),
    ),
    mutant(
        LAB,
        "cut_at_oldest_group",
        "L3",
        "when the oldest group is needed, its id is returned instead of nothing",
        (CUT, "return groups[index][0].id"),
    ),
    mutant(
        LAB,
        "cut_one_group_more",
        "L3",
        "one group more than needed is kept",
        (CUT, "return None if index <= 1 else groups[index - 1][0].id"),
    ),
    mutant(
        LAB,
        "cut_at_end_of_group",
        "L3",
        "the cut point is the last entry of the oldest kept group, not its user message",
        (CUT, "return None if index == 0 else groups[index][-1].id"),
        says=(
            (17, "L3: first kept entry for keep_recent_tokens=1", "L3：keep_recent_tokens=1 时的保留起点"),
            (
                19,
                "L3: the first cut point find_cut_point returned that is not a user message",
                "L3：find_cut_point 返回的第一个不是组首 user message 的切点",
            ),
        ),
    ),
    mutant(
        LAB,
        "cut_zero_keep_accepted",
        "L3",
        "keep_recent_tokens=0 is accepted",
        ("keep_recent_tokens <= 0:", "keep_recent_tokens < 0:"),
    ),
    mutant(
        LAB,
        "overflow_ignores_window",
        "L4",
        "only the error text is read: reported input tokens above the window are no overflow",
        (LOOP, 'while is_context_overflow(answer, float("inf")):'),
    ),
    mutant(
        LAB,
        "overflow_window_and_cap_unchecked",
        "L4",
        "reported input tokens above the window are no overflow, and max_attempts is never checked",
        (LOOP, 'while is_context_overflow(answer, float("inf")):'),
        (CAP, ""),
    ),
    mutant(
        LAB,
        "max_attempts_unchecked",
        "L4",
        "a negative, fractional or boolean max_attempts is used as given",
        (CAP, ""),
    ),
    mutant(
        LAB,
        "max_attempts_bool_accepted",
        "L4",
        "max_attempts=True passes as 1",
        ("isinstance(max_attempts, bool) or not isinstance(", "not isinstance("),
    ),
    mutant(
        LAB,
        "every_error_retried",
        "L4",
        "every error or length stop is treated as an overflow",
        (LOOP, 'while answer.stop_reason in ("error", "length"):'),
    ),
    mutant(
        LAB,
        "length_stop_not_retried",
        "L4",
        "only an error stop can be an overflow: a length stop is returned as it is",
        (LOOP, 'while answer.stop_reason == "error" and is_context_overflow(answer, context_window):'),
    ),
    mutant(
        LAB,
        "cap_off_by_one",
        "L4",
        "one compact-and-retry attempt more than the cap",
        ("if attempts >= max_attempts:", "if attempts > max_attempts:"),
    ),
    mutant(
        LAB,
        "cap_returns_failed_answer",
        "L4",
        "when the cap is spent the overflowing answer is returned, not refused",
        (
            "if attempts >= max_attempts:  # L4: a bounded number of attempts, then a clear failure",
            "if attempts >= max_attempts:  # L4\n            return answer, attempts\n        if False:",
        ),
    ),
    mutant(
        LAB,
        "compact_told_attempts_so_far",
        "L4",
        "compact() is told the attempts done so far (0 first), not the attempt's number",
        ("        attempts += 1\n        compact(attempts)\n", "        compact(attempts)\n        attempts += 1\n"),
    ),
)

MUTANTS = (
    *MUTANTS,
    mutant(
        LAB,
        "no_cap",
        "L4",
        "the retry loop has no cap: it compacts and sends again for as long as the answer overflows",
        (
            "if attempts >= max_attempts:  # L4: a bounded number of attempts, then a clear failure",
            "if False:  # no cap: retry until it fits",
        ),
    ),
)
