"""Benefit 1, replay and audit: rebuild exactly what the model saw at any past request, from the log alone.

Every response entry's ``parentId`` is the leaf the request was built from, and
the budget in force is a ``context_budget`` entry on that path. Because nothing
in the log is rewritten (L5), ``build_context`` over ``path_to(parentId)`` gives
the same messages today as on the day of the request — failed responses and
summarised history included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..models import AgentMessage, AssistantMessage, SessionEntry
from ..parsing import to_json_dict
from ..paths import walk_path
from .budget import budget_on_path
from .errors import ReplayError
from .scripted_model import SentRequest


@dataclass(frozen=True)
class ReplayedRequest:
    """A request rebuilt from the log: the response it produced and the messages it was sent."""

    response_entry_id: str
    messages: tuple[AgentMessage, ...]


def response_entries(entries: Sequence[SessionEntry]) -> list[SessionEntry]:
    """Assistant responses in log order: one per model request."""
    return [e for e in entries if e.type == "message" and isinstance(e.message, AssistantMessage)]


def replay_request(entries: Sequence[SessionEntry], response_entry_id: str) -> ReplayedRequest:
    """The messages the request that produced ``response_entry_id`` was sent."""
    entries = list(entries)
    response = next((e for e in entries if e.id == response_entry_id), None)
    if response is None or response.type != "message" or not isinstance(response.message, AssistantMessage):
        raise ReplayError(f"{response_entry_id!r} is not an assistant response in this log")
    if response.parent_id is None:
        raise ReplayError(f"{response_entry_id!r} is a root entry: no request led to it")
    path = walk_path(entries, response.parent_id)
    budget = budget_on_path(path)
    if budget is None:
        raise ReplayError(f"no context_budget entry before {response_entry_id!r}; the log cannot say how it was built")
    return ReplayedRequest(response_entry_id, budget.build(path).messages)


def replay_all(entries: Sequence[SessionEntry]) -> list[ReplayedRequest]:
    entries = list(entries)
    return [replay_request(entries, response.id) for response in response_entries(entries)]


@dataclass(frozen=True)
class ReplayCheck:
    request: int
    response_entry_id: str
    messages: int
    matches: bool


def compare_with_sent(entries: Sequence[SessionEntry], sent: Sequence[SentRequest]) -> list[ReplayCheck]:
    """Request by request: does the log's reconstruction equal what the model recorded?"""
    replayed = replay_all(entries)
    if len(replayed) != len(sent):
        raise ReplayError(f"the log holds {len(replayed)} responses but the model recorded {len(sent)} requests")
    return [
        ReplayCheck(
            request=request.index,
            response_entry_id=again.response_entry_id,
            messages=len(request.messages),
            matches=_wire(again.messages) == request.messages,
        )
        for again, request in zip(replayed, sent, strict=True)
    ]


def _wire(messages: Sequence[AgentMessage]) -> list[dict[str, Any]]:
    return to_json_dict(list(messages))
