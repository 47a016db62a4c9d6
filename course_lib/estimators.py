"""Token estimators: functions from one message to a cost (R15 checks what they return)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

from .models import AssistantMessage, SystemMessage, ToolCall, ToolResultMessage, UserMessage
from .system_prompt import system_message_text

Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage


def message_texts(message: Message) -> Iterator[str]:
    """Every piece of text a model would read in this message.

    A tool call counts as its name plus its JSON arguments (lifecycle.md).
    """
    if isinstance(message, SystemMessage):
        yield system_message_text(message)
        return
    for block in message.content:
        if isinstance(block, ToolCall):
            yield block.name
            yield json.dumps(block.arguments, ensure_ascii=False)
        else:
            yield block.text


def estimate_tokens_chars(message: Message) -> int:
    """The production heuristic: ``ceil(characters / 4)``."""
    return math.ceil(sum(len(text) for text in message_texts(message)) / 4)
