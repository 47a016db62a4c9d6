"""Copies cost only what can change, and still keep every promise (R3, R7, R10, R13, R15, R21, R23, R28).

``fresh_copy`` shares the immutable parts of frozen models and copies only the dicts
and lists of free JSON. These tests try every ordinary mutation (assigning an
attribute, which a frozen model refuses, and changing every dict and list that can
be reached) through every way the package hands an object out, and check that the
session, and every other object handed out, stays as it was; and that a handed-out
object is never the one the session keeps. (The fast reader, ``course_lib.reader``, is
held to the same promises by tests/lib/reader/test_reader_contract.py.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from wire_samples import (
    assistant_wire,
    compaction_wire,
    metadata_wire,
    mutable_containers,
    system_wire,
    tool_result_wire,
    user_wire,
)

from course_lib import (
    AssistantMessage,
    InMemorySessionStore,
    JsonlSessionStore,
    MessageEntry,
    build_context,
    create_compaction_entry,
    estimate_tokens_chars,
    group_interactions,
    models,
    parse_session_entry,
    path_to,
    recover_jsonl,
    to_json_dict,
)
from course_lib.parsing import changeable_fields, fresh_copy

LEAF = "r3"
BUDGET = {"max_tokens": 10_000, "reserved_output": 0, "safety_margin": 0}


def session_wire() -> list[dict[str, Any]]:
    """One chain with every changeable leaf: sections, tool arguments, tool details, a metadata value."""
    return [
        system_wire("sys", None),
        user_wire("u1", "sys"),
        assistant_wire("a1", "u1"),
        tool_result_wire("r1", "a1"),
        user_wire("u2", "r1"),
        assistant_wire("a2", "u2"),
        tool_result_wire("r2", "a2"),
        metadata_wire("meta-1", "r2"),
        compaction_wire("compact-1", "meta-1"),
        user_wire("u3", "compact-1"),
        assistant_wire("a3", "u3"),
        tool_result_wire(LEAF, "a3"),
    ]


def mutate_everything(value: Any) -> int:
    """Every ordinary change to ``value``: attributes (refused: frozen) and every dict and list in it."""
    changed = 0
    for node in _models(value):
        name = next(iter(type(node).model_fields))
        with pytest.raises(ValidationError):
            setattr(node, name, "changed")
    for container in mutable_containers(value).values():
        if isinstance(container, dict):
            container["smuggled"] = ["in"]
        else:
            container.append("smuggled")
        changed += 1
    return changed


def _models(value: Any) -> list[BaseModel]:
    found: list[BaseModel] = []

    def walk(node: Any) -> None:
        if isinstance(node, BaseModel):
            found.append(node)
            for name in type(node).model_fields:
                walk(getattr(node, name))
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)

    walk(value)
    return found


def write_session(tmp_path: Path) -> Path:
    target = tmp_path / "session.jsonl"
    target.write_text("".join(json.dumps(wire) + "\n" for wire in session_wire()))
    return target


def memory_store() -> InMemorySessionStore:
    store = InMemorySessionStore()
    for wire in session_wire():
        store.append(wire)
    return store


def jsonl_appended(tmp_path: Path) -> JsonlSessionStore:
    store = JsonlSessionStore(tmp_path / "appended.jsonl", fsync=False)
    for wire in session_wire():
        store.append(wire)
    return store


HANDED_OUT: dict[str, Callable[[Path], tuple[Callable[[], list[Any]], Callable[[], Any]]]] = {
    # name -> (setup) -> (hand out a list of objects, read the session as the truth)
    "memory entries()": lambda tmp: (lambda s=memory_store(): (s.entries, s.entries))(),
    "memory path_to()": lambda tmp: (lambda s=memory_store(): (lambda: s.path_to(LEAF), s.entries))(),
    "jsonl entries() of appended": lambda tmp: (lambda s=jsonl_appended(tmp): (s.entries, s.entries))(),
    "jsonl first open entries()": lambda tmp: (
        lambda p=write_session(tmp): (lambda s=JsonlSessionStore.open(p): (s.entries, s.entries))()
    )(),
    "jsonl first open path_to()": lambda tmp: (
        lambda p=write_session(tmp): (lambda s=JsonlSessionStore.open(p): (lambda: s.path_to(LEAF), s.entries))()
    )(),
    "jsonl read()": lambda tmp: (
        lambda p=write_session(tmp): (lambda s=JsonlSessionStore.open(p): (lambda: s.read().entries, s.entries))()
    )(),
    "recover_jsonl()": lambda tmp: (
        lambda text="".join(json.dumps(w) + "\n" for w in session_wire()): (
            lambda: recover_jsonl(text).entries,
            lambda: recover_jsonl(text).entries,
        )
    )(),
}


@pytest.mark.parametrize("name", list(HANDED_OUT))
def test_r3_r7_r10_every_mutation_of_a_handed_out_entry_leaves_the_session(name: str, tmp_path: Path) -> None:
    hand_out, session = HANDED_OUT[name](tmp_path)
    before = to_json_dict(session())
    assert before == session_wire()
    first, second = hand_out(), hand_out()
    kept = session()
    assert all(a is not b for a, b in zip(first, second)) and all(a is not k for a, k in zip(first, kept))
    assert sum(mutate_everything(entry) for entry in first) >= 8  # sections, arguments (x2), details (x2), value (x2)
    assert to_json_dict(session()) == before  # the session
    assert to_json_dict(second) == before  # and every other object handed out


@pytest.mark.parametrize("kind", ["memory", "jsonl"])
def test_r3_r7_what_append_returns_is_not_what_the_store_keeps(kind: str, tmp_path: Path) -> None:
    store = InMemorySessionStore() if kind == "memory" else JsonlSessionStore(tmp_path / "a.jsonl", fsync=False)
    wires = session_wire()
    returned = [store.append(wire) for wire in wires]
    assert sum(mutate_everything(wire) for wire in wires) >= 8  # the caller's input, after the append
    assert sum(mutate_everything(entry) for entry in returned) >= 8  # and what append handed back
    assert to_json_dict(store.entries()) == session_wire()
    assert all(a is not b for a, b in zip(returned, store.entries()))


def test_r10_r13_path_to_and_groups_are_copies_whatever_is_changed() -> None:
    entries = [parse_session_entry(wire) for wire in session_wire()]
    before = to_json_dict(entries)
    path = path_to(entries, LEAF)
    groups = group_interactions([entry for entry in entries if entry.type == "message"])
    assert all(a is not b for a, b in zip(path, entries))
    assert sum(mutate_everything(entry) for entry in path) >= 8
    assert sum(mutate_everything(group.entries) for group in groups) >= 7
    assert to_json_dict(entries) == before


def test_r15_r21_r23_estimator_copies_and_results_can_be_changed_without_effect() -> None:
    path = [parse_session_entry(wire) for wire in session_wire()]
    before = to_json_dict(path)
    seen: list[Any] = []

    def meddling(message: Any) -> int:
        seen.append(message)
        cost = estimate_tokens_chars(message)
        mutate_everything(message)
        return cost

    first = build_context(path, estimate_tokens=meddling, **BUDGET)
    again = build_context(path, estimate_tokens=estimate_tokens_chars, **BUDGET)
    assert to_json_dict(first) == to_json_dict(again)  # the estimator's changes reached nothing
    originals = {id(entry.message) for entry in path if entry.type == "message"}
    assert not originals & {id(m) for m in [*seen, *first.messages]}
    assert not {id(m) for m in seen} & {id(m) for m in first.messages}
    wire = to_json_dict(again)
    assert sum(mutate_everything(message) for message in first.messages) >= 3  # sections, arguments, details
    assert to_json_dict(path) == before
    assert to_json_dict(build_context(path, estimate_tokens=estimate_tokens_chars, **BUDGET)) == wire
    assert to_json_dict(again) == wire


def test_r28_create_compaction_entry_shares_nothing_with_its_input_or_the_path() -> None:
    path = [parse_session_entry(wire) for wire in session_wire()]
    before = to_json_dict(path)
    summary = compaction_wire()["summary"]
    entry = create_compaction_entry(
        path, id="compact-2", timestamp=200, summary=summary, first_kept_entry_id="u3", tokens_before=12
    )
    expected = to_json_dict(entry)
    mutate_everything(summary)
    mutate_everything(entry)
    assert to_json_dict(entry) == expected and to_json_dict(path) == before


def test_r3_parse_session_entry_on_a_parsed_entry_is_an_independent_copy() -> None:
    for wire in session_wire():
        entry = parse_session_entry(wire)
        again = parse_session_entry(entry)
        assert again == entry and again is not entry
        mutate_everything(again)
        assert to_json_dict(entry) == wire


# --- what the copies share, and why that is safe -------------------------------------------


def test_r3_changeable_fields_are_read_from_the_annotations() -> None:
    """Only free JSON can change; the models around it are rebuilt, everything else is shared."""
    assert {
        model.__name__: changeable_fields(model)
        for model in (
            models.TextContent,
            models.ToolCall,
            models.Usage,
            models.SystemMessage,
            models.UserMessage,
            models.AssistantMessage,
            models.ToolResultMessage,
            models.MessageEntry,
            models.MetadataEntry,
            models.CompactionSummary,
            models.CompactionEntry,
        )
    } == {
        "TextContent": (),
        "ToolCall": ("arguments",),
        "Usage": (),
        "SystemMessage": ("sections",),
        "UserMessage": (),
        "AssistantMessage": ("content",),
        "ToolResultMessage": ("details",),
        "MessageEntry": ("message",),
        "MetadataEntry": ("value",),
        "CompactionSummary": (),
        "CompactionEntry": (),
    }


def test_r3_a_copy_shares_the_immutable_parts_and_rebuilds_the_way_to_free_json() -> None:
    entry = parse_session_entry(assistant_wire())
    copied = fresh_copy(entry)
    assert isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage)
    text, call = entry.message.content
    assert copied is not entry and copied.message is not entry.message
    assert copied.message.content[0] is text  # a frozen text block cannot change: shared
    assert copied.message.usage is entry.message.usage
    assert copied.message.content[1] is not call and copied.message.content[1].arguments is not call.arguments
    user = parse_session_entry(user_wire())
    assert fresh_copy(user).message is user.message  # nothing in a user message can change
    assert fresh_copy(user.message) is not user.message  # but what is handed out is always new


def test_r3_a_dict_subclass_or_odd_value_in_free_json_is_still_copied() -> None:
    """``marshal`` copies exactly the JSON kinds; anything else goes to ``copy.deepcopy``."""

    class Tagged(dict[str, Any]):
        pass

    entry = parse_session_entry(metadata_wire())
    odd = entry.model_copy(update={"value": Tagged(names=["a"])})
    copied = fresh_copy(odd)
    assert type(copied.value) is Tagged and copied.value == odd.value and copied.value is not odd.value
    copied.value["names"].append("b")
    assert odd.value == {"names": ["a"]}


@pytest.mark.parametrize(
    "value",
    [
        {"path": "a.py", "offset": 1, "limit": 2.5, "dry": False, "note": None},  # flat: copied by dict.copy()
        ["a", 1, 2.5, True, None],  # flat list
        {"path": "a.py", "lines": [1, 2]},  # nested: marshal
        [{"a": 1}, [2]],
    ],
    ids=["flat-dict", "flat-list", "nested-dict", "nested-list"],
)
def test_r3_free_json_flat_or_nested_is_a_new_container_that_shares_no_container(value: Any) -> None:
    copied = fresh_copy(value)
    assert copied == value and type(copied) is type(value) and copied is not value
    inner = [item for item in (value.values() if isinstance(value, dict) else value) if isinstance(item, (dict, list))]
    copied_inner = [
        item for item in (copied.values() if isinstance(copied, dict) else copied) if isinstance(item, (dict, list))
    ]
    assert all(a is not b for a, b in zip(inner, copied_inner)) and len(inner) == len(copied_inner)


def test_r3_a_flat_dict_with_a_key_that_is_not_a_string_is_copied_deeply() -> None:
    """Only string keys make a dict flat: another hashable key (a custom parser may build one) can
    hold state, so the copy does not share it."""

    class Key:
        def __init__(self) -> None:
            self.state = ["a"]

    key = Key()
    copied = fresh_copy({key: 1})
    (copied_key,) = copied
    assert copied_key is not key and copied_key.state == ["a"] and copied_key.state is not key.state
