"""Wire-format sample entries and an aliasing check shared by the test modules.

Every factory returns a fresh dict, so a test that mutates one cannot leak into another.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def user_wire(id: str = "u1", parent: str | None = None, text: str = "hello", ts: float = 1) -> dict[str, Any]:
    return {
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": ts,
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts},
    }


def assistant_wire(id: str = "a1", parent: str | None = "u1", ts: float = 2) -> dict[str, Any]:
    return {
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": ts,
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "reading"},
                {"type": "toolCall", "id": "call-1", "name": "read", "arguments": {"path": "a.py", "lines": [1, 2]}},
            ],
            "provider": "course",
            "model": "scripted",
            "usage": {"input": 10, "output": 5, "totalTokens": 15},
            "stopReason": "toolUse",
            "timestamp": ts,
        },
    }


def tool_result_wire(id: str = "r1", parent: str | None = "a1", ts: float = 3) -> dict[str, Any]:
    return {
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": ts,
        "message": {
            "role": "toolResult",
            "toolCallId": "call-1",
            "toolName": "read",
            "content": [{"type": "text", "text": "print('hi')"}],
            "details": {"bytes": 11, "tags": ["py"]},
            "isError": False,
            "timestamp": ts,
        },
    }


def system_wire(id: str = "sys", parent: str | None = None, ts: float = 0) -> dict[str, Any]:
    return {
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": ts,
        "message": {"role": "system", "content": "BASE", "sections": {"rules": "RULE v1"}, "timestamp": ts},
    }


def metadata_wire(id: str = "meta-1", parent: str | None = "u1", ts: float = 4) -> dict[str, Any]:
    return {
        "type": "metadata",
        "id": id,
        "parentId": parent,
        "timestamp": ts,
        "key": "label",
        "value": {"names": ["a", "b"], "n": 2},
    }


def compaction_wire(id: str = "compact-1", parent: str | None = "a3") -> dict[str, Any]:
    return {
        "type": "compaction",
        "id": id,
        "parentId": parent,
        "timestamp": 100,
        "summary": {
            "goal": "Verify session restore and JSONL writes.",
            "constraints": ["History is append-only."],
            "completed": ["Checked the session-restore logic."],
            "decisions": ["Restore only the active path.", "Keep whole groups."],
            "changedFiles": ["context.py"],
            "unresolved": [],
            "next": ["Add a regression test."],
        },
        "firstKeptEntryId": "u2",
        "tokensBefore": 29,
    }


ALL_WIRE_FACTORIES = (user_wire, assistant_wire, tool_result_wire, system_wire, metadata_wire, compaction_wire)


def mutable_containers(value: Any) -> dict[int, Any]:
    """Every dict and list reachable from ``value`` (through models and tuples), by ``id``.

    Frozen models and tuples cannot be changed in place, so only dicts and lists
    can carry a change from one object to another (R3).
    """
    found: dict[int, Any] = {}

    def walk(node: Any) -> None:
        if isinstance(node, BaseModel):
            for name in type(node).model_fields:
                walk(getattr(node, name))
        elif isinstance(node, dict):
            found[id(node)] = node
            for item in node.values():
                walk(item)
        elif isinstance(node, list):
            found[id(node)] = node
            for item in node:
                walk(item)
        elif isinstance(node, tuple):
            for item in node:
                walk(item)

    walk(value)
    return found


def shared_containers(a: Any, b: Any) -> list[Any]:
    """The mutable containers that ``a`` and ``b`` both reach (should be none, R3)."""
    left, right = mutable_containers(a), mutable_containers(b)
    return [left[key] for key in left.keys() & right.keys()]


def little_session_wire() -> list[dict[str, Any]]:
    """A valid little session in wire format: user, assistant call, result, metadata, compaction."""
    return [
        user_wire("u1", None),
        assistant_wire("a1", "u1"),
        tool_result_wire("r1", "a1"),
        metadata_wire("meta-1", "r1"),
        compaction_wire("compact-1", "meta-1"),
    ]
