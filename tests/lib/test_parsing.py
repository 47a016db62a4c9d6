"""The strict entry parser and its wire format (R1–R4; §8 tests 1 and 2)."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from wire_samples import (
    ALL_WIRE_FACTORIES,
    assistant_wire,
    compaction_wire,
    metadata_wire,
    shared_containers,
    system_wire,
    tool_result_wire,
    user_wire,
)

from course_lib import (
    CompactionEntry,
    MessageEntry,
    SessionEntryError,
    ToolCall,
    parse_session_entry,
    to_json_dict,
)

Mutation = Callable[[dict[str, Any]], object]


def _rejected(wire: dict[str, Any]) -> SessionEntryError:
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(wire)
    return info.value


def _mutated(factory: Callable[[], dict[str, Any]], mutate: Mutation) -> dict[str, Any]:
    wire = factory()
    mutate(wire)
    return wire


# --- §8 test 2: every bad shape of a compaction entry ---------------------------------

BAD_COMPACTIONS: dict[str, tuple[Mutation, str, str]] = {
    # name: (mutation, field path, phrase)
    "null parent": (lambda w: w.update(parentId=None), "parentId", "must be a string, not null"),
    "blank goal": (lambda w: w["summary"].update(goal="   "), "summary.goal", "must be a non-blank string"),
    "missing constraints": (lambda w: w["summary"].pop("constraints"), "summary.constraints", "is required"),
    "legacy summary.files": (
        lambda w: w["summary"].update(files=w["summary"].pop("changedFiles")),
        "summary.files",
        "is not a known field",
    ),
    "legacy summary.nextSteps": (
        lambda w: w["summary"].update(nextSteps=w["summary"].pop("next")),
        "summary.nextSteps",
        "is not a known field",
    ),
    "legacy summary.invariants": (
        lambda w: w["summary"].update(invariants=["never rewrite"]),
        "summary.invariants",
        "is not a known field",
    ),
    "entry-level compactedEntryIds": (
        lambda w: w.update(compactedEntryIds=["u1", "a1"]),
        "compactedEntryIds",
        "is not a known field",
    ),
    "missing firstKeptEntryId": (lambda w: w.pop("firstKeptEntryId"), "firstKeptEntryId", "is required"),
    "blank firstKeptEntryId": (
        lambda w: w.update(firstKeptEntryId=""),
        "firstKeptEntryId",
        "must be a non-blank string",
    ),
    "tokensBefore -1": (lambda w: w.update(tokensBefore=-1), "tokensBefore", "must be a number >= 0"),
    "infinite tokensBefore": (lambda w: w.update(tokensBefore=math.inf), "tokensBefore", "must be a finite number"),
    "NaN tokensBefore": (lambda w: w.update(tokensBefore=math.nan), "tokensBefore", "must be a finite number"),
    "NaN timestamp": (lambda w: w.update(timestamp=math.nan), "timestamp", "must be a finite number"),
    "string timestamp": (lambda w: w.update(timestamp="100"), "timestamp", "must be a number"),
    "bool timestamp": (lambda w: w.update(timestamp=True), "timestamp", "must be a number, not a boolean"),
    "bool tokensBefore": (lambda w: w.update(tokensBefore=False), "tokensBefore", "must be a number, not a boolean"),
    "non-string list member": (
        lambda w: w["summary"]["decisions"].__setitem__(1, 7),
        "summary.decisions[1]",
        "must be a string",
    ),
    "null list member": (
        lambda w: w["summary"]["next"].append(None),
        "summary.next[1]",
        "must be a string, not null",
    ),
    "list given as a string": (lambda w: w["summary"].update(completed="done"), "summary.completed", "must be a list"),
}


@pytest.mark.parametrize("case", sorted(BAD_COMPACTIONS))
def test_r1_r2_rejects_each_bad_compaction_shape_naming_id_and_field(case: str) -> None:
    """§8 test 2: each bad shape is a SessionEntryError naming ``compact-1`` and the field path (R1, R2)."""
    mutate, field, phrase = BAD_COMPACTIONS[case]
    error = _rejected(_mutated(compaction_wire, mutate))
    assert str(error) == f"session compaction compact-1.{field} {phrase}"
    assert error.entry_id == "compact-1"
    assert error.path == field


def test_r2_example_message_from_the_spec() -> None:
    """R2's own example, word for word."""
    wire = compaction_wire()
    wire["summary"]["decisions"][1] = 3
    assert str(_rejected(wire)) == "session compaction compact-1.summary.decisions[1] must be a string"


def test_r2_error_without_a_readable_id_names_the_kind_and_field() -> None:
    """R2: 'when one was readable' — a missing id still yields the field path."""
    wire = compaction_wire()
    del wire["id"]
    error = _rejected(wire)
    assert str(error) == "session compaction.id is required"
    assert error.entry_id is None


# --- R1 at every level, for every entry type --------------------------------------------

BAD_SHAPES: list[tuple[str, Callable[[], dict[str, Any]], Mutation, str, str]] = [
    # (case, factory, mutation, entry id, field path)
    ("unknown entry key", user_wire, lambda w: w.update(extra=1), "u1", "extra"),
    ("snake_case key", user_wire, lambda w: w.update(parent_id=w.pop("parentId")), "u1", "parent_id"),
    ("unknown message key", user_wire, lambda w: w["message"].update(name="x"), "u1", "message.name"),
    (
        "unknown text block key",
        user_wire,
        lambda w: w["message"]["content"][0].update(lang="en"),
        "u1",
        "message.content[0].lang",
    ),
    (
        "unknown tool-call key",
        assistant_wire,
        lambda w: w["message"]["content"][1].update(kind="x"),
        "a1",
        "message.content[1].kind",
    ),
    ("unknown usage key", assistant_wire, lambda w: w["message"]["usage"].update(cost=1), "a1", "message.usage.cost"),
    ("unknown metadata key", metadata_wire, lambda w: w.update(note="x"), "meta-1", "note"),
    ("missing message", user_wire, lambda w: w.pop("message"), "u1", "message"),
    ("missing entry timestamp", user_wire, lambda w: w.pop("timestamp"), "u1", "timestamp"),
    ("missing parentId", user_wire, lambda w: w.pop("parentId"), "u1", "parentId"),
    ("string entry timestamp", user_wire, lambda w: w.update(timestamp="1"), "u1", "timestamp"),
    ("bool entry timestamp", tool_result_wire, lambda w: w.update(timestamp=False), "r1", "timestamp"),
    ("infinite entry timestamp", assistant_wire, lambda w: w.update(timestamp=-math.inf), "a1", "timestamp"),
    ("numeric parentId", assistant_wire, lambda w: w.update(parentId=3), "a1", "parentId"),
    ("blank parentId", assistant_wire, lambda w: w.update(parentId=" "), "a1", "parentId"),
    ("string message timestamp", user_wire, lambda w: w["message"].update(timestamp="1"), "u1", "message.timestamp"),
    ("bool usage", assistant_wire, lambda w: w["message"]["usage"].update(input=True), "a1", "message.usage.input"),
    ("negative usage", assistant_wire, lambda w: w["message"]["usage"].update(output=-1), "a1", "message.usage.output"),
    (
        "NaN usage",
        assistant_wire,
        lambda w: w["message"]["usage"].update(totalTokens=math.nan),
        "a1",
        "message.usage.totalTokens",
    ),
    ("bad stopReason", assistant_wire, lambda w: w["message"].update(stopReason="done"), "a1", "message.stopReason"),
    (
        "NaN in tool arguments",
        assistant_wire,
        lambda w: w["message"]["content"][1]["arguments"].update(x=math.nan),
        "a1",
        "message.content[1].arguments.x",
    ),
    (
        "blank tool-call id",
        assistant_wire,
        lambda w: w["message"]["content"][1].update(id=""),
        "a1",
        "message.content[1].id",
    ),
    ("non-object content item", user_wire, lambda w: w["message"]["content"].append("hi"), "u1", "message.content[1]"),
    (
        "missing text block type",
        user_wire,
        lambda w: w["message"]["content"][0].pop("type"),
        "u1",
        "message.content[0].type",
    ),
    (
        "missing result block type",
        tool_result_wire,
        lambda w: w["message"]["content"][0].pop("type"),
        "r1",
        "message.content[0].type",
    ),
    (
        "missing assistant block type",
        assistant_wire,
        lambda w: w["message"]["content"][0].pop("type"),
        "a1",
        "message.content[0].type",
    ),
    (
        "unknown key in assistant text block",
        assistant_wire,
        lambda w: w["message"]["content"][0].update(lang="en"),
        "a1",
        "message.content[0].lang",
    ),
    (
        "text is not a string",
        user_wire,
        lambda w: w["message"]["content"][0].update(text=5),
        "u1",
        "message.content[0].text",
    ),
    ("bool isError as int", tool_result_wire, lambda w: w["message"].update(isError=0), "r1", "message.isError"),
    ("blank toolName", tool_result_wire, lambda w: w["message"].update(toolName=" "), "r1", "message.toolName"),
    (
        "infinite details",
        tool_result_wire,
        lambda w: w["message"]["details"].update(bytes=math.inf),
        "r1",
        "message.details.bytes",
    ),
    ("unknown role", user_wire, lambda w: w["message"].update(role="developer"), "u1", "message.role"),
    ("missing role", user_wire, lambda w: w["message"].pop("role"), "u1", "message.role"),
    ("unknown entry type", user_wire, lambda w: w.update(type="note"), "u1", "type"),
    (
        "numeric section",
        system_wire,
        lambda w: w["message"]["sections"].update(rules=1),
        "sys",
        "message.sections.rules",
    ),
    ("system content list", system_wire, lambda w: w["message"].update(content=["BASE"]), "sys", "message.content"),
    ("blank metadata key", metadata_wire, lambda w: w.update(key=""), "meta-1", "key"),
    ("NaN metadata value", metadata_wire, lambda w: w.update(value=[1, math.nan]), "meta-1", "value[1]"),
    (
        "JSON keys named like JSON kinds",
        tool_result_wire,
        lambda w: w["message"].update(details={"dict": 1, "x": {"y": math.nan}}),
        "r1",
        "message.details.x.y",
    ),
    (
        "JSON keys named like tags",
        metadata_wire,
        lambda w: w.update(value={"list": 1, "float": [1, {"type": "text", "text": math.inf}]}),
        "meta-1",
        "value.float[1].text",
    ),
    (
        "argument named dict",
        assistant_wire,
        lambda w: w["message"]["content"][1].update(arguments={"dict": [math.nan]}),
        "a1",
        "message.content[1].arguments.dict[0]",
    ),
    ("section named str", system_wire, lambda w: w["message"]["sections"].update(str=1), "sys", "message.sections.str"),
    ("missing metadata value", metadata_wire, lambda w: w.pop("value"), "meta-1", "value"),
]


@pytest.mark.parametrize(
    ("factory", "mutate", "entry_id", "field"), [c[1:] for c in BAD_SHAPES], ids=[c[0] for c in BAD_SHAPES]
)
def test_r1_r2_rejects_bad_shapes_at_every_level(
    factory: Callable[[], dict[str, Any]], mutate: Mutation, entry_id: str, field: str
) -> None:
    """R1: unknown keys, missing keys, non-finite numbers, bools and wrong types fail at any depth;
    R2: the message is ``session <type> <id>.<path> …`` with the exact path of the bad field."""
    wire = _mutated(factory, mutate)
    error = _rejected(wire)
    assert error.entry_id == entry_id
    assert error.path == field
    kind = wire["type"] if wire["type"] in ("message", "metadata", "compaction") else "entry"
    assert str(error).startswith(f"session {kind} {entry_id}.{field} ")


def test_r1_user_content_accepts_only_text_blocks() -> None:
    """A tool call belongs to assistant messages; in user content it is refused at that block (R1, R2)."""
    wire = user_wire()
    wire["message"]["content"].append({"type": "toolCall", "id": "c", "name": "n", "arguments": {}})
    error = _rejected(wire)
    assert str(error) == "session message u1.message.content[1].type must be one of 'text', got 'toolCall'"


@pytest.mark.parametrize("value", [None, [], "entry", 3])
def test_r1_rejects_a_non_object_entry(value: Any) -> None:
    with pytest.raises(SessionEntryError, match="must be an object"):
        parse_session_entry(value)


def test_r1_optional_fields_may_be_absent() -> None:
    """Absent optionals (sections, errorMessage, rawArguments, details) are fine; absent is not null on the wire."""
    system = system_wire()
    del system["message"]["sections"]
    result = tool_result_wire()
    del result["message"]["details"]
    for wire in (system, result, assistant_wire()):
        entry = parse_session_entry(wire)
        assert to_json_dict(entry) == wire


def test_r1_root_message_has_null_parent_but_compaction_never_does() -> None:
    assert parse_session_entry(user_wire(parent=None)).parent_id is None
    assert _rejected(compaction_wire(parent=None)).path == "parentId"


# --- round trip and §8 test 1 ------------------------------------------------------------


@pytest.mark.parametrize("factory", ALL_WIRE_FACTORIES, ids=lambda f: f.__name__)
def test_wire_format_round_trips_every_entry_type(factory: Callable[[], dict[str, Any]]) -> None:
    """api.md: ``parse_session_entry(to_json_dict(e)) == e`` and the camelCase keys come back."""
    wire = factory()
    entry = parse_session_entry(wire)
    assert to_json_dict(entry) == wire
    assert parse_session_entry(json.loads(json.dumps(to_json_dict(entry)))) == entry


def test_snake_case_attributes_on_parsed_entries() -> None:
    entry = parse_session_entry(compaction_wire())
    assert isinstance(entry, CompactionEntry)
    assert (entry.parent_id, entry.first_kept_entry_id, entry.tokens_before) == ("a3", "u2", 29)
    assert entry.summary.changed_files == ("context.py",)
    result = parse_session_entry(tool_result_wire())
    assert isinstance(result, MessageEntry)
    assert (result.message.tool_call_id, result.message.is_error) == ("call-1", False)


def test_r3_valid_compaction_parses_to_an_independent_deep_equal_copy() -> None:
    """§8 test 1: mutating the source after parsing, or the result, changes neither."""
    source = compaction_wire()
    before = copy.deepcopy(source)
    entry = parse_session_entry(source)
    assert to_json_dict(entry) == before
    source["summary"]["decisions"].append("smuggled")
    source["summary"]["constraints"][0] = "changed"
    source["summary"]["goal"] = "changed"
    source["tokensBefore"] = 1
    assert to_json_dict(entry) == before
    dumped = to_json_dict(entry)
    dumped["summary"]["next"].clear()
    assert to_json_dict(entry) == before


@pytest.mark.parametrize("factory", ALL_WIRE_FACTORIES, ids=lambda f: f.__name__)
def test_r3_parsed_entry_shares_no_mutable_container_with_its_input(factory: Callable[[], dict[str, Any]]) -> None:
    """R3, checked by object identity: no dict or list is reachable from both input and result."""
    source = factory()
    entry = parse_session_entry(source)
    assert shared_containers(source, entry) == []
    assert shared_containers(entry, parse_session_entry(entry)) == []
    assert shared_containers(entry, to_json_dict(entry)) == []


def test_r3_mutating_parsed_tool_arguments_leaves_the_input_alone() -> None:
    source = assistant_wire()
    entry = parse_session_entry(source)
    call = entry.message.content[1]
    assert isinstance(call, ToolCall)
    call.arguments["lines"].append(3)
    call.arguments["path"] = "b.py"
    assert source == assistant_wire()


def test_r3_parsing_a_parsed_entry_returns_an_independent_copy() -> None:
    entry = parse_session_entry(metadata_wire())
    again = parse_session_entry(entry)
    assert again == entry and again is not entry
    again.value["names"].append("c")
    assert entry.value == {"names": ["a", "b"], "n": 2}


def test_parsed_entries_are_frozen() -> None:
    entry = parse_session_entry(compaction_wire())
    with pytest.raises(Exception):  # noqa: B017,PT011 - pydantic's frozen error
        entry.tokens_before = 1  # type: ignore[misc]  # the frozen model must refuse it
    assert isinstance(entry.summary.decisions, tuple)


@pytest.mark.parametrize("tokens_before", [0, 12.5, 29, 10**12])
def test_r4_tokens_before_is_recorded_as_given(tokens_before: float) -> None:
    """R4: any finite number >= 0 is kept exactly; nothing re-estimates it."""
    wire = compaction_wire()
    wire["tokensBefore"] = tokens_before
    assert parse_session_entry(wire).tokens_before == tokens_before
