"""Small helpers the lab notebooks share: a friendly stop for unfinished stubs, predict-then-run, and tables.

They only display. None of them implements a lab function, so whatever a lab
shows about the learner's function comes from the learner's own code.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..parsing import to_json_dict
from . import answers, lab_registry
from .catalogues import broken_tool_facts, compactions
from .catalogues.shorthand import shorthand_path as shorthand_path
from .i18n import MESSAGES, message
from .json_diff import first_difference, short
from .one_line import one_line as one_line

Estimator = Callable[[Any], int | float]


@contextmanager
def until_implemented(expects: str | None = None) -> Iterator[None]:
    """Run a demo cell; a learner's stub ends it with one line instead of a traceback.

    Learner notebooks must run top to bottom before any exercise is done, so the
    cells that call a lab function stop politely at the stub's ``NotImplementedError``.
    With ``expects`` (one line: the shape of result the cell reads), any other
    error ends the cell with one ❌ line saying what was expected instead of a
    raw ``IndexError``: a wrongly shaped result is for the checklist to explain.
    """
    try:
        yield
    except NotImplementedError as exc:
        stub = lab_registry.spoken_stub(str(exc)) if str(exc) else MESSAGES("not implemented yet")
        print(MESSAGES("⏳ {stub} (write it in the exercise cell, run that cell, then this one)").format(stub=stub))
    except Exception as exc:
        if expects is None:
            raise
        print(
            MESSAGES("❌ this cell could not read your result ({error}); it expects {expects}").format(
                error=f"{type(exc).__name__}: {one_line(exc, 100)}", expects=expects
            )
        )


def compare(actual: Any, expected: Any, what: str, *, brief: str | None = None) -> bool:
    """One line saying whether the learner's result is the expected one (the hand-worked answer).

    It never says "predicted": the learner's own prediction is judged only by
    ``prediction_table``, against the worked answer, so a right prediction is
    never called wrong because the code is. ``brief`` stands for a long value
    on the ✅ line; a ❌ names the first place that differs, in the checklist's
    words (``json_diff``: one diff, so a cell and the checklist describe a
    difference alike). A statement expected to hold (``expected is True``) is said
    as one sentence: ``✅ {what}``, or ``❌ not so: {what}`` (issue 45).
    """
    actual, expected = to_json_dict(actual), to_json_dict(expected)
    if expected is True and isinstance(actual, bool):
        print(MESSAGES("✅ {what}").format(what=what) if actual else MESSAGES("❌ not so: {what}").format(what=what))
        return actual
    difference = first_difference(expected, actual)
    if difference is None:
        print(MESSAGES("✅ {what}: {value}, as expected").format(what=what, value=brief or short(actual, 200)))
        return True
    print(MESSAGES("❌ {what} — {difference}").format(what=what, difference=difference.describe()))
    return False


@dataclass(frozen=True)
class Attempt:
    """What one call of a learner's function did: its value, or the error it raised."""

    value: Any = None
    error: BaseException | None = None

    @property
    def accepted(self) -> bool:
        return self.error is None

    @property
    def rejected(self) -> bool:
        """Refused with a ``ValueError``, as every lab asks for bad input."""
        return isinstance(self.error, ValueError)

    @property
    def message(self) -> str:
        """The whole message of the error, for checks (``""`` when accepted)."""
        return "" if self.error is None else str(self.error)

    def names(self, *ids: str) -> bool:
        """Whether the error's message names every id as a whole word (``sys`` is not named by "system")."""
        return all(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", self.message) for name in ids)

    @property
    def shown(self) -> str:
        """``accepted``, ``rejected: <one line>`` or ``crashed: <Type>: <one line>``: fits in a table cell."""
        if self.error is None:
            return MESSAGES("accepted")
        if self.rejected:
            return MESSAGES("rejected: {error}").format(error=one_line(self.error))
        return MESSAGES("crashed: {error}").format(error=f"{type(self.error).__name__}: {one_line(self.error)}")


def attempt(call: Callable[[], Any]) -> Attempt:
    """Call ``call`` once; a stub's ``NotImplementedError`` goes through, any other error is kept."""
    try:
        return Attempt(value=call())
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - a crash in learner code is shown, not raised
        return Attempt(error=exc)


def outcome(call: Callable[[], Any]) -> str:
    """``"accepted"`` or ``"rejected: <one line>"``; a stub's ``NotImplementedError`` goes through."""
    return attempt(call).shown


WORKED_ANSWER = message("hand-worked answer")
NO_PREDICTION = message("✏️ no prediction yet")
HIDDEN_UNTIL_PREDICTED = message("🙈 hidden: write every prediction above first, run that cell, then this one")


def after_predicting(
    predictions: Mapping[Any, Any], answers: Mapping[Any, Any], *, column: str = WORKED_ANSWER, index: str = ""
) -> pd.DataFrame:
    """The worked answers as a table, shown only once every prediction is written: predict first, then look.

    Until then each row says so instead of its answer, so a learner who runs the
    notebook top to bottom does not read the answers right under the prompt.
    """
    hidden = any(guess is None for guess in predictions.values())
    shown = {what: MESSAGES(HIDDEN_UNTIL_PREDICTED) if hidden else answer for what, answer in answers.items()}
    return pd.DataFrame({MESSAGES(column): shown}).rename_axis(index or None)


def prediction_table(
    predictions: Mapping[Any, Any], worked: Mapping[Any, Any], yours: Callable[[], Mapping[Any, Any]], *, function: str
) -> pd.DataFrame:
    """Predict-then-run in one table: the prediction against the **worked answer**, the learner's code separately.

    A prediction is judged only against the worked answer (🎯 right, 🤔 not what
    it says), so a right prediction is never called wrong because the learner's
    function is. The ``ok`` column says whether the function agrees with the
    worked answer (✅/❌); a ❌ points at the checklist, which names the rule.
    ``yours()`` computes the function's answers; until it is written the table
    still judges the predictions and says ``⏳ not implemented yet`` (a crash shows
    in the same column, marked ❌).
    """
    actual: Mapping[Any, Any] | None = None
    try:
        actual, pending, mark = yours(), "", ""
    except NotImplementedError:
        pending, mark = "⏳ " + MESSAGES("not implemented yet"), "⏳"
    except Exception as exc:  # noqa: BLE001 - a crash in learner code is shown in its column, not raised
        pending = "💥 " + MESSAGES("crashed: {error}").format(error=f"{type(exc).__name__}: {one_line(exc, 100)}")
        mark = "❌"
    rows = {}
    for what, guess in predictions.items():
        expected = worked[what]
        if guess is None:
            verdict = MESSAGES(NO_PREDICTION)
        elif _same(guess, expected):
            verdict = MESSAGES("🎯 right: the worked answer says so too")
        else:
            verdict = MESSAGES("🤔 not what the worked answer says ({answer}): read it again").format(
                answer=answers.shown(expected) or short(to_json_dict(expected), 60)
            )
        yours_column = MESSAGES("your {function}").format(function=function)
        row = {
            MESSAGES("your prediction"): "—" if guess is None else short(to_json_dict(guess), 60),
            MESSAGES("against the worked answer"): verdict,
        }
        if actual is None:
            row[yours_column], row["ok"] = pending, mark
        else:
            got = actual[what]
            agrees = _same(got, expected)
            row[yours_column] = short(to_json_dict(got), 60) + (
                "" if agrees else MESSAGES(" ≠ the worked answer: see the checklist")
            )
            row["ok"] = "✅" if agrees else "❌"
        rows[what] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(MESSAGES("prediction"))


def verdict_table(rows: Mapping[Any, tuple[Any, str, bool]], *, function: str, index: str) -> pd.DataFrame:
    """A lab's run over its cases: each case's hand-worked answer, what the learner's function did, ✅ or ❌.

    ``rows`` maps each case to ``(answer, shown, ok)``; the headers are in the reader's
    language, the cases and answers as the lab states them.
    """
    yours_column = MESSAGES("your {function}").format(function=function)
    table = {
        what: {MESSAGES(WORKED_ANSWER): answer, yours_column: shown, "ok": "✅" if ok else "❌"}
        for what, (answer, shown, ok) in rows.items()
    }
    return pd.DataFrame.from_dict(table, orient="index").rename_axis(index)


def _same(left: Any, right: Any) -> bool:
    """Equal as the learner would mean it: ``"Rejected"`` and ``"拒绝"`` are ``"rejected"`` (``answers``), a set of ids
    is the sorted list."""
    return _normal(left, right) == _normal(right)


def _normal(value: Any, expected: Any = None) -> Any:
    value = answers.canonical(to_json_dict(value), to_json_dict(expected))
    if isinstance(value, str):
        return value.strip().casefold()
    if isinstance(value, (set, frozenset)):
        return sorted(_normal(item) for item in value)
    if isinstance(value, list):
        return [_normal(item) for item in value]
    return value


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
    for position, sent in enumerate(messages, start=1):
        if position > head:
            source = kept[position - head - 1]
        elif sent.role == "system":
            source = MESSAGES("(replayed system)")
        else:
            source = MESSAGES("(compaction summary)")
        row = {"#": position, "from entry": source, "role": sent.role, "text": describe(sent)}
        if estimate is not None:
            row["cost"] = estimate(sent)
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
    return "\n".join(
        [
            line,
            " " * left + "↑" + " " * (right - left - 1) + "│",
            " " * left + "└" + label.center(right - left - 1, "─") + "┘",
        ]
    )


def tool_fact_cases() -> dict[str, list[list[str]] | tuple[str, ...]]:
    """Lab 11.2's table: each path in the chapter's shorthand with its hand-worked answer.

    A list is the groups the path splits into; a tuple is the ids the error
    must name. The rows are ``course_lib.teaching.catalogues.broken_tool_facts``, which
    the checklist (check 6) and the grader try too.
    """
    cases: dict[str, list[list[str]] | tuple[str, ...]] = {
        case.shorthand: copy.deepcopy(case.groups) for case in broken_tool_facts.GROUPABLE
    }
    cases |= {broken.shorthand: broken.names for broken in broken_tool_facts.BROKEN}
    return cases


ACCEPTED = "accepted"


def compaction_variants(record: Mapping[str, Any]) -> dict[str, tuple[dict[str, Any], str]]:
    """Lab 11.1's table: ``record`` unchanged, then the catalogue's rows, each with its hand-worked answer.

    The answer is ``"accepted"`` (R1, R4: kept as given) or the field path the
    error must name (R2). The rows come from ``course_lib.teaching.catalogues.compactions``,
    the list the checklist and the grader try too.
    """
    rows: dict[str, tuple[dict[str, Any], str]] = {"unchanged": (dict(copy.deepcopy(record)), ACCEPTED)}
    rows |= {
        unusual.what: (unusual.applied(record), ACCEPTED) for unusual in compactions.UNUSUAL if unusual.in_lab_table
    }
    for malformed in compactions.MALFORMED:
        if malformed.in_lab_table:
            value, fields = malformed.applied(record)
            rows[malformed.what] = (value, fields[0])
    return rows


COLUMNS: tuple[str, ...] = (message("entry"), message("kind"), message("text"), message("cost"), message("group"))
COLUMNS += (message("entries"), message("from entry"), message("role"), message("field"), message("value"))
"""The tables' headers, said in the reader's language (the code builds each row under the English key)."""


def _frame(rows: Sequence[Mapping[str, Any]], index: str) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(list(rows)).set_index(index)
    return frame.rename(columns=lambda name: MESSAGES(name)).rename_axis(MESSAGES(index))
