"""A scripted model and its tools: the simulation's stand-in for a provider.

It replies from a fixed script, counts every prompt with its own "provider"
tokenizer, and fails with a context-overflow error when the prompt does not fit
its window, reporting the input tokens it counted, like a real provider. It
records every message list it was sent, so the replay demonstration can compare
the log's reconstruction with what was actually sent.

The provider's count is deliberately not the runtime's estimate: each message
also costs a few tokens of chat framing that ``ceil(chars / 4)`` never sees.
That gap is why a runtime needs overflow recovery at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..estimators import estimate_tokens_chars
from ..models import AgentMessage, AssistantMessage, StopReason, TextContent, ToolCall, Usage
from ..parsing import to_json_dict
from .errors import ScriptExhaustedError

MESSAGE_FRAMING_TOKENS = 4


def provider_tokens(message: AgentMessage) -> int:
    """The scripted provider's count: the chars/4 heuristic plus per-message framing."""
    return estimate_tokens_chars(message) + MESSAGE_FRAMING_TOKENS


@dataclass(frozen=True)
class ScriptedCall:
    """A tool call the model will make, with the result the tool will give."""

    name: str
    arguments: Mapping[str, Any]
    result: str
    is_error: bool = False


@dataclass(frozen=True)
class Reply:
    """One successful model response: text, tool calls, or both."""

    text: str = ""
    calls: tuple[ScriptedCall, ...] = ()


@dataclass(frozen=True)
class Failure:
    """A scripted failed response (a provider error, or a forced overflow when the text says so)."""

    error_message: str
    stop_reason: Literal["error", "length"] = "error"


Step = Reply | Failure


@dataclass(frozen=True)
class SentRequest:
    """What the model received for one request, in wire format, and how it answered."""

    index: int
    messages: list[dict[str, Any]]
    prompt_tokens: int | float
    outcome: Literal["reply", "overflow", "failure"]


@dataclass(frozen=True)
class ToolOutcome:
    text: str
    is_error: bool = False


@dataclass
class ScriptedModel:
    """``model(messages) -> AssistantMessage`` from a script (any callable of that shape can replace it)."""

    script: Sequence[Step]
    context_window: int | float
    count_tokens: Callable[[AgentMessage], int | float] = provider_tokens
    always_overflow: bool = False
    requests: list[SentRequest] = field(default_factory=list)
    _position: int = 0
    _calls: dict[str, ScriptedCall] = field(default_factory=dict)

    def __call__(self, messages: Iterable[AgentMessage]) -> AssistantMessage:
        messages = list(messages)
        prompt = sum(self.count_tokens(message) for message in messages)
        if self.always_overflow or prompt > self.context_window:
            self._record(messages, prompt, "overflow")
            return _failed(f"prompt is too long: {prompt} tokens > {self.context_window} maximum", "error", prompt)
        if self._position >= len(self.script):
            raise ScriptExhaustedError(
                f"the script has only {len(self.script)} steps; request {len(self.requests) + 1} asked for more"
            )
        step = self.script[self._position]
        self._position += 1
        if isinstance(step, Failure):
            self._record(messages, prompt, "failure")
            return _failed(step.error_message, step.stop_reason, prompt)
        self._record(messages, prompt, "reply")
        return self._reply(step, prompt)

    def run_tool(self, call: ToolCall) -> ToolOutcome:
        """The scripted result of a call this model made."""
        scripted = self._calls[call.id]
        return ToolOutcome(scripted.result, scripted.is_error)

    @property
    def steps_left(self) -> int:
        return len(self.script) - self._position

    def _reply(self, step: Reply, prompt: int | float) -> AssistantMessage:
        calls = []
        for scripted in step.calls:
            call_id = f"call-{len(self._calls) + 1}"
            self._calls[call_id] = scripted
            calls.append(ToolCall(id=call_id, name=scripted.name, arguments=dict(scripted.arguments)))
        content = ((TextContent(text=step.text),) if step.text else ()) + tuple(calls)
        draft = _message(content, "toolUse" if calls else "stop", Usage(input=0, output=0, total_tokens=0))
        output = self.count_tokens(draft)
        return draft.model_copy(update={"usage": Usage(input=prompt, output=output, total_tokens=prompt + output)})

    def _record(self, messages: list[AgentMessage], prompt: int | float, outcome: Any) -> None:
        self.requests.append(SentRequest(len(self.requests) + 1, to_json_dict(messages), prompt, outcome))


def _message(
    content: tuple[Any, ...], stop_reason: StopReason, usage: Usage, error: str | None = None
) -> AssistantMessage:
    return AssistantMessage(
        content=content,
        provider="course",
        model="scripted",
        usage=usage,
        stop_reason=stop_reason,
        error_message=error,
        timestamp=0,
    )


def _failed(error: str, stop_reason: StopReason, prompt: int | float) -> AssistantMessage:
    """A failed response; the provider still reports the input tokens it counted."""
    return _message((), stop_reason, Usage(input=prompt, output=0, total_tokens=prompt), error)
