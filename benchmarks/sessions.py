"""Generated sessions for the benchmark: long, realistic, and still valid (R1, R7, R11–R14, R18).

A session is one system message followed by interaction groups shaped like a
coding agent's turns: user → assistant with tool calls (real-looking arguments:
paths, shell commands, edits) and usage → one result per call, with tool details
(exit codes, timings, diffs) → final answer with usage. Now and then the model
changes (a metadata entry), and a few compactions summarise the history so far.
Every group is complete (each call has its result, R12), so ``build_context``
accepts the path and the budget can only keep or drop whole groups. Sizes are
exact, so "10x the entries" really is 10x.

``write_pi_log`` writes the same shape as a pi session log, for timing the importer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from course_lib import estimate_tokens_chars
from course_lib.compaction import summary_message
from course_lib.context import latest_compaction, resume_candidates
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

GROUP_SIZE = 5
"""user, assistant (two calls), two results, final answer."""

COMPACTIONS_AT = (0.2, 0.4, 0.6)
"""Where the compactions go, as fractions of the session (a few, as in a long real session)."""

MODEL_CHANGE_EVERY = 50
"""Every this many groups the model changes: one metadata entry between groups."""

KEEP_GROUPS = 4
"""A compaction keeps this many groups before it verbatim (``firstKeptEntryId``)."""

_FILLER = (
    "The active path restores only the chosen branch; older groups stay on disk "
    "and only the projection is trimmed to the budget. "
)
_CODE = "def restore(path):\n    return [entry for entry in path if entry.committed]\n"


def generate_session(n_entries: int) -> list[SessionEntry]:
    """A linear path of exactly ``n_entries`` entries: ``sys`` then whole groups.

    Groups have two tool calls; the last group takes between two and six calls so
    the total comes out exact without ever leaving a call unanswered. Compactions
    and model changes take one entry each and are only placed where a whole group
    still fits after them.
    """
    if n_entries < 1 + GROUP_SIZE:
        raise ValueError(f"a session needs at least {1 + GROUP_SIZE} entries, got {n_entries}")
    session = _Session()
    session.add(SystemMessage(content="You review code and keep diffs small.", timestamp=session.tick()), "sys")
    compactions = [round(n_entries * at) for at in COMPACTIONS_AT] if n_entries >= 200 else []
    group_starts: list[str] = []
    group = 0
    while (remaining := n_entries - len(session.entries)) > 0:
        room_for_one_more = remaining - 1 >= GROUP_SIZE
        if compactions and len(session.entries) >= compactions[0] and room_for_one_more:
            compactions.pop(0)
            session.compaction(group_starts[-KEEP_GROUPS], group)
            continue
        if group and group % MODEL_CHANGE_EVERY == 0 and session.entries[-1].type == "message" and room_for_one_more:
            session.model_change(group)
            continue
        calls = 2 if remaining >= 2 * GROUP_SIZE else remaining - 3
        group_starts.append(session.group(group, calls))
        group += 1
    return session.entries


class _Session:
    """Entries under construction: each one's parent is the previous one, timestamps count up."""

    def __init__(self) -> None:
        self.entries: list[SessionEntry] = []
        self.clock = 1_767_600_000_000

    def tick(self) -> int:
        self.clock += 1_500
        return self.clock

    def add(self, message: Any, entry_id: str) -> str:
        parent = self.entries[-1].id if self.entries else None
        self.entries.append(MessageEntry(id=entry_id, parent_id=parent, timestamp=message.timestamp, message=message))
        return entry_id

    def group(self, group: int, calls: int) -> str:
        """One interaction; text lengths vary a little so the costs are not all equal."""
        g, module = f"g{group}", f"src/mod_{group % 97}.py"
        filler = _FILLER * (1 + group % 3)
        user = UserMessage(
            content=(TextContent(text=f"Turn {group}: check {module} and run its tests. {filler}"),),
            timestamp=self.tick(),
        )
        start = self.add(user, f"{g}-user")
        tool_calls = tuple(_call(f"{g}-call-{c}", c, module, group) for c in range(calls))
        self.add(_assistant("Reading, then testing.", tool_calls, group, self.tick()), f"{g}-calls")
        for c, call in enumerate(tool_calls):
            result = ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=(TextContent(text=f"{call.name} ok for step {c}. {filler}"),),
                details=tool_details(call.name, c, module),
                is_error=group % 17 == 0 and c == 1,
                timestamp=self.tick(),
            )
            self.add(result, f"{g}-result-{c}")
        self.add(_assistant(f"{module} matches its tests. {filler}", (), group, self.tick()), f"{g}-answer")
        return start

    def compaction(self, first_kept: str, group: int) -> None:
        summary = CompactionSummary(
            goal="Keep session restore correct while the reader gets faster.",
            constraints=("Never rewrite committed bytes.", "Keep every model strict."),
            completed=tuple(f"Checked src/mod_{g % 97}.py" for g in range(max(0, group - 6), group)),
            decisions=("Validate lines straight from bytes.",),
            changed_files=("course_lib/store.py",),
            unresolved=("The tail warning on Windows.",),
            next=(f"Continue with src/mod_{group % 97}.py.",),
        )
        entry = CompactionEntry(
            id=f"compact-{group}",
            parent_id=self.entries[-1].id,
            timestamp=self.tick(),
            summary=summary,
            first_kept_entry_id=first_kept,
            tokens_before=20_000 + 37 * group,
        )
        self.entries.append(entry)

    def model_change(self, group: int) -> None:
        model = ("claude-sonnet-4-5", "gpt-5-codex")[group // MODEL_CHANGE_EVERY % 2]
        entry = MetadataEntry(
            id=f"model-{group}",
            parent_id=self.entries[-1].id,
            timestamp=self.tick(),
            key="model",
            value={"provider": "anthropic" if model.startswith("claude") else "openai", "modelId": model},
        )
        self.entries.append(entry)


def _call(call_id: str, c: int, module: str, group: int) -> ToolCall:
    kind = ("read", "bash", "edit")[(c + group) % 3]
    by_kind: dict[str, dict[str, Any]] = {
        "read": {"path": module, "offset": 1 + c * 40, "limit": 200},
        "bash": {"command": f"pytest tests/test_{module[4:-3]}.py -q -x", "timeout": 120},
        "edit": {"path": module, "oldText": _CODE, "newText": _CODE.replace("path", "active_path")},
    }
    return ToolCall(id=call_id, name=kind, arguments=by_kind[kind])


def _assistant(text: str, calls: tuple[ToolCall, ...], group: int, timestamp: int) -> AssistantMessage:
    given = 12_000 + 53 * group
    return AssistantMessage(
        content=(TextContent(text=text), *calls),
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=Usage(input=given, output=180 + group % 400, total_tokens=given + 180 + group % 400),
        stop_reason="toolUse" if calls else "stop",
        timestamp=timestamp,
    )


def tool_details(name: str, c: int, module: str) -> dict[str, Any]:
    if name == "bash":
        return {"exitCode": 0, "durationMs": 840 + c, "truncated": False, "stdoutBytes": 412}
    if name == "edit":
        return {
            "diff": f"--- {module}\n+++ {module}\n@@ -1,2 +1,2 @@\n-    return path\n+    return active_path\n",
            "firstChangedLine": 2,
        }
    return {"lines": 200, "truncation": None, "mtimeMs": 1_767_600_000_000 + c}


def candidates(path: Sequence[SessionEntry]) -> list[MessageEntry]:
    """The message entries ``build_context`` estimates: those from the latest compaction's first kept one (R18)."""
    compaction = latest_compaction(path)
    if compaction is None:
        return [entry for entry in path if entry.type == "message"]
    return resume_candidates(path, compaction)


def tenth_budget(
    path: Sequence[SessionEntry], *, reserved_output: int = 512, safety_margin: int = 64
) -> dict[str, int]:
    """Options for ``build_context`` that leave room for about a tenth of the candidate messages."""
    system = sum(estimate_tokens_chars(e.message) for e in path if e.type == "message" and e.message.role == "system")
    compaction = latest_compaction(path)
    summary = estimate_tokens_chars(summary_message(compaction)) if compaction else 0
    messages = sum(estimate_tokens_chars(e.message) for e in candidates(path) if e.message.role != "system")
    return {
        "max_tokens": system + reserved_output + safety_margin + summary + messages // 10,
        "reserved_output": reserved_output,
        "safety_margin": safety_margin,
    }


# --- the same session as a pi log (for timing the importer) -------------------------------


def pi_lines(path: Sequence[SessionEntry]) -> list[str]:
    """The session as pi session JSONL v3 lines: a header, then one pi entry per course entry."""
    lines = [
        json.dumps(
            {"type": "session", "version": 3, "id": "bench", "timestamp": "2026-01-05T10:00:00.000Z", "cwd": "/work"}
        )
    ]
    for entry in path:
        base = {"id": entry.id, "parentId": entry.parent_id, "timestamp": entry.timestamp}
        if entry.type == "compaction":
            text = summary_message(entry).content[0].text
            pi: dict[str, Any] = {
                "type": "compaction",
                **base,
                "summary": text,
                "firstKeptEntryId": entry.first_kept_entry_id,
                "tokensBefore": entry.tokens_before,
            }
        elif entry.type == "metadata":
            pi = {"type": "model_change", **base, **entry.value}
        else:
            pi = {"type": "message", **base, "message": _pi_message(entry.message)}
        lines.append(json.dumps(pi))
    return lines


def _pi_message(message: Any) -> dict[str, Any]:
    wire = message.model_dump(mode="json", by_alias=True)
    if message.role == "system":  # pi keeps its system prompt outside the log; a custom message carries it here
        return {"role": "custom", "customType": "system", "content": message.content, "timestamp": message.timestamp}
    if message.role == "assistant":
        wire["usage"] = {
            **wire["usage"],
            "cacheRead": 0,
            "cacheWrite": 0,
            "cost": {"input": 0.01, "output": 0.002, "total": 0.012},
        }
        wire["api"] = "anthropic-messages"
    return wire


def write_pi_log(target: Path, *, megabytes: float) -> int:
    """A pi log of about ``megabytes`` MB: a generated session sized from a small sample's bytes per entry."""
    sample = pi_lines(generate_session(1_000))
    per_entry = sum(len(line.encode("utf-8")) + 1 for line in sample) / len(sample)
    data = "".join(
        line + "\n" for line in pi_lines(generate_session(max(1 + GROUP_SIZE, round(megabytes * 1e6 / per_entry))))
    )
    target.write_text(data, encoding="utf-8")
    return len(data.encode("utf-8"))
