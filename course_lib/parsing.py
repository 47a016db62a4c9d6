"""The strict entry parser and the wire format (R1–R4).

``parse_session_entry`` is the single door into a session: both stores and
``create_compaction_entry`` take their snapshots through it, so a bad fact is
refused before it can reach a budget. Its errors name the entry id and the
field path (R2).
"""

from __future__ import annotations

import copy
import functools
import marshal
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, TypeVar, Union

from pydantic import BaseModel, TypeAdapter, ValidationError

from .errors import SessionEntryError, quoted, shorten
from .models import LARGEST_FINITE_INT, CompactionSummary, SessionEntry, TextContent, Usage

T = TypeVar("T")

ENTRY_ADAPTER: TypeAdapter[SessionEntry] = TypeAdapter(SessionEntry)
ENTRY_TYPES = ("message", "metadata", "compaction")


def parse_session_entry(value: Mapping[str, Any] | BaseModel) -> SessionEntry:
    """Parse one wire-format entry strictly into a new, independent model (R1–R4).

    An already-parsed entry is accepted too and comes back as an independent copy.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, Mapping):
        raise SessionEntryError(f"session entry must be an object, got {type(value).__name__}", path="")
    try:
        return ENTRY_ADAPTER.validate_python(value, by_alias=True, by_name=False)
    except ValidationError as exc:
        raise session_entry_error(exc, value) from None


def to_json_dict(value: Any) -> Any:
    """Any model (or list/dict of models) as plain JSON-ready data in the camelCase wire format."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, (list, tuple)):
        return [to_json_dict(item) for item in value]
    if isinstance(value, Mapping):
        return {key: to_json_dict(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        return [to_json_dict(item) for item in value]  # any other sequence: a reader's lazy entries, say
    return value


SHARED_TYPES = frozenset({str, int, float, bool, type(None), TextContent, Usage, CompactionSummary})
"""Values a copy may share: they cannot change. The three models are frozen and hold
only strings, numbers and tuples of strings (tests/lib/test_fast_paths.py keeps it so)."""

_ATOMS = frozenset({str, int, float, bool, type(None)})
_JSON_CONTAINERS = (dict, list)


def fresh_copy(value: T) -> T:
    """A new object that shares nothing a caller could change with ``value`` (R3, R7, R13, R15, R21).

    Models are frozen and their lists are tuples, so a change can only travel
    through a dict or list inside a free-form JSON field (tool arguments,
    details, sections, metadata values). The copy costs only those: the object
    handed out is always new, every model or tuple on the way to such a dict or
    list is rebuilt, the dicts and lists are copied, and every other part (a text
    block, usage, a summary, a user message inside an entry) is shared, because
    it cannot change (``changeable_fields`` says which fields can).
    """
    if isinstance(value, BaseModel):
        return copy_model(value)
    return _copy_part(value)


@functools.cache
def changeable_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` whose value can hold a dict or a list, at any depth (R3).

    Read from the annotations, so a field added later is copied unless its type
    is an immutable one (strings, numbers, literals, tuples, frozen models of those).
    """
    return tuple(name for name, field in model.model_fields.items() if _may_change(field.annotation))


def _may_change(annotation: Any) -> bool:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in _ATOMS or origin is Literal:
        return False
    if origin is Annotated:
        return _may_change(args[0])
    if origin in (Union, types.UnionType) or origin is tuple:
        return any(_may_change(arg) for arg in args if arg is not Ellipsis)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        frozen = annotation.model_config.get("frozen") is True and annotation.model_config.get("extra") != "allow"
        return not frozen or bool(changeable_fields(annotation))
    return True  # dict, list, Any: free JSON


_PLANS: dict[type, tuple[str, ...]] = {}
"""``changeable_fields`` of each model class met so far, looked up without hashing arguments."""

_new = object.__new__
_set = object.__setattr__


def copy_model(model: Any, may_share: bool = False) -> Any:
    """``fresh_copy`` of a model, for callers that know it is one (``build_context``'s estimates):
    its changeable parts copied, the rest shared. With ``may_share`` (a part inside a copy)
    a model with nothing changeable is returned itself."""
    kind: type[BaseModel] = type(model)
    plan = _PLANS.get(kind)
    if plan is None:
        plan = _PLANS[kind] = changeable_fields(kind)
    fields = model.__dict__
    copied: dict[str, Any] | None = None
    for name in plan:
        item = fields[name]
        if type(item) in _ATOMS:
            continue
        fresh = _copy_part(item)
        if fresh is not item:
            if copied is None:
                copied = fields.copy()
            copied[name] = fresh
    if copied is None:
        if may_share:
            return model
        copied = fields.copy()
    if model.__pydantic_extra__ or model.__pydantic_private__:
        return copy.deepcopy(model)  # state outside the fields: not worth a special case
    clone = _new(kind)  # what pydantic's __copy__ does, for the few attributes a frozen model has
    _set(clone, "__dict__", copied)
    _set(clone, "__pydantic_fields_set__", model.__pydantic_fields_set__.copy())
    _set(clone, "__pydantic_extra__", None)
    _set(clone, "__pydantic_private__", None)
    return clone


def _copy_part(value: Any) -> Any:
    """``value`` itself when nothing in it can change, else a copy of it (dicts and lists always)."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    plan = _PLANS.get(kind)
    if plan is not None:  # a model class met before
        return copy_model(value, True) if plan else value
    if kind is dict or kind is list:
        return _copy_json(value)
    if kind is tuple:
        for position, item in enumerate(value):
            fresh = item if type(item) in _ATOMS or _PLANS.get(type(item)) == () else _copy_part(item)
            if fresh is not item:
                return (*value[:position], fresh, *map(_copy_part, value[position + 1 :]))
        return value
    if isinstance(value, BaseModel):
        return copy_model(value, True)
    return copy.deepcopy(value)  # anything else, subclasses of dict or tuple included


def _copy_json(value: dict[Any, Any] | list[Any]) -> Any:
    """A free JSON value rebuilt: a flat one (every key a string, every value a string,
    number, bool or null: most tool arguments and details) by its own ``copy()``, since
    nothing in it can change; a nested one in C by ``marshal``, which knows exactly the
    JSON kinds (and tuples) and refuses anything else (a subclass, an object), which
    ``copy.deepcopy`` then copies."""
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str or type(item) not in _ATOMS:
                break
        else:
            return value.copy()
    else:
        for item in value:
            if type(item) not in _ATOMS:
                break
        else:
            return value.copy()
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return copy.deepcopy(value)


# --- error messages (R2) --------------------------------------------------------


def session_entry_error(
    exc: ValidationError, value: Any, *, line: int | None = None, subject: str | None = None
) -> SessionEntryError:
    """Turn pydantic's report into one sentence naming the entry id and the field path (R2).

    Example: ``session compaction compact-1.summary.decisions[1] must be a string``.
    """
    # An unknown key (say a legacy alias) explains a missing one better than the reverse.
    errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] != "extra_forbidden")
    entry_id = _readable_id(value)
    kind = value.get("type") if isinstance(value, Mapping) else None
    kind = kind if kind in ENTRY_TYPES else "entry"
    first_path = _data_path(errors[0], value)
    at_first = [e for e in errors if _data_path(e, value) == first_path]
    field = _format_path(first_path)
    if subject is None:
        subject = f"session {kind} {shorten(entry_id)}" if entry_id else f"session {kind}"
    where = f"{subject}.{shorten(field)}" if field else subject
    prefix = f"line {line}: " if line is not None else ""
    return SessionEntryError(f"{prefix}{where} {_phrase(at_first)}", entry_id=entry_id, path=field, line=line)


def _readable_id(value: Any) -> str | None:
    raw = value.get("id") if isinstance(value, Mapping) else None
    return raw if isinstance(raw, str) and raw.strip() else None


_UNION_TAGS = frozenset({*ENTRY_TYPES, "system", "user", "assistant", "toolResult", "text", "toolCall"})
_JSON_TAGS = frozenset({"dict", "list", "str", "int", "float", "bool"})
_FREE_FIELDS = {"arguments": "json", "details": "json", "value": "json", "sections": "sections"}
"""Model fields holding free data: JSON values, or a plain dict of section strings."""


def _data_path(error: Mapping[str, Any], value: Any) -> tuple[str | int, ...]:
    """Pydantic's ``loc`` with union tags and member names dropped, so it matches the input.

    Pydantic puts a tag in ``loc`` before descending into a tagged union (an entry's
    ``type``, a message's ``role``, a block's ``type``; never last) and before the
    contents of a free JSON value (``dict``, ``list``, ``float``, …). A tag is not a
    key: reading the tag ``message`` as one would blame the entry's ``message`` for a
    bad ``timestamp`` of the entry itself (R2).
    """
    path: list[str | int] = []
    node = value
    loc = error["loc"]
    model_tag_next = True  # at a model node whose union tag has not been skipped yet
    json_tag_next = False  # at a free JSON value whose kind tag comes next
    region = "model"  # "model", "json" (free JSON) or "sections" (plain dict of strings)
    for position, part in enumerate(loc):
        if json_tag_next and part in _JSON_TAGS:
            json_tag_next = False
            continue
        is_model_tag = (
            model_tag_next
            and region == "model"
            and position < len(loc) - 1
            and isinstance(node, Mapping)
            and part in _UNION_TAGS
            and part in (node.get("type"), node.get("role"))
        )
        model_tag_next = json_tag_next = False
        if is_model_tag:
            continue
        if isinstance(node, Mapping) and part in node:
            if region == "model" and part in _FREE_FIELDS:
                region = _FREE_FIELDS[part]
                json_tag_next = part in ("details", "value")  # ``arguments`` is a plain dict of JSON values
            else:
                json_tag_next = region == "json"
            path.append(part)
            node = node[part]
            model_tag_next = True
        elif isinstance(node, (list, tuple)) and isinstance(part, int) and 0 <= part < len(node):
            json_tag_next = region == "json"
            path.append(part)
            node = node[part]
            model_tag_next = True
        elif position == len(loc) - 1 and error["type"] == "missing":
            path.append(part)
        elif part == "[key]":
            path.append(part)  # pydantic's marker: the key just named is at fault, not its value
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        path.append(str(error.get("ctx", {}).get("discriminator", "type")).strip("'"))
    return tuple(path)


def _format_path(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        if part == "[key]":
            text += " key"
        else:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _phrase(errors: Sequence[Mapping[str, Any]]) -> str:
    """Pydantic's error kinds in the course's words; never its own wording (R2)."""
    kinds = {e["type"] for e in errors}
    first = errors[0]
    given = first.get("input")
    ctx = first.get("ctx") or {}
    if "missing" in kinds:
        return "is required"
    if "extra_forbidden" in kinds:
        return "is not a known field"
    if "recursion_depth_exceeded" in kinds:
        return "nests too deeply"
    if "string_unicode" in kinds:
        return "holds a lone surrogate, which UTF-8 cannot store"
    if "finite_number" in kinds or _beyond_double_range(errors):
        return "must be a finite number"
    if "greater_than_equal" in kinds:
        return "must be a number >= 0"
    if kinds <= {"int_type", "float_type"}:
        return "must be a number, not a boolean" if isinstance(given, bool) else "must be a number"
    if "string_pattern_mismatch" in kinds:
        return "must be a non-blank string"
    if "string_type" in kinds:
        return "must be a string, not null" if given is None else "must be a string"
    if "bool_type" in kinds:
        return "must be a boolean"
    if "literal_error" in kinds:
        return f"must be {ctx.get('expected')}"
    if "union_tag_invalid" in kinds:
        return f"must be one of {ctx.get('expected_tags')}, got {quoted(ctx.get('tag'))}"
    if "union_tag_not_found" in kinds:
        return "is required"
    if kinds & {"model_type", "dict_type", "model_attributes_type"}:
        return "must be an object"
    if kinds & {"tuple_type", "list_type"} or "must be a list" in str(first.get("msg")):
        return "must be a list"
    if "invalid-json-value" in kinds:
        return "must be a JSON value"
    return "is not allowed here"


def _beyond_double_range(errors: Sequence[Mapping[str, Any]]) -> bool:
    """An integer past the bounds ``FiniteInt`` sets: not finite as a JSON number (R1)."""
    return any(
        e["type"] in ("less_than_equal", "greater_than_equal")
        and isinstance(e.get("input"), int)
        and abs(e["input"]) > LARGEST_FINITE_INT
        for e in errors
    )
