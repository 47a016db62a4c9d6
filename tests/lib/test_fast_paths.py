"""The fast paths `make bench` relies on keep the rules: cheap copies (R3, R21, R23) and
JSONL lines parsed straight into the models (R1, R2, R8)."""

from __future__ import annotations

import copy
import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from wire_samples import ALL_WIRE_FACTORIES, assistant_wire, metadata_wire, shared_containers, tool_result_wire

from course_lib import (
    JsonlSessionStore,
    SessionEntryError,
    build_context,
    estimate_tokens_chars,
    parse_session_entry,
    to_json_dict,
)
from course_lib import fixtures as fx
from course_lib.parsing import SHARED_TYPES, fresh_copy

ATOMS = (str, int, float, bool, type(None))


def _cannot_change(annotation: Any) -> bool:
    """True for strings, numbers, literals, and tuples and unions of those."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in ATOMS or origin is typing.Literal:
        return True
    if origin is typing.Annotated:
        return _cannot_change(args[0])
    if origin in (typing.Union, types.UnionType):
        return all(_cannot_change(arg) for arg in args)
    if origin is tuple:
        return all(_cannot_change(arg) for arg in args if arg is not Ellipsis)
    return False


def _all_entries() -> list[Any]:
    wires = [factory() for factory in ALL_WIRE_FACTORIES]
    return [*fx.opening_path(), *fx.resumed_path(), *fx.system_replay_path(), *map(parse_session_entry, wires)]


@pytest.mark.parametrize(
    "model", sorted((t for t in SHARED_TYPES if isinstance(t, type) and issubclass(t, BaseModel)), key=str)
)
def test_r3_shared_models_are_frozen_and_hold_nothing_changeable(model: type[BaseModel]) -> None:
    """``fresh_copy`` shares these models; a dict or list field added later must fail here."""
    assert model.model_config.get("frozen") is True
    for name, field in model.model_fields.items():
        assert _cannot_change(field.annotation), f"{model.__name__}.{name}: {field.annotation}"


def test_r3_the_annotation_check_can_fail() -> None:
    assert not _cannot_change(dict[str, int])
    assert not _cannot_change(tuple[list[str], ...])
    assert not _cannot_change(typing.Annotated[str | list[int], "x"])


@pytest.mark.parametrize("entry", _all_entries(), ids=lambda e: e.id)
def test_r3_fresh_copy_is_deepcopy_equal_and_shares_no_dict_or_list(entry: Any) -> None:
    for value in (entry, getattr(entry, "message", entry)):
        copied = fresh_copy(value)
        assert copied == value == copy.deepcopy(value)
        assert copied is not value and type(copied) is type(value)
        assert copied.model_fields_set == value.model_fields_set
        assert shared_containers(copied, value) == []


def test_r23_changing_a_copied_tool_argument_or_detail_leaves_the_original() -> None:
    call_entry = parse_session_entry(assistant_wire())
    result_entry = parse_session_entry(tool_result_wire())
    copied_call, copied_result = fresh_copy(call_entry), fresh_copy(result_entry)
    copied_call.message.content[1].arguments["lines"].append(3)
    copied_result.message.details["tags"].append("changed")
    assert to_json_dict(call_entry) == assistant_wire()
    assert to_json_dict(result_entry) == tool_result_wire()


def test_r15_r21_estimator_copies_and_returned_messages_are_distinct_objects() -> None:
    seen: list[Any] = []

    def estimator(message: Any) -> int:
        seen.append(message)
        return estimate_tokens_chars(message)

    path = fx.opening_path()
    result = build_context(path, max_tokens=10_000, reserved_output=0, safety_margin=0, estimate_tokens=estimator)
    originals = [entry.message for entry in path]
    assert all(m is not o for m in [*seen, *result.messages] for o in originals)
    assert all(m is not s for m in result.messages for s in seen)


def _open_one(tmp_path: Path, wire: dict[str, Any], old: str, new: str) -> JsonlSessionStore:
    line = json.dumps(wire)
    assert old in line
    target = tmp_path / "session.jsonl"
    target.write_text(line.replace(old, new) + "\n")
    return JsonlSessionStore.open(target)


FREE_JSON_ON_DISK = [
    (metadata_wire(parent=None), '"n": 2', '"n": {}', "session metadata meta-1.value.n"),
    (
        assistant_wire(parent=None),
        '"lines": [1, 2]',
        '"lines": [1, {}]',
        "session message a1.message.content[1].arguments.lines[1]",
    ),
    (tool_result_wire(parent=None), '"bytes": 11', '"bytes": {}', "session message r1.message.details.bytes"),
]


@pytest.mark.parametrize("token", ["1e999", "-1e400"])
@pytest.mark.parametrize(("wire", "old", "new", "where"), FREE_JSON_ON_DISK)
def test_r1_r2_r8_overflowing_number_in_free_json_on_disk_is_refused(
    tmp_path: Path, wire: dict[str, Any], old: str, new: str, where: str, token: str
) -> None:
    """``1e999`` parses to infinity; the fast path must refuse it like the strict parser (R1)."""
    with pytest.raises(SessionEntryError) as info:
        _open_one(tmp_path, wire, old, new.format(token))
    assert str(info.value) == f"line 1: {where} must be a finite number"
    assert info.value.line == 1


@pytest.mark.parametrize("token", ["NaN", "-Infinity"])
@pytest.mark.parametrize(("wire", "old", "new", "where"), FREE_JSON_ON_DISK)
def test_r1_r8_nan_and_infinity_in_free_json_on_disk_are_refused(
    tmp_path: Path, wire: dict[str, Any], old: str, new: str, where: str, token: str
) -> None:
    with pytest.raises(SessionEntryError) as info:
        _open_one(tmp_path, wire, old, new.format(token))
    assert str(info.value) == f"line 1: not valid JSON ({token} is not a finite JSON number)"


def test_r9_values_read_straight_from_json_equal_the_strict_parser(tmp_path: Path) -> None:
    wires = [factory() for factory in ALL_WIRE_FACTORIES]
    wires[1]["message"]["content"][1]["arguments"] = {"big": 10**30, "float": 2.5, "deep": [{"x": None, "y": True}]}
    for parent, wire in zip([None, *wires], wires):
        wire["parentId"] = parent and parent["id"]  # a chain, so the tree rules hold too (R7)
    target = tmp_path / "session.jsonl"
    target.write_text("".join(json.dumps(wire) + "\n" for wire in wires))
    assert JsonlSessionStore(target).read().entries == [parse_session_entry(w) for w in wires]


def test_r2_negative_fraction_keeps_the_nonnegative_message() -> None:
    wire = assistant_wire()
    wire["message"]["usage"]["input"] = -0.5
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(wire)
    assert str(info.value) == "session message a1.message.usage.input must be a number >= 0"
