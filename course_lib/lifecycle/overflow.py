"""Recognising a context overflow, the second compaction trigger (L4).

An overflow is an accident, not a stop reason of its own: the provider ends the
response with ``error`` or ``length`` and says, in its error text or its usage
report, that the prompt did not fit. Other errors (a timeout, a refused key) are
not cured by compacting, so they must not start recovery.
"""

from __future__ import annotations

import re

from ..models import AssistantMessage

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
