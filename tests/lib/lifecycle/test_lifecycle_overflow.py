"""The overflow trigger: error/length *and* a context overflow, by error text or reported input tokens."""

from __future__ import annotations

import pytest

from course_lib.lifecycle import is_context_overflow
from course_lib.models import AssistantMessage, StopReason, Usage, UserMessage


def reply(stop: StopReason, error: str | None = None, input_tokens: int = 10) -> AssistantMessage:
    usage = Usage(input=input_tokens, output=0, total_tokens=input_tokens)
    return AssistantMessage(
        content=(), provider="p", model="m", usage=usage, stop_reason=stop, error_message=error, timestamp=1
    )


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (reply("error", "prompt is too long: 900 tokens > 800 maximum"), True),
        (reply("error", "Input exceeds the context window of this model"), True),
        (reply("length", "maximum context length is 800"), True),
        (reply("error", None, input_tokens=801), True),  # reported input above the window
        (reply("error", None, input_tokens=800), False),
        (reply("error", "rate limited"), False),
        (reply("stop", "prompt is too long"), False),  # only error/length stops count
        (reply("toolUse", None, input_tokens=5000), False),
        (reply("aborted", "prompt is too long"), False),
    ],
)
def test_overflow_detection(message: AssistantMessage, expected: bool) -> None:
    assert is_context_overflow(message, 800) is expected


def test_a_user_message_is_never_an_overflow() -> None:
    assert is_context_overflow(UserMessage(content=(), timestamp=1), 800) is False  # type: ignore[arg-type]  # a user message on purpose: never an overflow
