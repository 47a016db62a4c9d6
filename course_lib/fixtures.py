"""The chapter's worked example (the ten-entry path of docs/rules.md's labs), shared by notebooks, tests, the checklist and widgets.

Every function returns fresh objects, so a learner who changes one cannot
change the example for anybody else.

The teaching estimator counts words so costs can be checked by hand: one token
per word of text, plus one per tool call. The texts below are written so the
opening path costs exactly what the chapter's table says.
"""

from __future__ import annotations

from typing import Any, cast

from .builders import PathBuilder
from .estimators import Message
from .models import CompactionEntry, CompactionSummary, SessionEntry, SystemMessage, ToolCall
from .parsing import parse_session_entry
from .system_prompt import system_message_text

# The budgets are spread into build_context and its relatives (``**OPENING_BUDGET``); typed ``Any`` so that mypy
# does not match their ints against the other keywords (``estimate_tokens``) those functions take.
OPENING_BUDGET: dict[str, Any] = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
"""The chapter's budget: system 3 + reserved 4 + margin 2 leaves 22 for messages."""

TIGHT_BUDGET: dict[str, Any] = {"max_tokens": 19, "reserved_output": 4, "safety_margin": 2}
"""Leaves 10 for messages: the third group (15) alone overflows."""

RESUME_BUDGET: dict[str, Any] = {"max_tokens": 80, "reserved_output": 4, "safety_margin": 2}
"""Large enough that the resumed path after ``compact-1`` + ``u4 → a4`` fits whole."""

OPENING_COSTS: dict[str, int] = {
    "sys": 3, "u1": 3, "a1": 4, "u2": 3, "a2": 4,
    "u3": 3, "calls": 3, "r-test": 3, "r-read": 3, "a3": 3,
}  # fmt: skip


def teaching_estimator(message: Message) -> int:
    """One token per word of text and one per tool call; a system message counts its prompt text."""
    if isinstance(message, SystemMessage):
        return len(system_message_text(message).split())
    return sum(1 if isinstance(block, ToolCall) else len(block.text.split()) for block in message.content)


def opening_builder() -> PathBuilder:
    return (
        PathBuilder()
        .system("sys", "You review code.")
        .user("u1", "Check session-restore logic.")
        .assistant("a1", "Restores only chosen branch.")
        .user("u2", "Confirm JSONL boundary.")
        .assistant("a2", "Newline commits, tail read-only.")
        .user("u3", "Read, then test.")
        .assistant(
            "calls",
            "Checking.",
            tool_calls=[
                ("read-1", "read", {"path": "context.ts"}),
                ("test-1", "test", {"pattern": "context"}),
            ],
        )
        # The test finishes first, so its result precedes the read's on the path.
        .tool_result("r-test", "test-1", "test", "14 tests passed.")
        .tool_result("r-read", "read-1", "read", "context.ts loaded fully.")
        .assistant("a3", "Implementation matches tests.")
    )


def opening_path() -> list[SessionEntry]:
    """The ten entries of the chapter's opening active path, ``sys`` to ``a3``."""
    return opening_builder().entries


def compact_1_summary_wire() -> dict[str, Any]:
    """``compact-1``'s summary in the wire format (plain JSON data, no models)."""
    return {
        "goal": "Verify session restore and JSONL writes.",
        "constraints": ["History is append-only."],
        "completed": ["Checked the session-restore logic."],
        "decisions": ["Restore only the active path."],
        "changedFiles": [],
        "unresolved": [],
        "next": ["Add a regression test."],
    }


def compact_1_summary() -> CompactionSummary:
    return CompactionSummary.model_validate(compact_1_summary_wire(), by_alias=True)


def compact_1_wire(parent_id: str = "a3", **overrides: Any) -> dict[str, Any]:
    """``compact-1`` in the wire format, keeping from ``u2``: plain data, built without any lab's function.

    While a lab is graded, the function it asks for is withheld from the course's
    package (see ``course_lib.teaching.lab_registry``); the example must not depend on it.
    """
    return {
        "type": "compaction",
        "id": "compact-1",
        "parentId": parent_id,
        "timestamp": 100,
        "summary": compact_1_summary_wire(),
        "firstKeptEntryId": "u2",
        "tokensBefore": 29,
        **overrides,
    }


def compact_1(path: list[SessionEntry] | None = None, **overrides: Any) -> CompactionEntry:
    """``compact-1`` at the end of ``path`` (the opening path by default), keeping from ``u2``.

    ``overrides`` use the wire keys (``firstKeptEntryId``, ``id``, ...).
    """
    parent = (opening_path() if path is None else path)[-1].id
    return cast(CompactionEntry, parse_session_entry(compact_1_wire(parent, **overrides)))  # a "compaction" wire entry


def resumed_path() -> list[SessionEntry]:
    """The opening path, then ``compact-1``, then ``u4 → a4`` appended after it."""
    builder = opening_builder()
    builder.add(compact_1(builder.entries))
    return builder.user("u4", "Add a regression test.").assistant("a4", "Added the regression test.").entries


def system_replay_path() -> list[SessionEntry]:
    """R6's path: ``sys, u1, a1, patch-1, u2, a2, compact-1, patch-2, u3, a3``."""
    builder = (
        PathBuilder()
        .system("sys", "BASE", sections={"rules": "RULE v1"})
        .user("u1", "Check session-restore logic.")
        .assistant("a1", "Restores only chosen branch.")
        .system("patch-1", "", sections={"rules": "RULE v2"})
        .user("u2", "Confirm JSONL boundary.")
        .assistant("a2", "Newline commits, tail read-only.")
    )
    builder.add(compact_1(builder.entries))
    return (
        builder.system("patch-2", "Prefer small diffs.")
        .user("u3", "Read, then test.")
        .assistant("a3", "Implementation matches tests.")
        .entries
    )


def compact_2_summary_wire() -> dict[str, Any]:
    """``compact-2``'s summary: after the regression test, with four empty lists (R18's ``- (none)``)."""
    return {
        "goal": "Finish the regression test.",
        "constraints": [],
        "completed": ["Added the regression test."],
        "decisions": [],
        "changedFiles": ["tests/restore.test.ts"],
        "unresolved": [],
        "next": [],
    }


def twice_compacted_path() -> list[SessionEntry]:
    """The resumed path, then ``compact-2`` (keeping from ``u3``), then ``u5 → a5``: only the newest compaction is read (R18)."""
    builder = PathBuilder(resumed_path())
    builder.add(
        parse_session_entry(
            {
                "type": "compaction",
                "id": "compact-2",
                "parentId": builder.entries[-1].id,
                "timestamp": 200,
                "summary": compact_2_summary_wire(),
                "firstKeptEntryId": "u3",
                "tokensBefore": 50,
            }
        )
    )
    return builder.user("u5", "Run the suite.").assistant("a5", "Suite passes.").entries


def sibling_tree() -> list[SessionEntry]:
    """The resumed path and a sibling branch ``u4-alt → a4-alt`` off ``a3``: ``path_to`` must leave the sibling out (R10)."""
    sibling = (
        PathBuilder(opening_path()).user("u4-alt", "Try the sibling branch.").assistant("a4-alt", "Sibling answer.")
    )
    return resumed_path() + sibling.entries[10:]


def resumed_keeping_from(first_kept: str) -> list[SessionEntry]:
    """The resumed path with a metadata entry ``note`` before its compaction, which keeps from ``first_kept`` (R18).

    Written as data, not by ``create_compaction_entry``, so it may keep from any
    entry: the resume, not the creation, must refuse the wrong ones.
    """
    builder = PathBuilder(opening_path()).metadata("note", "label", "restore")
    builder.add(compact_1(builder.entries, firstKeptEntryId=first_kept))
    return builder.user("u4", "Add a regression test.").assistant("a4", "Added the regression test.").entries
