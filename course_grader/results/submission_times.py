"""When a submission came, as every machine writes it, and how many days late that is.

The CSV shows a submission's time in UTC to the microsecond (``iso``), so every
machine writes the same text, and the late policy counts started days past the
deadline (``days_late``).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime


def days_late(submitted: datetime, deadline: datetime, grace_minutes: float = 0) -> int:
    """Started days past the deadline (and its grace): 1 minute late is one day late, as most syllabi count it."""
    seconds = (submitted - deadline).total_seconds() - 60 * grace_minutes
    return max(0, math.ceil(seconds / 86400)) if seconds > 0 else 0


def iso(when: datetime) -> str:
    """A time as the CSV shows it: UTC, to the microsecond (so every machine writes the same text)."""
    return when.astimezone(UTC).isoformat(timespec="microseconds")
