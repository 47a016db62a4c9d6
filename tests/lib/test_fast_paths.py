"""The fast paths `make bench` relies on keep the rules: cheap copies (R3, R21, R23).

The fast reader's (JSONL lines parsed straight into the models, R1, R2, R8) are held to the
plain store's reading by tests/lib/reader/test_reader_contract.py."""

from __future__ import annotations

import copy
import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel
from wire_samples import ALL_WIRE_FACTORIES, assistant_wire, shared_containers, tool_result_wire

from course_lib import (
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


def test_r2_negative_fraction_keeps_the_nonnegative_message() -> None:
    wire = assistant_wire()
    wire["message"]["usage"]["input"] = -0.5
    with pytest.raises(SessionEntryError) as info:
        parse_session_entry(wire)
    assert str(info.value) == "session message a1.message.usage.input must be a number >= 0"
