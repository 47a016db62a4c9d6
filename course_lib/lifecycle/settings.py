"""Compaction settings and the threshold trigger (L1, L2).

The defaults are the production agent's: a reserve of 16384 tokens kept free for
the compaction call itself, and about 20000 tokens of the newest history kept
verbatim, because the current task usually depends on recent detail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import CompactionSettingsError

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000


def _is_number(value: Any) -> bool:
    """A finite int or float; a bool is not a number (as in R15)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class CompactionSettings:
    """``enabled``, ``reserve_tokens``, ``keep_recent_tokens`` (L1).

    Both token numbers must be positive: a reserve of 0 leaves no window space to
    produce the summary (the capstone's third pitfall), and a compaction always
    keeps at least the newest interaction group (``firstKeptEntryId``).
    """

    enabled: bool = True
    reserve_tokens: int | float = DEFAULT_RESERVE_TOKENS
    keep_recent_tokens: int | float = DEFAULT_KEEP_RECENT_TOKENS

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise CompactionSettingsError(f"enabled must be True or False, got {self.enabled!r}", field="enabled")
        if not _is_number(self.reserve_tokens) or self.reserve_tokens <= 0:
            raise CompactionSettingsError(
                f"reserve_tokens must be a finite number > 0, got {self.reserve_tokens!r}: compaction is "
                "itself a model call and needs window space for the summary it writes (L1)",
                field="reserve_tokens",
            )
        if not _is_number(self.keep_recent_tokens) or self.keep_recent_tokens <= 0:
            raise CompactionSettingsError(
                f"keep_recent_tokens must be a finite number > 0, got {self.keep_recent_tokens!r}: "
                "a compaction always keeps the newest interaction group verbatim (L1, L3)",
                field="keep_recent_tokens",
            )

    def check_summarizer(self, needed_tokens: int | float) -> None:
        """Refuse a reserve smaller than what the summarizer may write (L1)."""
        if self.reserve_tokens < needed_tokens:
            raise CompactionSettingsError(
                f"reserve_tokens={self.reserve_tokens} is less than the {needed_tokens} tokens the "
                "summarizer may need for its summary (L1)",
                field="reserve_tokens",
            )


def compaction_threshold(context_window: int | float, settings: CompactionSettings) -> int | float:
    """The largest context that does not trigger compaction: ``context_window - reserve_tokens`` (L2)."""
    if not isinstance(settings, CompactionSettings):
        raise CompactionSettingsError(f"settings must be CompactionSettings, got {type(settings).__name__}")
    if not _is_number(context_window) or context_window <= 0:
        raise CompactionSettingsError(
            f"context_window must be a finite number > 0, got {context_window!r} (L2)", field="context_window"
        )
    if context_window <= settings.reserve_tokens:
        raise CompactionSettingsError(
            f"a context window of {context_window} leaves nothing beyond reserve_tokens="
            f"{settings.reserve_tokens}; pick a smaller reserve for this model (L1, L2)",
            field="reserve_tokens",
        )
    return context_window - settings.reserve_tokens


def should_compact(context_tokens: int | float, context_window: int | float, settings: CompactionSettings) -> bool:
    """Compact when ``context_tokens > context_window - reserve_tokens`` and compaction is enabled (L2).

    The comparison is strict: a context exactly at the threshold still leaves the
    whole reserve free, so it does not compact.
    """
    threshold = compaction_threshold(context_window, settings)
    if not _is_number(context_tokens) or context_tokens < 0:
        raise CompactionSettingsError(
            f"context_tokens must be a finite number >= 0, got {context_tokens!r} (L2)", field="context_tokens"
        )
    return settings.enabled and context_tokens > threshold
