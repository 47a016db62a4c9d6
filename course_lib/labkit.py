"""Small helpers the five lab notebooks share: a friendly stop for unfinished stubs, and tables.

They only display. None of them implements a lab function, so whatever a lab
shows about the learner's function comes from the learner's own code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pandas as pd

from .parsing import to_json_dict

Estimator = Callable[[Any], int | float]


@contextmanager
def until_implemented() -> Iterator[None]:
    """Run a demo cell; a learner's stub ends it with one line instead of a traceback.

    Learner notebooks must run top to bottom before any exercise is done, so the
    cells that call a lab function stop politely at the stub's ``NotImplementedError``.
    """
    try:
        yield
    except NotImplementedError as exc:
        print(f"⏳ {exc or 'not implemented yet'} (write it in the exercise cell, run that cell, then this one)")


def compare(actual: Any, expected: Any, what: str) -> bool:
    """The 'run' half of predict-then-run: one line saying whether the result matches the hand-worked answer."""
    actual, expected = to_json_dict(actual), to_json_dict(expected)
    if actual == expected:
        print(f"✅ {what}: {_short(actual)}, as predicted")
        return True
    print(f"❌ {what}: predicted {_short(expected)}, got {_short(actual)}")
    return False


def outcome(call: Callable[[], Any]) -> str:
    """``"accepted"`` or ``"rejected: <message>"``; a stub's ``NotImplementedError`` goes through."""
    try:
        call()
    except NotImplementedError:
        raise
    except ValueError as exc:
        return f"rejected: {exc}"
    except Exception as exc:  # noqa: BLE001 - a crash in learner code is shown, not raised
        return f"crashed: {type(exc).__name__}: {exc}"
    return "accepted"


def describe(item: Any) -> str:
    """One readable line for an entry or a message; a long text (a summary) shows its first two lines."""
    lines = _describe(item).split("\n")
    shown = lines if len(lines) <= 4 else [*lines[:2], f"… ({len(lines)} lines)"]
    return " ⏎ ".join(shown)


def _describe(item: Any) -> str:
    kind = getattr(item, "type", None)
    if kind == "message":
        return _describe(item.message)
    if kind == "compaction":
        return f"summary “{item.summary.goal}”, keeps from {item.first_kept_entry_id}"
    if kind == "metadata":
        return f"{item.key} = {json.dumps(item.value)}"
    role = getattr(item, "role", None)
    if role == "system":
        parts = [item.content, *(f"[{name}] {text}" for name, text in (item.sections or {}).items())]
        return " · ".join(part for part in parts if part)
    parts = []
    for block in getattr(item, "content", ()):
        if block.type == "toolCall":
            parts.append(f"→ {block.name}({block.id})")
        else:
            parts.append(block.text)
    text = " ".join(parts)
    return f"[{item.tool_call_id}] {text}" if role == "toolResult" else text


def kind_of(entry: Any) -> str:
    """The message role for a message entry, else the entry type."""
    return entry.message.role if entry.type == "message" else entry.type


def path_table(path: Iterable[Any], estimate: Estimator | None = None) -> pd.DataFrame:
    """The entries of a path, one row each, with their cost when an estimator is given."""
    rows = []
    for entry in path:
        row = {"entry": entry.id, "kind": kind_of(entry), "text": describe(entry)}
        if estimate is not None:
            row["cost"] = estimate(entry.message) if entry.type == "message" else "—"
        rows.append(row)
    return _frame(rows, "entry")


def groups_table(groups: Iterable[Any], estimate: Estimator | None = None) -> pd.DataFrame:
    """Interaction groups, one row each: the entries they hold and, with an estimator, their cost."""
    rows = []
    for number, group in enumerate(groups, start=1):
        entries = list(group.entries)
        row: dict[str, Any] = {"group": number, "entries": ", ".join(entry.id for entry in entries)}
        if estimate is not None:
            row["cost"] = sum(estimate(entry.message) for entry in entries)
        rows.append(row)
    return _frame(rows, "group")


def messages_table(result: Any, estimate: Estimator | None = None) -> pd.DataFrame:
    """The messages a build returned, labelled with the entry each came from.

    The head (the replayed system message, then a compaction summary) has no
    entry id of its own: those rows are labelled in brackets (R21).
    """
    messages = list(result.messages)
    kept = list(result.kept_entry_ids)
    head = len(messages) - len(kept)
    rows = []
    for position, message in enumerate(messages, start=1):
        if position > head:
            source = kept[position - head - 1]
        elif message.role == "system":
            source = "(replayed system)"
        else:
            source = "(compaction summary)"
        row = {"#": position, "from entry": source, "role": message.role, "text": describe(message)}
        if estimate is not None:
            row["cost"] = estimate(message)
        rows.append(row)
    return _frame(rows, "#")


def tokens_table(result: Any) -> pd.DataFrame:
    """The ``tokens`` object of a build as one row, in the chapter's camelCase keys (R22)."""
    return pd.DataFrame([to_json_dict(result.tokens)], index=[result.reason]).rename_axis("reason")


def fields_table(value: Any) -> pd.DataFrame:
    """A wire-format object flattened to one row per field path (``summary.decisions``), as R2 names them."""
    rows: list[dict[str, str]] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, f"{path}.{key}" if path else str(key))
        else:
            shown = node if isinstance(node, str) else json.dumps(node, ensure_ascii=False)
            rows.append({"field": path, "value": shown})

    walk(to_json_dict(value), "")
    return _frame(rows, "field")


def session_chain(path: Sequence[Any]) -> str:
    """The path on one line, with the latest compaction's ``firstKeptEntryId`` arrow drawn under it."""
    ids = [entry.id for entry in path]
    line = " → ".join(ids)
    compaction = next((entry for entry in reversed(path) if entry.type == "compaction"), None)
    if compaction is None or compaction.first_kept_entry_id not in ids:
        return line
    starts = [len(" → ".join(ids[:i])) + (3 if i else 0) for i in range(len(ids))]
    kept = ids.index(compaction.first_kept_entry_id)
    here = ids.index(compaction.id)
    left = starts[kept] + len(ids[kept]) // 2
    right = starts[here] + len(ids[here]) // 2
    label = f" firstKeptEntryId = {ids[kept]} "
    return "\n".join([
        line,
        " " * left + "↑" + " " * (right - left - 1) + "│",
        " " * left + "└" + label.center(right - left - 1, "─") + "┘",
    ])


def shorthand_path(text: str) -> list[Any]:
    """A linear path from the chapter's shorthand, e.g. ``"u3 calls(read-1,test-1) r-test(test-1) a3"``.

    ``u…`` is a user message, ``sys…``/``patch…`` a system message, ``r-…(call)`` the
    result of ``call``, ``name(call,…)`` an assistant declaring those calls, and any
    other name an assistant answer. Tool names are the call id's prefix (``read-1`` → ``read``).
    """
    from .builders import PathBuilder

    builder = PathBuilder()
    for token in text.split():
        name, _, rest = token.partition("(")
        calls = [call for call in rest.rstrip(")").split(",") if call]
        if name.startswith("u"):
            builder.user(name, "Read, then test.")
        elif name.startswith(("sys", "patch")):
            builder.system(name, "Prefer small diffs.")
        elif name.startswith("r-") and calls:
            builder.tool_result(name, calls[0], calls[0].split("-")[0], "Done.")
        elif calls:
            builder.assistant(name, "Checking.", tool_calls=[(c, c.split("-")[0], {}) for c in calls])
        else:
            builder.assistant(name, "Done.")
    return builder.entries


def _frame(rows: Sequence[Mapping[str, Any]], index: str) -> pd.DataFrame:
    return pd.DataFrame(list(rows)).set_index(index) if rows else pd.DataFrame()


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
