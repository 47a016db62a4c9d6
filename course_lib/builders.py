"""A small builder for readable session paths in fixtures, tests, notebooks and simulations.

Each call appends one entry whose parent is the previous entry, with timestamps
counting up from 1, so a path reads like the chapter's tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .models import (
    AssistantMessage,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    StopReason,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

ToolCallSpec = tuple[str, str, Mapping[str, Any]]
"""``(call id, tool name, arguments)``"""


class PathBuilder:
    """Builds a linear path: ``PathBuilder().user("u1", "Hi").assistant("a1", "Hello").entries``."""

    def __init__(self, entries: Iterable[SessionEntry] = (), *, clock: int | float = 0) -> None:
        self.entries: list[SessionEntry] = list(entries)
        self.clock = max([clock, *(entry.timestamp for entry in self.entries)])

    @property
    def leaf_id(self) -> str | None:
        return self.entries[-1].id if self.entries else None

    def add(self, entry: SessionEntry) -> PathBuilder:
        self.entries.append(entry)
        self.clock = max(self.clock, entry.timestamp)
        return self

    def system(self, id: str, content: str = "", *, sections: Mapping[str, str | None] | None = None) -> PathBuilder:
        return self._message(
            id, SystemMessage(content=content, sections=dict(sections) if sections else None, timestamp=self._tick())
        )

    def user(self, id: str, text: str) -> PathBuilder:
        return self._message(id, UserMessage(content=(TextContent(text=text),), timestamp=self._tick()))

    def assistant(
        self,
        id: str,
        text: str = "",
        *,
        tool_calls: Iterable[ToolCallSpec] = (),
        stop_reason: StopReason | None = None,
        input_tokens: int = 0,
        error_message: str | None = None,
    ) -> PathBuilder:
        calls = tuple(
            ToolCall(id=call_id, name=name, arguments=dict(arguments)) for call_id, name, arguments in tool_calls
        )
        content = ((TextContent(text=text),) if text else ()) + calls
        message = AssistantMessage(
            content=content,
            provider="course",
            model="scripted",
            usage=Usage(input=input_tokens, output=0, total_tokens=input_tokens),
            stop_reason=stop_reason or ("toolUse" if calls else "stop"),
            error_message=error_message,
            timestamp=self._tick(),
        )
        return self._message(id, message)

    def tool_result(self, id: str, call_id: str, tool_name: str, text: str, *, is_error: bool = False) -> PathBuilder:
        message = ToolResultMessage(
            tool_call_id=call_id,
            tool_name=tool_name,
            content=(TextContent(text=text),),
            is_error=is_error,
            timestamp=self._tick(),
        )
        return self._message(id, message)

    def metadata(self, id: str, key: str, value: Any) -> PathBuilder:
        return self.add(MetadataEntry(id=id, parent_id=self.leaf_id, timestamp=self._tick(), key=key, value=value))

    def _message(self, id: str, message: Any) -> PathBuilder:
        return self.add(MessageEntry(id=id, parent_id=self.leaf_id, timestamp=message.timestamp, message=message))

    def _tick(self) -> int | float:
        self.clock += 1
        return self.clock
