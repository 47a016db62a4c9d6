"""A simulated agent session that runs the six-step compaction sequence of the capstone.

1. a run ends → the post-run hook checks for compaction (between runs, never mid-stream);
2. ``compaction_start {reason}`` is emitted;
3. the summarizer writes the 7-field summary;
4. the compaction entry is **appended** through the one append path every entry uses (L5);
5. the context is rebuilt for accounting: ``compaction_end`` reports ``tokens_after``;
6. the agent continues; after an overflow the failed response stays in the log but
   not in the retry context, and ``will_retry`` is true.

The model, the tools and the summarizer are plain callables, so the scripted ones
can be swapped for real clients. Entry ids and timestamps come from counters,
never from the clock, so a run is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..compaction import create_compaction_entry
from ..context import latest_compaction
from ..models import (
    AgentMessage,
    AssistantMessage,
    CompactionEntry,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ..paths import walk_path
from .budget import BUDGET_KEY, RequestBudget, budget_on_path
from .cut_point import context_groups, find_cut_point, messages_to_summarize
from .errors import CompactionSettingsError, OverflowRecoveryError
from .events import AgentEvent, EventLog, Listener
from .overflow import is_context_overflow
from .scripted_model import ToolOutcome
from .settings import CompactionSettings, compaction_threshold, should_compact
from .summarizer import CompactionReason, OfflineSummarizer, Summarizer, SummaryRequest, summarizer_reserve

DEFAULT_MAX_OVERFLOW_ATTEMPTS = 3
"""The production embedding the capstone describes allows 3 compact-and-retry attempts (upstream: 1)."""


class Store(Protocol):
    """The single append path (L5): every entry, compactions included, goes through ``append``."""

    def append(self, entry: Any) -> SessionEntry: ...

    def entries(self) -> Sequence[SessionEntry]: ...


Model = Callable[[Sequence[AgentMessage]], AssistantMessage]
Tools = Callable[[ToolCall], ToolOutcome]


@dataclass(frozen=True)
class TurnResult:
    """How one ``prompt`` ended: its final answer, the compactions it caused, its overflow attempts."""

    turn: int
    answer_entry_id: str
    answer: AssistantMessage
    compaction_ids: tuple[str, ...]
    overflow_attempts: int


@dataclass(frozen=True)
class _AfterRun:
    compaction_id: str | None = None
    retry: bool = False


class AgentSession:
    """Prompts go in, events come out, and the store only ever grows."""

    def __init__(
        self,
        *,
        store: Store,
        model: Model,
        tools: Tools,
        budget: RequestBudget,
        settings: CompactionSettings | None = None,
        summarizer: Summarizer | None = None,
        system_prompt: str | None = None,
        max_overflow_attempts: int = DEFAULT_MAX_OVERFLOW_ATTEMPTS,
        listeners: Iterable[Listener] = (),
        should_compact: Callable[..., bool] = should_compact,
        find_cut_point: Callable[..., str | None] = find_cut_point,
    ) -> None:
        """``should_compact`` and ``find_cut_point`` may be a learner's own (the capstone's exercises)."""
        self.settings = settings if settings is not None else CompactionSettings()
        self.summarizer = summarizer if summarizer is not None else OfflineSummarizer()
        self.settings.check_summarizer(summarizer_reserve(self.summarizer))  # L1
        compaction_threshold(budget.context_window, self.settings)  # L1/L2: the window must exceed the reserve
        cap = max_overflow_attempts
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
            raise CompactionSettingsError(
                f"max_overflow_attempts must be an int >= 0, got {max_overflow_attempts!r} (L4)",
                field="max_overflow_attempts",
            )
        self.store = store
        self.model = model
        self.tools = tools
        self.budget = budget
        self.max_overflow_attempts = max_overflow_attempts
        self.should_compact = should_compact
        self.find_cut_point = find_cut_point
        self.log = EventLog(listeners)
        existing = store.entries()
        self._entries: list[SessionEntry] = list(existing)  # what this writer appended, read without copies
        self._ids = {entry.id for entry in existing}
        self._clock = max((entry.timestamp for entry in existing), default=0)
        self.leaf_id: str | None = existing[-1].id if existing else None
        self.turn = sum(1 for e in existing if e.type == "message" and isinstance(e.message, UserMessage))
        self._compactions = sum(1 for e in existing if e.type == "compaction")
        self._step = 0
        path = self.active_path()
        if budget_on_path(path) != budget:
            budget_entry = MetadataEntry(
                id=self._new_id("budget"),
                parent_id=self.leaf_id,
                timestamp=self._tick(),
                key=BUDGET_KEY,
                value=budget.to_value(),
            )
            self._append(budget_entry)  # the log must say how every request is built (benefit 1)
        has_system = any(e.type == "message" and e.message.role == "system" for e in path)
        if system_prompt is not None and not has_system:
            self._append_message("sys", SystemMessage(content=system_prompt, timestamp=0))

    @property
    def events(self) -> list[AgentEvent]:
        return self.log.events

    def active_path(self) -> list[SessionEntry]:
        return [] if self.leaf_id is None else walk_path(self._entries, self.leaf_id)

    # --- one user turn ------------------------------------------------------------------

    def prompt(self, text: str) -> TurnResult:
        """Run one user turn to its end, including any compaction and overflow retries."""
        self.turn += 1
        self._step = 0
        self._emit("agent_start")
        self._append_message(f"u{self.turn}", UserMessage(content=(TextContent(text=text),), timestamp=0))
        attempts = 0
        compactions: list[str] = []
        while True:
            last = self._run()
            assert isinstance(last.message, AssistantMessage), "a run ends on the model's response"
            self._emit("agent_end", entry_id=last.id)
            after = self._after_run(last, attempts)  # step 1: the post-run hook
            if after.compaction_id:
                compactions.append(after.compaction_id)
            if not after.retry:
                return TurnResult(self.turn, last.id, last.message, tuple(compactions), attempts)
            attempts += 1
            self._emit("agent_start", detail="continue() after overflow compaction")  # step 6

    def _run(self) -> MessageEntry:
        """Request → response → tools until the model stops asking for tools."""
        while True:
            self._step += 1
            step = self._step
            context = self.budget.build(self.active_path())
            if context.reason != "within_budget":  # L4: surfaced, not hidden
                self._emit(
                    "context_warning",
                    reason=context.reason,
                    context_tokens=context.tokens.total,
                    entry_id=context.kept_entry_ids[0] if context.kept_entry_ids else None,
                )
            reply = self.model(context.messages)
            entry = self._append_message(f"a{self.turn}.{step}", reply)
            calls = [block for block in reply.content if isinstance(block, ToolCall)]
            if reply.stop_reason != "toolUse" or not calls:
                return entry
            for index, call in enumerate(calls, start=1):
                outcome = self.tools(call)
                result = ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=(TextContent(text=outcome.text),),
                    is_error=outcome.is_error,
                    timestamp=0,
                )
                self._append_message(f"r{self.turn}.{step}.{index}", result)

    # --- the post-run hook --------------------------------------------------------------

    def _after_run(self, last: MessageEntry, attempts: int) -> _AfterRun:
        message = last.message
        assert isinstance(message, AssistantMessage), "a run ends on the model's response"
        window = self.budget.context_window
        if is_context_overflow(message, window):
            return self._recover_overflow(last, attempts)
        if message.stop_reason in ("error", "length", "aborted"):
            return _AfterRun()  # a failed run that compaction cannot cure
        context_tokens = message.usage.total_tokens
        if not self.should_compact(context_tokens, window, self.settings):  # L2
            return _AfterRun()
        path = self.active_path()
        cut = self.find_cut_point(
            path, keep_recent_tokens=self.settings.keep_recent_tokens, estimate_tokens=self.budget.estimate_tokens
        )
        if cut is None:
            self._emit(
                "compaction_skipped",
                reason="threshold",
                context_tokens=context_tokens,
                detail="the newest groups already fit keep_recent_tokens: nothing to compact",
            )
            return _AfterRun()
        self._emit("compaction_start", reason="threshold", context_tokens=context_tokens)  # step 2
        entry, tokens_after = self._compact(path, cut, "threshold", tokens_before=context_tokens)
        self._emit(
            "compaction_end",
            reason="threshold",
            entry_id=entry.id,
            tokens_before=context_tokens,
            tokens_after=tokens_after,
            first_kept_entry_id=cut,
            will_retry=False,
        )  # step 5
        return _AfterRun(compaction_id=entry.id)

    def _recover_overflow(self, failed: MessageEntry, attempts: int) -> _AfterRun:
        """Compact and retry, at most ``max_overflow_attempts`` times (L4).

        The compaction's parent is the entry *before* the failed response, so the
        failure stays in the log on a side branch but is not in the retry context.
        Each further attempt halves the keep target: keeping as much as last time
        cannot cure the overflow that just happened with it.
        """
        assert isinstance(failed.message, AssistantMessage) and failed.parent_id is not None, "a response to a request"
        reported = failed.message.usage.input
        if not self.settings.enabled or attempts >= self.max_overflow_attempts:
            why = (
                "compaction is disabled"
                if not self.settings.enabled
                else (f"the cap of {self.max_overflow_attempts} compact-and-retry attempts is spent")
            )
            return self._give_up(
                attempts,
                failed.id,
                f"context overflow in {failed.id!r} and {why}; the turn fails instead of compacting again (L4)",
            )
        attempt = attempts + 1
        path = walk_path(self._entries, failed.parent_id)
        keep = self.settings.keep_recent_tokens / 2 ** (attempt - 1)
        self._emit(
            "compaction_start",
            reason="overflow",
            attempt=attempt,
            context_tokens=reported,
            detail=f"keep about {keep:g} tokens",
        )
        cut = self.find_cut_point(path, keep_recent_tokens=keep, estimate_tokens=self.budget.estimate_tokens)
        if cut is None:
            newest = context_groups(path)[-1][0].id
            return self._give_up(
                attempt,
                newest,
                f"context overflow in {failed.id!r}: nothing left to compact; "
                f"the newest interaction group (from {newest!r}) alone does not fit the window "
                "(single_group_overflow)",
            )
        entry, tokens_after = self._compact(path, cut, "overflow", tokens_before=reported)
        self._emit(
            "compaction_end",
            reason="overflow",
            attempt=attempt,
            entry_id=entry.id,
            tokens_before=reported,
            tokens_after=tokens_after,
            first_kept_entry_id=cut,
            will_retry=True,
        )
        return _AfterRun(compaction_id=entry.id, retry=True)

    def _give_up(self, attempts: int, entry_id: str, message: str) -> _AfterRun:
        self._emit("overflow_recovery_failed", attempt=attempts, entry_id=entry_id, detail=message)
        raise OverflowRecoveryError(message, attempts=attempts, entry_id=entry_id)

    def _compact(
        self, path: list[SessionEntry], cut: str, reason: CompactionReason, *, tokens_before: int | float
    ) -> tuple[CompactionEntry, int | float]:
        """Steps 3–5: summarise what leaves the context, append the record, re-measure."""
        previous = latest_compaction(path)
        leaving = tuple(messages_to_summarize(path, cut))
        request = SummaryRequest(leaving, previous.summary if previous else None, reason)
        self._compactions += 1
        entry = create_compaction_entry(
            path,
            id=self._new_id(f"c{self._compactions}"),
            timestamp=self._tick(),
            summary=self.summarizer(request),
            first_kept_entry_id=cut,
            tokens_before=tokens_before,
        )
        stored = self._append(entry)  # step 4: the same append path as every other entry (L5)
        rebuilt = self.budget.build([*path, stored])
        return stored, rebuilt.tokens.system + rebuilt.tokens.messages

    # --- the single append path -----------------------------------------------------------

    def _append_message(self, id: str, message: AgentMessage) -> MessageEntry:
        stamped = message.model_copy(update={"timestamp": self._tick()})
        entry = MessageEntry(id=self._new_id(id), parent_id=self.leaf_id, timestamp=stamped.timestamp, message=stamped)
        return self._append(entry)

    def _append(self, entry: SessionEntry) -> Any:
        stored = self.store.append(entry)
        self._entries.append(stored)
        self._ids.add(stored.id)
        self.leaf_id = stored.id
        if stored.type == "message" and stored.message.role != "system":
            message = stored.message
            tokens = message.usage.input if isinstance(message, AssistantMessage) else None
            self._emit(
                "message_end",
                entry_id=stored.id,
                role=message.role,
                stop_reason=getattr(message, "stop_reason", None),
                context_tokens=tokens,
            )
        return stored

    def _emit(self, type: Any, **data: Any) -> None:
        self.log.emit(type, turn=self.turn, **data)

    def _new_id(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self._ids:
            n += 1
            candidate = f"{base}~{n}"
        return candidate

    def _tick(self) -> int | float:
        self._clock += 1
        return self._clock
