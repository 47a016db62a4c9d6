"""Where a compaction cuts: keep about ``keep_recent_tokens`` of whole interaction groups (L3).

The walk goes newest → oldest, adding whole groups until the kept part reaches
the target. The first kept entry is then the user message that opens the oldest
group needed, so a tool round trip is never split (chapter 11's rule, stricter
than upstream, which may cut inside a turn). If even the oldest candidate group
is needed, there is nothing to compact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..context import is_token_count, latest_compaction, resume_candidates
from ..errors import CompactionError, EstimateError
from ..grouping import interaction_spans
from ..models import AgentMessage, MessageEntry, SessionEntry
from ..parsing import fresh_copy
from .errors import CompactionSettingsError

Estimator = Callable[[Any], int | float]


def context_groups(active_path: Sequence[SessionEntry]) -> list[tuple[MessageEntry, ...]]:
    """The interaction groups the current context is built from.

    After a compaction these start at its ``firstKeptEntryId`` (the candidates of
    ``build_context``, R18); older groups are already inside its summary.
    """
    path = list(active_path)
    compaction = latest_compaction(path)
    if compaction is None:
        candidates = [entry for entry in path if entry.type == "message"]
    else:
        candidates = resume_candidates(path, compaction)
    return interaction_spans(candidates)


def find_cut_point(
    active_path: Sequence[SessionEntry],
    *,
    keep_recent_tokens: int | float,
    estimate_tokens: Estimator,
) -> str | None:
    """The id of the first kept entry, or ``None`` when everything fits (L3)."""
    if not is_token_count(keep_recent_tokens) or keep_recent_tokens <= 0:
        raise CompactionSettingsError(
            f"keep_recent_tokens must be a finite number > 0, got {keep_recent_tokens!r} (L3)",
            field="keep_recent_tokens",
        )
    groups = context_groups(active_path)
    kept: int | float = 0
    for index in range(len(groups) - 1, -1, -1):
        kept += group_cost(groups[index], estimate_tokens)
        if kept >= keep_recent_tokens:
            return None if index == 0 else groups[index][0].id
    return None


def group_cost(group: Sequence[MessageEntry], estimate_tokens: Estimator) -> int | float:
    """A group's estimated cost; the estimator sees copies and must return a token count (R15)."""
    total: int | float = 0
    for entry in group:
        value = estimate_tokens(fresh_copy(entry.message))
        if not is_token_count(value):
            raise EstimateError(
                f"estimate_tokens returned {value!r} for entry {entry.id!r}; expected a finite number >= 0"
            )
        total += value
    return total


def messages_to_summarize(active_path: Sequence[SessionEntry], first_kept_entry_id: str) -> list[AgentMessage]:
    """The messages a compaction at ``first_kept_entry_id`` removes from the context (copies).

    These are the context's groups older than the cut; the previous summary (if
    any) is passed to the summarizer separately.
    """
    messages: list[AgentMessage] = []
    for group in context_groups(active_path):
        if group[0].id == first_kept_entry_id:
            return messages
        messages.extend(fresh_copy(entry.message) for entry in group)
    raise CompactionError(
        f"{first_kept_entry_id!r} does not open one of the context's interaction groups (L3)",
        entry_id=first_kept_entry_id,
    )
