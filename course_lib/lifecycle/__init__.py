"""The compaction lifecycle (companion lesson, L1–L6): when a runtime compacts, why history is only appended.

Each idea lives in its own module; this ``__init__`` only re-exports them.
"""

from .budget import BUDGET_KEY, ESTIMATORS, RequestBudget, budget_on_path
from .consumers import AgentEndConsumer, MessageEndConsumer
from .cut_point import context_groups, find_cut_point, group_cost, messages_to_summarize
from .demonstrations import (
    WriterDemo,
    demonstrate_prefix_reuse,
    demonstrate_replay,
    demonstrate_single_writer,
    prefix_reuse_table,
)
from .errors import CompactionSettingsError, OverflowRecoveryError, ScriptExhaustedError, SessionLockedError
from .events import LIFECYCLE_EVENTS, AgentEvent, EventLog, EventType, events_frame
from .overflow import is_context_overflow, retry_after_overflow
from .prefix_reuse import (
    PrefixReuse,
    PrefixRow,
    append_only_requests,
    measure_prefix_reuse,
    rewrite_history_requests,
)
from .replay import ReplayCheck, ReplayedRequest, compare_with_sent, replay_all, replay_request
from .scenario import CAPSTONE_SETTINGS, CAPSTONE_TURNS, CAPSTONE_WINDOW, Turn, capstone_script, capstone_session
from .scripted_model import (
    MESSAGE_FRAMING_TOKENS,
    Failure,
    Reply,
    ScriptedCall,
    ScriptedModel,
    SentRequest,
    ToolOutcome,
    provider_tokens,
)
from .settings import CompactionSettings, compaction_threshold, should_compact
from .simulation import DEFAULT_MAX_OVERFLOW_ATTEMPTS, AgentSession, TurnResult
from .summarizer import OfflineSummarizer, Summarizer, SummaryRequest
from .writer_lock import lock_path, open_session_writer

__all__ = [
    "BUDGET_KEY",
    "CAPSTONE_SETTINGS",
    "CAPSTONE_TURNS",
    "CAPSTONE_WINDOW",
    "DEFAULT_MAX_OVERFLOW_ATTEMPTS",
    "ESTIMATORS",
    "LIFECYCLE_EVENTS",
    "MESSAGE_FRAMING_TOKENS",
    "AgentEndConsumer",
    "AgentEvent",
    "AgentSession",
    "CompactionSettings",
    "CompactionSettingsError",
    "EventLog",
    "EventType",
    "Failure",
    "MessageEndConsumer",
    "OfflineSummarizer",
    "OverflowRecoveryError",
    "PrefixReuse",
    "PrefixRow",
    "ReplayCheck",
    "ReplayedRequest",
    "Reply",
    "RequestBudget",
    "ScriptExhaustedError",
    "ScriptedCall",
    "ScriptedModel",
    "SentRequest",
    "SessionLockedError",
    "Summarizer",
    "SummaryRequest",
    "ToolOutcome",
    "Turn",
    "TurnResult",
    "WriterDemo",
    "append_only_requests",
    "budget_on_path",
    "capstone_script",
    "capstone_session",
    "compaction_threshold",
    "compare_with_sent",
    "context_groups",
    "demonstrate_prefix_reuse",
    "demonstrate_replay",
    "demonstrate_single_writer",
    "events_frame",
    "find_cut_point",
    "group_cost",
    "is_context_overflow",
    "retry_after_overflow",
    "lock_path",
    "measure_prefix_reuse",
    "messages_to_summarize",
    "open_session_writer",
    "prefix_reuse_table",
    "provider_tokens",
    "replay_all",
    "replay_request",
    "rewrite_history_requests",
    "should_compact",
]
