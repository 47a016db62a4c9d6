"""Recognising a context overflow, the second compaction trigger (L4).

An overflow is an accident, not a stop reason of its own: the provider ends the
response with ``error`` or ``length`` and says, in its error text or its usage
report, that the prompt did not fit. Other errors (a timeout, a refused key) are
not cured by compacting, so they must not start recovery.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..models import AssistantMessage
from .errors import CompactionSettingsError, OverflowRecoveryError

OVERFLOW_PATTERNS = re.compile(
    r"prompt is too long|exceeds the context window|context[ _]length[ _]exceeded|maximum context length",
    re.IGNORECASE,
)


def is_context_overflow(message: AssistantMessage, context_window: int | float) -> bool:
    """True when ``message`` failed because its prompt did not fit the window."""
    if not isinstance(message, AssistantMessage) or message.stop_reason not in ("error", "length"):
        return False
    if message.error_message and OVERFLOW_PATTERNS.search(message.error_message):
        return True
    return message.usage.input > context_window


def retry_after_overflow(
    send: Callable[[], AssistantMessage],
    compact: Callable[[int], object],
    *,
    context_window: int | float,
    max_attempts: int,
) -> tuple[AssistantMessage, int]:
    """Send; while the answer is a context overflow, compact and send again, at most ``max_attempts`` times (L4).

    Returns the final answer and how many compact-and-retry attempts ran. When
    the cap is spent the loop raises instead of compacting once more: that is
    what rules out the compact → overflow → compact loop. An answer that failed
    for another reason is returned as it is (compacting would not cure it).
    ``compact(attempt)`` receives the attempt's number, 1 for the first.
    """
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 0:
        raise CompactionSettingsError(
            f"max_attempts must be an int >= 0, got {max_attempts!r} (L4)", field="max_attempts"
        )
    attempts = 0
    answer = send()
    while is_context_overflow(answer, context_window):
        if attempts >= max_attempts:
            raise OverflowRecoveryError(
                f"the context still overflows after {attempts} compact-and-retry attempt(s); "
                f"the cap of {max_attempts} is spent (L4)",
                attempts=attempts,
            )
        attempts += 1
        compact(attempts)
        answer = send()
    return answer, attempts
