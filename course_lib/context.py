"""The budgeted projection: one bounded model input rebuilt from an intact history (R15–R23).

``build_context`` only reads. It replays the system prompt from the whole path,
puts the latest compaction summary (if any) right after it, and keeps the newest
whole interaction groups that fit what is left of the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from .compaction import summary_message
from .errors import CompactionError
from .grouping import interaction_spans
from .models import AgentMessage, CompactionEntry, MessageEntry, SessionEntry, SystemMessage, UserMessage
from .parsing import fresh_copy, parse_session_entry
from .system_prompt import current_system_message

Reason = Literal["within_budget", "trimmed", "single_group_overflow"]
Estimator = Callable[[Any], int | float]


class _Result(BaseModel):
    """Results are plain values for the caller: frozen, camelCase in ``to_json_dict``."""

    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, validate_by_name=True, serialize_by_alias=True
    )


class TokenProjection(_Result):
    """R22: ``total = system + messages + reserved_output + safety_margin``."""

    max_tokens: int | float
    system: int | float
    messages: int | float
    reserved_output: int | float
    safety_margin: int | float
    available_for_messages: int | float
    total: int | float


class BuildContextResult(_Result):
    messages: tuple[AgentMessage, ...]
    kept_entry_ids: tuple[str, ...]
    reason: Reason
    tokens: TokenProjection


def build_context(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: int | float,
    reserved_output: int | float,
    safety_margin: int | float,
    estimate_tokens: Estimator,
) -> BuildContextResult:
    """Project the active path onto a token budget (R15–R23)."""
    max_tokens = _budget_number("max_tokens", max_tokens)
    reserved_output = _budget_number("reserved_output", reserved_output)
    safety_margin = _budget_number("safety_margin", safety_margin)
    path, messages, systems, compaction = _scan(active_path)

    def cost(message: Any, label: str) -> int | float:
        return _estimate(estimate_tokens, message, label)

    system = current_system_message(systems)  # R16
    system_cost = cost(system, "the replayed system message") if system else 0
    available = max(0, max_tokens - system_cost - reserved_output - safety_margin)  # R17

    head: list[Any] = [system] if system else []
    if compaction is None:
        candidates = messages
        summary_cost: int | float = 0
    else:
        candidates = resume_candidates(path, compaction)
        summary = summary_message(compaction)
        summary_cost = cost(summary, f"the summary of {compaction.id!r}")
        head.append(summary)

    groups = interaction_spans(candidates)
    costs = [sum(cost(entry.message, f"entry {entry.id!r}") for entry in group) for group in groups]  # R15: every candidate
    room = max(0, available - summary_cost)  # R17, R18: the summary may use up the allowance, never more
    kept, used, newest_cost = _newest_groups_that_fit(groups, costs, room)
    if len(kept) == len(groups):
        reason: Reason = "within_budget"
    elif kept:
        reason = "trimmed"
    else:
        reason = "single_group_overflow"  # R20: returned whole, total may exceed max_tokens
        kept, used = [groups[-1]], newest_cost

    kept_entries = [entry for group in reversed(kept) for entry in group]
    messages_cost = summary_cost + used
    return BuildContextResult(
        messages=(*head, *(fresh_copy(entry.message) for entry in kept_entries)),  # R21
        kept_entry_ids=tuple(entry.id for entry in kept_entries),
        reason=reason,
        tokens=TokenProjection(
            max_tokens=max_tokens,
            system=system_cost,
            messages=messages_cost,
            reserved_output=reserved_output,
            safety_margin=safety_margin,
            available_for_messages=available,
            total=system_cost + messages_cost + reserved_output + safety_margin,
        ),
    )


class _Scan(NamedTuple):
    path: list[SessionEntry]
    messages: list[MessageEntry]
    systems: list[SystemMessage]
    compaction: CompactionEntry | None


def _scan(active_path: Iterable[SessionEntry | Mapping[str, Any]]) -> _Scan:
    """What the projection needs from the whole path, gathered in one walk.

    The parsed path, its message entries, the system messages to replay (R16)
    and the latest compaction (R18, as ``latest_compaction`` finds it). On a
    long history every walk over the entries is a trip through main memory
    (100k entries do not fit in the CPU cache), so one walk instead of four
    keeps ``build_context`` growing in step with the history (``make bench``).
    """
    path: list[SessionEntry] = []
    messages: list[MessageEntry] = []
    systems: list[SystemMessage] = []
    compaction: CompactionEntry | None = None
    for item in active_path:
        entry = item if isinstance(item, BaseModel) else parse_session_entry(item)
        path.append(entry)
        if entry.type == "message":
            messages.append(entry)
            if isinstance(entry.message, SystemMessage):
                systems.append(entry.message)
        elif entry.type == "compaction":
            compaction = entry
    return _Scan(path, messages, systems, compaction)


def latest_compaction(path: Sequence[SessionEntry]) -> CompactionEntry | None:
    """Only the newest compaction on the path is read (R18)."""
    for entry in reversed(path):
        if entry.type == "compaction":
            return entry
    return None


def resume_candidates(path: Sequence[SessionEntry], compaction: CompactionEntry) -> list[MessageEntry]:
    """Message entries from ``firstKeptEntryId`` onward (R18).

    The first kept entry must come before the compaction and be a user message;
    metadata and compaction entries are skipped, and system messages are left to
    the replayed head (``interaction_spans`` skips them).
    """
    first_kept = compaction.first_kept_entry_id
    index = {entry.id: position for position, entry in enumerate(path)}
    start = index.get(first_kept)
    if start is None or start > index[compaction.id]:
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not on the path before it",
            entry_id=first_kept,
        )
    first = path[start]
    if first.type != "message" or not isinstance(first.message, UserMessage):
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not a user message",
            entry_id=first_kept,
        )
    return [entry for entry in path[start:] if entry.type == "message"]


def _newest_groups_that_fit(
    groups: list[tuple[MessageEntry, ...]], costs: list[int | float], room: int | float
) -> tuple[list[tuple[MessageEntry, ...]], int | float, int | float]:
    """Newest first, stopping at the first group that does not fit (R19).

    Returns the kept groups (newest first), their cost, and the newest group's cost.
    """
    kept: list[tuple[MessageEntry, ...]] = []
    used: int | float = 0
    for group, group_cost in zip(reversed(groups), reversed(costs)):
        if used + group_cost > room:
            break
        kept.append(group)
        used += group_cost
    return kept, used, costs[-1] if costs else 0


def is_token_count(value: Any) -> bool:
    """R15: a finite number >= 0; a bool is not a number."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def _budget_number(name: str, value: Any) -> int | float:
    if not is_token_count(value):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r} (R15)")
    return value


def _estimate(estimate_tokens: Estimator, message: Any, label: str) -> int | float:
    """The estimator sees a copy, never the session's object, and must return a valid cost (R15)."""
    value = estimate_tokens(fresh_copy(message))
    if not is_token_count(value):
        raise ValueError(f"estimate_tokens returned {value!r} for {label}; expected a finite number >= 0 (R15)")
    return value

