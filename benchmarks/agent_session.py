"""The benchmark's session: one that compacts where the lifecycle's own thresholds say (L1–L3, R11–R14, R18).

A real agent compacts when a turn ends with its context past ``window - reserve_tokens``
(``course_lib.lifecycle.should_compact``) and keeps about ``keep_recent_tokens`` of the
newest whole interaction groups (``find_cut_point``). This generator runs exactly that
rule, with the production settings (``CompactionSettings()``: a reserve of 16,384 and
20,000 tokens kept) and a **window of 200,000 tokens** (``WINDOW``), so its latest
compaction keeps what a real session keeps: resume and the explorer build a few hundred
entries of a 10k-entry session, not the 40 % the fixed-fraction session of ``sessions.py``
keeps (that one stays in the bench as a stress row).

**Turn sizes** (drawn from a seeded ``random.Random``, so every run writes the same
session): a user prompt of 80–600 characters; 1, 1, 2, 2, 3, 4, 6 or 9 tool rounds, each
an assistant message (a thought of 0–300 characters, 1 call in 70 % of rounds, 2 in 20 %,
3 in 10 %) and one result per call: a ``read`` returns 300–8,000 characters of source
(log-uniform), a ``bash`` 80–2,500 characters of output, an ``edit`` 60–300 characters and
a diff in its details; then a final answer of 80–1,000 characters. Every 40 turns the
model changes (a metadata entry). With these sizes a 10k-entry session compacts about
every 600–1,000 entries, as long coding-agent logs do, and the context an assistant
message reports in its usage is the ``chars/4`` estimate of what ``build_context`` would
send (the system prompt, the latest summary and the kept messages), which is what
``should_compact`` reads at each turn's end.

Sizes are exact (the last turn is cut to fit), so "10x the entries" really is 10x.
"""

from __future__ import annotations

import math
import random
from typing import Any

from sessions import tool_details

from course_lib import estimate_tokens_chars
from course_lib.compaction import summary_message
from course_lib.lifecycle import CompactionSettings, find_cut_point, should_compact
from course_lib.models import (
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

WINDOW = 200_000
"""The model's context window, in tokens: a current coding model's."""
SETTINGS = CompactionSettings()
"""The production settings (``course_lib.lifecycle.settings``): reserve 16,384, keep 20,000."""
SEED = 47
ROUNDS = (1, 1, 2, 2, 3, 4, 6, 9)
"""Tool rounds per turn, drawn uniformly."""
MODEL_CHANGE_EVERY = 40

_SOURCE = "".join(
    f"    def step_{n}(self, path: list[str]) -> int:\n        return sum(len(part) for part in path) + {n}\n"
    for n in range(400)
)
_PROSE = (
    "The resumed context starts from the latest summary and keeps the newest groups verbatim; "
    "older facts stay on disk, appended once, and the reader only builds what it is asked for. "
) * 40


def _text(rng: random.Random, pool: str, low: int, high: int, *, log: bool = False) -> str:
    size = round(math.exp(rng.uniform(math.log(low), math.log(high)))) if log else rng.randint(low, high)
    start = rng.randrange(0, len(pool) - size)
    return pool[start : start + size]


class _AgentSession:
    """Entries under construction, with the running context the next request would send."""

    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.entries: list[SessionEntry] = []
        self.tokens: list[int] = []
        """Per entry, what its message adds to the context (0 for metadata and compactions)."""
        self.clock = 1_767_600_000_000
        self.turn = 0
        self.compactions = 0
        self.first_kept = 0
        """The index the latest compaction keeps from (0 before any)."""
        self.fixed = 0
        """The system prompt's tokens plus the latest summary's."""
        self.context = 0

    def append(self, entry: SessionEntry, tokens: int = 0) -> None:
        self.entries.append(entry)
        self.tokens.append(tokens)
        self.context += tokens

    def message(self, entry_id: str, message: Any) -> None:
        self.clock += 1_500
        parent = self.entries[-1].id if self.entries else None
        message = message.model_copy(update={"timestamp": self.clock})
        entry = MessageEntry(id=entry_id, parent_id=parent, timestamp=self.clock, message=message)
        tokens = estimate_tokens_chars(message)
        if message.role == "system":
            self.fixed += tokens
        self.append(entry, 0 if message.role == "system" else tokens)

    def assistant(self, entry_id: str, text: str, calls: tuple[ToolCall, ...]) -> None:
        given = self.fixed + self.context  # what this request sent: the summary, the system prompt, the kept messages
        output = math.ceil((len(text) + sum(len(str(call.arguments)) for call in calls)) / 4)
        usage = Usage(input=given, output=output, total_tokens=given + output)
        reply = AssistantMessage(
            content=(TextContent(text=text), *calls),
            provider="anthropic",
            model="claude-sonnet-4-5",
            usage=usage,
            stop_reason="toolUse" if calls else "stop",
            timestamp=0,
        )
        self.message(entry_id, reply)

    def turn_entries(self, rounds: list[int]) -> None:
        """One user turn: the prompt, ``rounds`` (calls per round) of tool use, the final answer."""
        rng, t = self.rng, f"t{self.turn}"
        self.turn += 1
        self.message(f"{t}-user", UserMessage(content=(TextContent(text=_text(rng, _PROSE, 80, 600)),), timestamp=0))
        for r, calls in enumerate(rounds):
            made = tuple(self.call(f"{t}-{r}-call-{c}") for c in range(calls))
            self.assistant(f"{t}-{r}-calls", _text(rng, _PROSE, 1, 300), made)
            for c, call in enumerate(made):
                self.message(f"{t}-{r}-result-{c}", self.result(call, c))
        self.assistant(f"{t}-answer", _text(rng, _PROSE, 80, 1_000), ())

    def call(self, call_id: str) -> ToolCall:
        kind = self.rng.choices(("read", "bash", "edit"), weights=(5, 3, 2))[0]
        module = f"src/mod_{self.rng.randrange(97)}.py"
        by_kind: dict[str, dict[str, Any]] = {
            "read": {"path": module, "offset": 1 + self.rng.randrange(400), "limit": 200},
            "bash": {"command": f"pytest tests/test_{module[4:-3]}.py -q -x", "timeout": 120},
            "edit": {"path": module, "oldText": _SOURCE[:90], "newText": _SOURCE[:90].replace("path", "active_path")},
        }
        return ToolCall(id=call_id, name=kind, arguments=by_kind[kind])

    def result(self, call: ToolCall, c: int) -> ToolResultMessage:
        low, high = {"read": (300, 8_000), "bash": (80, 2_500), "edit": (60, 300)}[call.name]
        return ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=(TextContent(text=_text(self.rng, _SOURCE, low, high, log=True)),),
            details=tool_details(call.name, c, str(call.arguments.get("path", "src/mod.py"))),
            is_error=self.rng.random() < 0.03,
            timestamp=0,
        )

    def compact_if_due(self) -> None:
        """The lifecycle's post-run hook: past the threshold, cut where ``find_cut_point`` says (L2, L3)."""
        last = self.entries[-1]
        assert last.type == "message" and isinstance(last.message, AssistantMessage), "a turn ends on an answer"
        if not should_compact(last.message.usage.total_tokens, WINDOW, SETTINGS):
            return
        # what the context is built from: the system prompt, then the path from the latest first kept entry
        view = [*self.entries[:1], *self.entries[max(1, self.first_kept) :]]
        cut = find_cut_point(
            view, keep_recent_tokens=SETTINGS.keep_recent_tokens, estimate_tokens=estimate_tokens_chars
        )
        if cut is None:
            return
        self.compactions += 1
        start = next(i for i in range(len(self.entries) - 1, -1, -1) if self.entries[i].id == cut)
        self.clock += 1_500
        entry = CompactionEntry(
            id=f"compact-{self.compactions}",
            parent_id=last.id,
            timestamp=self.clock,
            summary=_summary(self.turn),
            first_kept_entry_id=cut,
            tokens_before=last.message.usage.total_tokens,
        )
        self.append(entry)
        self.first_kept = start
        self.fixed = self.tokens_of_system() + estimate_tokens_chars(summary_message(entry))
        self.context = sum(self.tokens[start:])

    def tokens_of_system(self) -> int:
        first = self.entries[0]
        assert first.type == "message" and first.message.role == "system"
        return estimate_tokens_chars(first.message)

    def model_change(self) -> None:
        self.clock += 1_500
        model = ("claude-sonnet-4-5", "gpt-5-codex")[self.turn // MODEL_CHANGE_EVERY % 2]
        value = {"provider": "anthropic" if model.startswith("claude") else "openai", "modelId": model}
        self.append(
            MetadataEntry(
                id=f"model-{self.turn}", parent_id=self.entries[-1].id, timestamp=self.clock, key="model", value=value
            )
        )


def _summary(turn: int) -> CompactionSummary:
    return CompactionSummary(
        goal="Keep session restore correct while the reader gets faster.",
        constraints=("Never rewrite committed bytes.", "Keep every model strict."),
        completed=tuple(
            f"Turn {t}: checked src/mod_{t % 97}.py and its tests." for t in range(max(0, turn - 12), turn)
        ),
        decisions=("Validate lines straight from bytes.", "Resume from the latest compaction only."),
        changed_files=tuple(f"src/mod_{t % 97}.py" for t in range(max(0, turn - 6), turn)),
        unresolved=("The tail warning on Windows.",),
        next=(f"Continue with src/mod_{turn % 97}.py.",),
    )


def generate_agent_session(n_entries: int) -> list[SessionEntry]:
    """A linear path of exactly ``n_entries`` entries that compacts as the lifecycle does (see the module)."""
    if n_entries < 2:
        raise ValueError(f"a session needs at least 2 entries (a system prompt and one more), got {n_entries}")
    session = _AgentSession()
    session.message("sys", SystemMessage(content="You are a careful coding agent. Keep diffs small.", timestamp=0))
    while (remaining := n_entries - len(session.entries)) > 0:
        if session.turn and session.turn % MODEL_CHANGE_EVERY == 0 and session.entries[-1].type == "message":
            session.model_change()
            continue
        rounds = [session.rng.choices((1, 2, 3), weights=(7, 2, 1))[0] for _ in range(session.rng.choice(ROUNDS))]
        size = 2 + sum(1 + calls for calls in rounds)
        if size + 1 >= remaining:  # the last turn, cut to fit exactly
            _last_turn(session, remaining)
            break
        session.turn_entries(rounds)
        session.compact_if_due()
    return session.entries


def _last_turn(session: _AgentSession, remaining: int) -> None:
    """Exactly ``remaining`` entries in whole groups: a model change, a chat, or one round of calls."""
    if remaining in (1, 3):
        session.model_change()
        remaining -= 1
    if remaining >= 4:
        session.turn_entries([remaining - 3])
    elif remaining == 2:
        session.turn_entries([])
