"""Message entries that cannot be grouped (R11, R12), each as the chapter's example and as a change to any session.

Every entry says one way the tool facts of a group fail to pair up. Its
``shorthand`` is the worked example on the chapter's third group, which the
checklist (check 6) and Lab 11.2's table run, naming the ids in ``names``; its
``draw`` breaks a generated session's message entries the same way, which the
grader's hidden cases and the property tests run. Both forms sit side by side,
so a kind of breakage cannot be tried in one place and forgotten in another.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...models import MessageEntry
from ...tool_facts import answered_call_id, tool_call_ids
from ..wording import Wording, say
from .shorthand import shorthand_path

Wire = dict[str, Any]


@dataclass(frozen=True)
class Broken:
    """One way a group's tool facts fail to pair up, as the chapter's example and as a change to a generated session."""

    what: Wording
    """How the checklist names it (a ``say``, so its verdict can be translated)."""
    rule: str
    shorthand: str
    """The chapter's example of it; ``names``, the ids its error names."""
    names: tuple[str, ...]
    draw: Callable[[list[Wire], random.Random], tuple[str, ...]]
    """Breaks generated wire message entries in place (they hold a tool result); returns the ids the error must name."""

    def chapter_path(self) -> list[MessageEntry]:
        return shorthand_path(self.shorthand)

    @staticmethod
    def applies_to(entries: list[Wire]) -> bool:
        """``draw`` needs a tool round trip to break."""
        return any(answered_call_id(entry) for entry in entries)


def _role(entry: Wire) -> str:
    return str(entry["message"]["role"])


def _before_first_user(entries: list[Wire], rng: random.Random) -> tuple[str, ...]:
    stray = copy.deepcopy(next(e for e in entries if _role(e) == "assistant"))
    stray["id"] = f"early-{rng.randrange(1000)}"
    stray["message"] |= {
        "content": [{"type": "text", "text": "An early reply."}],
        "stopReason": "stop",
    }  # no tool facts to trip over
    start = 1 if _role(entries[0]) == "system" else 0
    entries.insert(start, stray)
    return (stray["id"],)


def _unknown_call(entries: list[Wire], rng: random.Random) -> tuple[str, ...]:
    result = rng.choice([e for e in entries if _role(e) == "toolResult"])
    result["message"]["toolCallId"] = f"ghost-{rng.randrange(1000)}"
    return (result["message"]["toolCallId"], result["id"])


def _declared_twice(entries: list[Wire], rng: random.Random) -> tuple[str, ...]:
    index = rng.choice([i for i, e in enumerate(entries) if tool_call_ids(e)])
    again = copy.deepcopy(entries[index])
    again["id"] = f"again-{rng.randrange(1000)}"
    entries.insert(index + 1, again)
    return (tool_call_ids(again)[0],)


def _answered_twice(entries: list[Wire], rng: random.Random) -> tuple[str, ...]:
    index = rng.choice([i for i, e in enumerate(entries) if _role(e) == "toolResult"])
    again = copy.deepcopy(entries[index])
    again["id"] = f"retry-{rng.randrange(1000)}"
    entries.insert(index + 1, again)
    return (again["message"]["toolCallId"],)


def _unanswered(entries: list[Wire], rng: random.Random) -> tuple[str, ...]:
    index = rng.choice([i for i, e in enumerate(entries) if _role(e) == "toolResult"])
    return (entries.pop(index)["message"]["toolCallId"],)


def _answered_in_next_group(entries: list[Wire], rng: random.Random) -> tuple[str, ...]:
    """A result moved after the next user message: its call is now in another group (R12)."""
    index = rng.choice([i for i, e in enumerate(entries) if _role(e) == "toolResult"])
    later = [i for i, e in enumerate(entries) if i > index and _role(e) == "user"]
    moved = entries.pop(index)
    if later:
        entries.insert(later[0], moved)  # the user message shifted left by one: insert after it
    return (moved["message"]["toolCallId"],)


BROKEN: tuple[Broken, ...] = (
    Broken(say("an assistant message before any user message"), "R11", "a0 u1 a1", ("a0",), _before_first_user),
    Broken(
        say("a result for an unknown call"),
        "R12",
        "u3 calls(read-1,test-1) r-test(unknown-1) r-read(read-1) a3",
        ("unknown-1", "r-test"),
        _unknown_call,
    ),
    Broken(
        say("a duplicate call id"),
        "R12",
        "u3 calls(read-1,test-1) again(read-1) r-test(test-1) r-read(read-1) a3",
        ("read-1",),
        _declared_twice,
    ),
    Broken(
        say("a duplicate result"),
        "R12",
        "u3 calls(read-1,test-1) r-test(test-1) r-again(test-1) r-read(read-1) a3",
        ("test-1",),
        _answered_twice,
    ),
    Broken(
        say("a call without a result"),
        "R12",
        "u3 calls(read-1,test-1) r-test(test-1) a3",
        ("calls", "read-1"),
        _unanswered,
    ),
    Broken(
        say("a result in the next group"),
        "R12",
        "u3 calls(read-1,test-1) r-test(test-1) a3 u4 r-read(read-1) a4",
        ("read-1",),
        _answered_in_next_group,
    ),
)
"""Every way the course breaks a group's tool facts; the error must name the ids (R11, R12)."""

BY_NAME: dict[str, Broken] = {broken.draw.__name__.lstrip("_"): broken for broken in BROKEN}
"""The entries by their change's name (``unknown_call``), as the hidden cases list the ones they draw."""


@dataclass(frozen=True)
class Groupable:
    """A path that does group, in the shorthand, with its groups and the rule that makes it legal."""

    shorthand: str
    groups: list[list[str]]
    rule: str
    why: Wording
    """The checklist's sentence for it (a ``say``, so its verdict can be translated)."""


GROUPABLE: tuple[Groupable, ...] = (
    Groupable(
        "u3 calls(read-1,test-1) r-test(test-1) r-read(read-1) a3",
        [["u3", "calls", "r-test", "r-read", "a3"]],
        "R12",
        say("results in the order the tools finished"),
    ),
    Groupable(
        "u3 r-test(test-1) calls(read-1,test-1) r-read(read-1) a3",
        [["u3", "r-test", "calls", "r-read", "a3"]],
        "R12",
        say("a result before its call (facts are paired by id, not position)"),
    ),
    Groupable(
        "u3 calls(read-1,test-1) r-test(test-1) progress patch r-read(read-1) a3",
        [["u3", "calls", "r-test", "progress", "r-read", "a3"]],
        "R12/R14",
        say("results out of order, a progress message and a system patch inside the group"),
    ),
    Groupable(
        "u1 a1 patch u2 a2",
        [["u1", "a1"], ["u2", "a2"]],
        "R14",
        say("a system patch between two groups (it joins neither)"),
    ),
)
"""Paths whose tool facts pair up although they look odd: the groups must come out as written (R12, R14)."""
