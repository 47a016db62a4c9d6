"""Benefit 2, prompt-cache stability: how much of each request repeats the previous one's prefix.

A provider's prompt cache pays off only for an identical *prefix*. With
append-only history each request is the previous one plus new messages, so the
shared prefix grows until a compaction replaces the head. A strategy that
rewrites history (here: re-summarising everything but the newest interaction
at every request) changes an early message whenever a new interaction starts,
and the prefix breaks right after the system prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..compaction import compaction_summary_text
from ..estimators import estimate_tokens_chars
from ..grouping import interaction_spans
from ..models import AgentMessage, SessionEntry, TextContent, UserMessage
from ..parsing import to_json_dict
from ..paths import walk_path
from ..system_prompt import current_system_message
from .replay import replay_all, response_entries
from .summarizer import OfflineSummarizer, Summarizer, SummaryRequest


@dataclass(frozen=True)
class PrefixRow:
    request: int
    messages: int
    shared_messages: int
    tokens: int | float
    shared_tokens: int | float


@dataclass(frozen=True)
class PrefixReuse:
    """Per-request shared prefixes of one strategy, and the totals a cache would see."""

    strategy: str
    rows: tuple[PrefixRow, ...]

    @property
    def message_ratio(self) -> float:
        """Shared-prefix messages / request messages, over every request after the first."""
        later = self.rows[1:]
        return sum(r.shared_messages for r in later) / max(1, sum(r.messages for r in later))

    @property
    def token_ratio(self) -> float:
        """Shared-prefix tokens / request tokens, over every request after the first."""
        later = self.rows[1:]
        return sum(r.shared_tokens for r in later) / max(1, sum(r.tokens for r in later))

    @property
    def prefix_breaks(self) -> int:
        """Requests whose prefix does not contain the whole previous request."""
        return sum(1 for before, row in zip(self.rows, self.rows[1:]) if row.shared_messages < before.messages)


def measure_prefix_reuse(
    strategy: str,
    requests: Sequence[Sequence[AgentMessage]],
    *,
    estimate_tokens: Callable[[Any], int | float] = estimate_tokens_chars,
) -> PrefixReuse:
    """For each request, the longest run of leading messages identical to the previous request's."""
    rows: list[PrefixRow] = []
    previous: list[Any] = []
    for index, messages in enumerate(requests, start=1):
        wire = to_json_dict(list(messages))
        costs = [estimate_tokens(message) for message in messages]
        shared = 0
        while shared < min(len(wire), len(previous)) and wire[shared] == previous[shared]:
            shared += 1
        rows.append(PrefixRow(index, len(wire), shared, sum(costs), sum(costs[:shared])))
        previous = wire
    return PrefixReuse(strategy, tuple(rows))


def append_only_requests(entries: Sequence[SessionEntry]) -> list[tuple[AgentMessage, ...]]:
    """What the append-only session sent, rebuilt from its log (benefit 1 shows they are equal)."""
    return [replayed.messages for replayed in replay_all(entries)]


def rewrite_history_requests(
    entries: Sequence[SessionEntry], summarizer: Summarizer | None = None
) -> list[list[AgentMessage]]:
    """What a rewrite-the-history strategy would send at the same requests.

    At every request it re-summarises all interactions but the newest and sends
    ``[system, fresh summary, newest interaction]``; the log's compactions play
    no part, since this strategy rewrites instead of appending.
    """
    summarizer = summarizer if summarizer is not None else OfflineSummarizer()
    entries = list(entries)
    requests: list[list[AgentMessage]] = []
    for response in response_entries(entries):
        path = walk_path(entries, response.parent_id) if response.parent_id is not None else []  # a root: nothing sent
        messages = [e for e in path if e.type == "message"]
        system = current_system_message(e.message for e in messages)
        groups = interaction_spans(messages)
        head: list[AgentMessage] = [system] if system else []
        older = [entry.message for group in groups[:-1] for entry in group]
        if older:
            summary = summarizer(SummaryRequest(tuple(older), None, "threshold"))
            text = compaction_summary_text(summary)
            head.append(UserMessage(content=(TextContent(text=text),), timestamp=older[0].timestamp))
        newest = [entry.message for entry in groups[-1]] if groups else []
        requests.append([*head, *newest])
    return requests
