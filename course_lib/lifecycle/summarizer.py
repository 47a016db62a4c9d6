"""Step 3 of the sequence: turning the messages that leave the context into the 7-field summary.

In production this is a model call. The course ships a deterministic offline
summarizer so a simulation runs without a network and gives the same summary
every time; any callable with the ``Summarizer`` shape, such as a wrapper around
a real model client, can replace it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..compaction import compaction_summary_text
from ..estimators import estimate_tokens_chars
from ..models import (
    AgentMessage,
    AssistantMessage,
    CompactionSummary,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from .errors import CompactionSettingsError

CompactionReason = Literal["threshold", "overflow"]

WRITE_TOOLS = frozenset({"edit", "write", "create", "apply_patch"})
"""Tools whose ``path`` argument names a file the session changed."""

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CONSTRAINT = re.compile(r"\b(must|never|always|do not|don't|only)\b", re.IGNORECASE)
_DECISION = re.compile(r"^(decision|decided)\b:?\s*", re.IGNORECASE)
_NEXT = re.compile(r"^next\b:?\s*", re.IGNORECASE)
_GOAL = re.compile(r"^goal\b:?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class SummaryRequest:
    """What a summarizer is given: the messages leaving the context and the summary they extend."""

    messages: tuple[AgentMessage, ...]
    previous: CompactionSummary | None
    reason: CompactionReason


class Summarizer(Protocol):
    """Anything that maps a ``SummaryRequest`` to the seven fields (a model or a mapping in wire format).

    A summarizer may declare ``min_reserve_tokens``: the window space its own
    output needs, which ``reserve_tokens`` must cover (L1).
    """

    def __call__(self, request: SummaryRequest, /) -> CompactionSummary | Mapping[str, Any]: ...


def summarizer_reserve(summarizer: Callable[..., Any]) -> int | float:
    """The reserve a summarizer asks for; 1 token when it does not say."""
    return getattr(summarizer, "min_reserve_tokens", 1)


class OfflineSummarizer:
    """Deterministic summaries read off the transcript.

    - goal: the previous summary's goal, else the first user message;
    - constraints: user sentences with must / never / always / do not / only;
    - completed: the final answer of each interaction whose tool calls all ended in
      success (a failed test is unresolved work, not completed work);
    - decisions: assistant sentences starting "Decision:";
    - changed files: the ``path`` argument of write-like tool calls;
    - unresolved: failed tool results not later followed by a success of the same tool;
    - next: the newest assistant sentence starting "Next:".

    Every item is made of whole sentences, because the model reads the summary in
    place of the transcript and a cut sentence ("do not cop…") can turn a constraint
    into its opposite. An item longer than ``max_item_chars`` keeps only its leading
    sentences that fit, and always its first sentence whole; the summary's size is
    bounded by ``max_summary_tokens``, which drops whole items (oldest first).
    Earlier summaries are carried forward, newest items last, so a long session
    never grows an unbounded summary.
    """

    def __init__(
        self,
        *,
        max_summary_tokens: int = 96,
        max_item_chars: int = 48,
        estimate_tokens: Callable[[Any], int | float] = estimate_tokens_chars,
    ) -> None:
        self.max_summary_tokens = max_summary_tokens
        self.max_item_chars = max_item_chars
        self.estimate_tokens = estimate_tokens
        goal = "x" * max(max_item_chars, len(_NO_GOAL))
        smallest = self._cost(CompactionSummary(goal=goal, **dict.fromkeys(_LISTS, ())))
        if max_summary_tokens < smallest:
            raise CompactionSettingsError(
                f"max_summary_tokens={max_summary_tokens} cannot hold even an empty summary ({smallest} tokens)",
                field="max_summary_tokens",
            )

    @property
    def min_reserve_tokens(self) -> int:
        return self.max_summary_tokens

    def __call__(self, request: SummaryRequest) -> CompactionSummary:
        previous = request.previous
        messages = list(request.messages)
        goal = self._clip(previous.goal) if previous else self._first_user_text(messages)
        fields = {
            "constraints": self._constraints(messages),
            "completed": self._completed(messages),
            "decisions": self._assistant_sentences(messages, _DECISION),
            "changed_files": self._changed_files(messages),
            "unresolved": self._unresolved(messages),
        }
        merged = {
            name: _unique([*(getattr(previous, name) if previous else ()), *items]) for name, items in fields.items()
        }
        newest_next = self._assistant_sentences(messages, _NEXT)[-1:]
        merged["next"] = newest_next or list(previous.next if previous else ())
        return self._fit(goal, merged)

    # --- reading the transcript ---------------------------------------------------

    def _clip(self, text: str) -> str:
        """The leading whole sentences of ``text`` that fit in ``max_item_chars``; at least the first."""
        sentences = _sentences(" ".join(text.split()))
        kept = sentences[0]
        for sentence in sentences[1:]:
            if len(kept) + 1 + len(sentence) > self.max_item_chars:
                break
            kept += " " + sentence
        return kept

    def _first_user_text(self, messages: Sequence[AgentMessage]) -> str:
        """The first user message's first sentence, without a leading "Goal:"."""
        for message in messages:
            if isinstance(message, UserMessage) and _text(message).strip():
                return self._clip(_GOAL.sub("", _sentences(_text(message))[0], count=1))
        return _NO_GOAL

    def _constraints(self, messages: Sequence[AgentMessage]) -> list[str]:
        return [
            self._clip(sentence)
            for message in messages
            if isinstance(message, UserMessage)
            for sentence in _sentences(_text(message))
            if _CONSTRAINT.search(sentence)
        ]

    def _completed(self, messages: Sequence[AgentMessage]) -> list[str]:
        """Final answers of interactions that left no tool failure open, without their Decision:/Next:
        sentences (those have fields of their own).

        An answer such as "One test fails." closes its interaction but reports
        unfinished work: the failure is listed under *Unresolved* instead.
        """
        done = []
        interaction: list[AgentMessage] = []
        for message in messages:
            if isinstance(message, UserMessage):
                interaction = []
            interaction.append(message)
            if isinstance(message, AssistantMessage) and message.stop_reason == "stop":
                if self._unresolved(interaction):
                    continue
                plain = [s for s in _sentences(_text(message)) if s and not (_DECISION.match(s) or _NEXT.match(s))]
                if plain:
                    done.append(self._clip(" ".join(plain)))
        return done

    def _assistant_sentences(self, messages: Sequence[AgentMessage], marker: re.Pattern[str]) -> list[str]:
        return [
            self._clip(marker.sub("", sentence, count=1))
            for message in messages
            if isinstance(message, AssistantMessage)
            for sentence in _sentences(_text(message))
            if marker.match(sentence)
        ]

    def _changed_files(self, messages: Sequence[AgentMessage]) -> list[str]:
        return [
            self._clip(str(block.arguments["path"]))
            for message in messages
            if isinstance(message, AssistantMessage)
            for block in message.content
            if isinstance(block, ToolCall) and block.name in WRITE_TOOLS and "path" in block.arguments
        ]

    def _unresolved(self, messages: Sequence[AgentMessage]) -> list[str]:
        """Failed tool results not followed by a success of the same tool, oldest first."""
        open_failures: dict[str, str] = {}
        for message in messages:
            if isinstance(message, ToolResultMessage):
                if message.is_error:
                    open_failures[message.tool_name] = self._clip(f"{message.tool_name}: {_text(message)}")
                else:
                    open_failures.pop(message.tool_name, None)
        return list(open_failures.values())

    # --- staying within the summary budget -------------------------------------------

    def _fit(self, goal: str, lists: dict[str, list[str]]) -> CompactionSummary:
        """Drop the oldest item of the longest list until the summary fits its budget.

        Ties go to the most expendable list: a finished step matters less than a
        constraint the rest of the task must still respect. A goal sentence too long
        for the budget on its own is replaced by a generic one rather than cut.
        """
        while True:
            summary = CompactionSummary(goal=goal, **{name: tuple(lists[name]) for name in _LISTS})
            if self._cost(summary) <= self.max_summary_tokens:
                return summary
            longest = max(_EXPENDABLE, key=lambda name: (len(lists[name]), -_EXPENDABLE.index(name)))
            if not lists[longest]:
                if goal == _NO_GOAL:
                    return summary  # cannot happen: the constructor checked this summary fits
                goal = _NO_GOAL
                continue
            lists[longest].pop(0)

    def _cost(self, summary: CompactionSummary) -> int | float:
        text = compaction_summary_text(summary)
        return self.estimate_tokens(UserMessage(content=(TextContent(text=text),), timestamp=0))


_NO_GOAL = "Continue the session's task."
_LISTS = ("constraints", "completed", "decisions", "changed_files", "unresolved", "next")
_EXPENDABLE = ("completed", "changed_files", "decisions", "next", "unresolved", "constraints")


def _text(message: AgentMessage) -> str:
    return " ".join(block.text for block in getattr(message, "content", ()) if isinstance(block, TextContent))


def _sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE.split(text.strip()) if part] or [""]


def _unique(items: Iterable[str]) -> list[str]:
    """Keep the newest copy of a repeated item, in order."""
    items = list(items)
    return [item for index, item in enumerate(items) if item not in items[index + 1 :]]
