"""The budgeted projection: one bounded model input rebuilt from an intact history (R15–R23).

``build_context`` only reads. It replays the system prompt from the whole path,
puts the latest compaction summary (if any) right after it, and keeps the newest
whole interaction groups that fit what is left of the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, cast

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from .compaction import summary_message
from .errors import CompactionError, EstimateError, OptionError
from .grouping import interaction_spans
from .models import AgentMessage, CompactionEntry, MessageEntry, MetadataEntry, SessionEntry, SystemMessage, UserMessage
from .parsing import copy_model, fresh_copy, parse_session_entry
from .system_prompt import current_system_message

_FLOAT_RANGE = 2**1023
"""Up to here an int is a finite number as ``is_token_count`` sees it, checked in one comparison."""

Reason = Literal["within_budget", "trimmed", "single_group_overflow"]
Estimator = Callable[[Any], int | float]


class _Result(BaseModel):
    """Results are plain values for the caller: frozen, camelCase in ``to_json_dict``."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, validate_by_name=True, serialize_by_alias=True)


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
    budget = check_budget(max_tokens, reserved_output, safety_margin)
    return select_context(estimate_path(active_path, estimate_tokens), **budget)


@dataclass(frozen=True)
class EstimatedPath:
    """Everything about a path that its budget cannot change: the replayed head, the
    candidate groups and every estimate (R15, R16, R18). ``select_context`` chooses from it;
    the explorer keeps one per path and estimator, so a slider move only re-selects groups."""

    system: SystemMessage | None
    system_cost: int | float
    summary: UserMessage | None
    summary_cost: int | float
    groups: tuple[tuple[MessageEntry, ...], ...]
    group_costs: tuple[int | float, ...]


def estimate_path(active_path: Sequence[SessionEntry], estimate_tokens: Estimator) -> EstimatedPath:
    """Replay the system message, take the candidates and estimate each once (R15–R18).

    Every candidate is estimated, kept or not (R15), each on a copy.
    """
    path, messages, systems, compaction = _scan(active_path)
    system = current_system_message(systems)  # R16
    system_cost = _estimate(estimate_tokens, system, "the replayed system message") if system else 0
    if compaction is None:
        candidates = messages
        summary = None
        summary_cost: int | float = 0
    else:
        candidates = resume_candidates(path, compaction)
        summary = summary_message(compaction)
        summary_cost = _estimate(estimate_tokens, summary, f"the summary of {compaction.id!r}")
    groups = interaction_spans(candidates)
    costs = []
    for group in groups:
        group_cost: int | float = 0
        for entry in group:
            value = estimate_tokens(copy_model(entry.message))  # R15: a copy, never the session's object
            if type(value) is not int or not 0 <= value <= _FLOAT_RANGE:  # the common case first, the rest in full
                _check_estimate(value, f"entry {entry.id!r}")
            group_cost += value
        costs.append(group_cost)
    return EstimatedPath(system, system_cost, summary, summary_cost, tuple(groups), tuple(costs))


def select_context(
    estimated: EstimatedPath, *, max_tokens: int | float, reserved_output: int | float, safety_margin: int | float
) -> BuildContextResult:
    """The newest whole groups that fit what the budget leaves, and the result of R17–R22."""
    max_tokens, reserved_output, safety_margin = check_budget(max_tokens, reserved_output, safety_margin).values()
    system_cost, summary_cost, groups = estimated.system_cost, estimated.summary_cost, estimated.groups
    available = max(0, max_tokens - system_cost - reserved_output - safety_margin)  # R17
    head = [message for message in (estimated.system, estimated.summary) if message is not None]
    room = max(0, available - summary_cost)  # R17, R18: the summary may use up the allowance, never more
    kept, used, newest_cost = _newest_groups_that_fit(groups, estimated.group_costs, room)
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
        messages=tuple(fresh_copy(message) for message in (*head, *(entry.message for entry in kept_entries))),  # R21
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
    item: Any  # told apart by its exact type below, which mypy cannot follow through ``type(item) is``
    for item in active_path:
        # Exact types first: the course's own models, told apart without reading their fields
        # (each read is a cache miss on a long path) and without isinstance, which on a pydantic
        # class goes through ABCMeta. Anything else is parsed (R1) or read by its ``type``.
        kind = type(item)
        if kind is MessageEntry:
            entry: SessionEntry = item
            messages.append(item)
            if type(item.message) is SystemMessage:
                systems.append(item.message)
        elif kind is MetadataEntry:
            entry = item
        elif kind is CompactionEntry:
            entry = compaction = item
        else:
            entry = cast(SessionEntry, item) if isinstance(item, BaseModel) else parse_session_entry(item)
            if entry.type == "message":
                messages.append(entry)
                if entry.message.role == "system":
                    systems.append(entry.message)
            elif entry.type == "compaction":
                compaction = entry
        path.append(entry)
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
    start = _kept_start(path, first_kept, compaction.id)
    if start is None:
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not on the path before it (R18)",
            entry_id=first_kept,
        )
    first = path[start]
    if first.type != "message" or not isinstance(first.message, UserMessage):
        raise CompactionError(
            f"compaction {compaction.id!r} keeps from {first_kept!r}, which is not a user message (R18)",
            entry_id=first_kept,
        )
    return [entry for entry in path[start:] if entry.type == "message"]


def _kept_start(path: Sequence[SessionEntry], first_kept: str, compaction_id: str) -> int | None:
    """Where ``first_kept`` last appears, if that is before the compaction's last appearance;
    else ``None``. One walk from the end: the latest compaction and the entry it keeps from
    are near the end of a long path, so this reads only the tail."""
    compaction_seen = False
    for position in range(len(path) - 1, -1, -1):
        entry_id = path[position].id
        if entry_id == compaction_id:
            compaction_seen = True
        if entry_id == first_kept:
            return position if compaction_seen else None
    return None


def _newest_groups_that_fit(
    groups: Sequence[tuple[MessageEntry, ...]], costs: Sequence[int | float], room: int | float
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
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def check_budget(max_tokens: Any, reserved_output: Any, safety_margin: Any) -> dict[str, int | float]:
    """The three options by name, each a finite number >= 0 (R15); checked before anything is estimated."""
    return {
        "max_tokens": _budget_number("max_tokens", max_tokens),
        "reserved_output": _budget_number("reserved_output", reserved_output),
        "safety_margin": _budget_number("safety_margin", safety_margin),
    }


def _budget_number(name: str, value: Any) -> int | float:
    if not is_token_count(value):
        raise OptionError(f"{name} must be a finite number >= 0, got {value!r} (R15)")
    return value


def _estimate(estimate_tokens: Estimator, message: Any, label: str) -> int | float:
    """The estimator sees a copy, never the session's object, and must return a valid cost (R15)."""
    return _check_estimate(estimate_tokens(fresh_copy(message)), label)


def _check_estimate(value: Any, label: str) -> int | float:
    if not is_token_count(value):
        raise EstimateError(f"estimate_tokens returned {value!r} for {label}; expected a finite number >= 0 (R15)")
    return value
