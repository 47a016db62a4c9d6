"""Chapter 11 course pack: history stays, context is rebuilt per budget.

The package ``__init__`` only re-exports the public API (the names below); each idea
lives in its own module. The top-level modules are the chapter's code, read whole in
the order README.md beside this file gives, with the lab and the rules of each.
"""

from .builders import PathBuilder
from .compaction import compaction_summary_text, create_compaction_entry
from .context import BuildContextResult, TokenProjection, build_context
from .errors import (
    CompactionError,
    CourseError,
    InteractionError,
    SessionEntryError,
    SessionLockedError,
    SessionPathError,
    SessionStoreError,
)
from .estimators import estimate_tokens_chars
from .grouping import InteractionGroup, group_interactions
from .jsonl import ReadWarning, SessionReadResult, recover_jsonl
from .models import (
    AgentMessage,
    AssistantMessage,
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from .parsing import parse_session_entry, to_json_dict
from .paths import path_to
from .store import InMemorySessionStore, JsonlSessionStore
from .system_prompt import current_system_message, current_system_prompt, system_message_text

__all__ = [
    "AgentMessage",
    "AssistantMessage",
    "BuildContextResult",
    "CompactionEntry",
    "CompactionError",
    "CompactionSummary",
    "CourseError",
    "InMemorySessionStore",
    "InteractionError",
    "InteractionGroup",
    "JsonlSessionStore",
    "MessageEntry",
    "MetadataEntry",
    "PathBuilder",
    "ReadWarning",
    "SessionEntry",
    "SessionEntryError",
    "SessionPathError",
    "SessionReadResult",
    "SessionLockedError",
    "SessionStoreError",
    "SystemMessage",
    "TextContent",
    "TokenProjection",
    "ToolCall",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "build_context",
    "compaction_summary_text",
    "create_compaction_entry",
    "current_system_message",
    "current_system_prompt",
    "estimate_tokens_chars",
    "group_interactions",
    "parse_session_entry",
    "path_to",
    "recover_jsonl",
    "system_message_text",
    "to_json_dict",
]
