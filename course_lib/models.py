"""The session's typed, immutable models and their camelCase wire format (R1–R4).

Every model is strict (R1): unknown keys are refused, numbers must be finite and
bools are not numbers. Models are frozen and their lists are tuples, so a parsed
entry can be shared safely; the only mutable parts are free-form JSON values
(tool arguments, details, metadata values, sections), which is why the public
functions hand out deep copies.

Python attributes are snake_case; the wire keys are the chapter's camelCase
aliases, and only the aliases are accepted when parsing wire data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StringConstraints,
    Tag,
    model_serializer,
)
from pydantic.alias_generators import to_camel
from pydantic_core import CoreSchema, core_schema
from typing_extensions import TypeAliasType


def _as_tuple(value: Any) -> Any:
    """Lists arrive as JSON arrays; only lists and tuples are sequences on the wire (R1)."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    raise ValueError("must be a list")


Text = Annotated[str, StringConstraints(pattern="")]
"""Any string UTF-8 can hold. The empty pattern matches everything, but pydantic-core
checks it on a UTF-8 copy of the string, so a lone surrogate such as ``"\\ud800"`` is
refused when parsed (R1, R9): a store could neither write it nor read it back."""

NonBlankStr = Annotated[str, StringConstraints(pattern=r"\S")]
"""A string with at least one non-whitespace character (ids, goal, key, tool names);
like ``Text`` it refuses a lone surrogate."""

LARGEST_FINITE_INT = 2**1024 - 2**970 - 1
"""R1 "numbers must be finite" as the chapter's TypeScript reference sees them: its
``JSON.parse`` reads an integer as the nearest double, ``Infinity`` from 2**1024 - 2**970
on (the halfway point past ``sys.float_info.max``). Up to this bound an integer is finite."""

FiniteInt = Annotated[int, Field(ge=-LARGEST_FINITE_INT, le=LARGEST_FINITE_INT)]

Number = FiniteInt | float
"""A finite JSON number; the models' config refuses NaN, infinities and bools."""

NonNegative = Annotated[int, Field(ge=0, le=LARGEST_FINITE_INT)] | Annotated[float, Field(ge=0)]
"""A finite number >= 0. The bounds sit on each member so pydantic-core checks them natively;
on the union ``int | float`` it would call a Python validator for every value."""

_EXACT_KINDS = {kind: kind.__name__ for kind in (bool, int, float, str, list, dict, type(None))}


def _json_kind(value: Any) -> str:
    """The tag of a Python value in ``_FiniteJsonFromPython``: the JSON kind it stands for.

    It runs once per free JSON value (every tool argument an importer carries over),
    so a value of exactly one of the JSON types is one dict lookup; a subclass
    (``bool`` is one of ``int``) is told by the checks below, in that order.
    """
    exact = _EXACT_KINDS.get(type(value))
    if exact is not None:
        return exact
    for kind in (bool, int, float, str, list, dict):  # bool first: it is an int subclass
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


if TYPE_CHECKING:  # a type checker cannot follow a type that refers to itself; to it, free JSON is Any
    _FiniteJson = Any
    _FiniteJsonFromPython = Any
else:  # pydantic can: the two schemas below, never annotations
    _FiniteJson = TypeAliasType(
        "_FiniteJson", bool | FiniteInt | float | Text | list["_FiniteJson"] | dict[Text, "_FiniteJson"] | None
    )
    # Pydantic's ``JsonValue`` for Python input, with the course's strings and numbers: a tag per kind keeps a
    # refusal's field path short and its wording ours (R2).
    _FiniteJsonFromPython = TypeAliasType(
        "_FiniteJsonFromPython",
        Annotated[
            Annotated[list["_FiniteJsonFromPython"], Tag("list")]
            | Annotated[dict[Text, "_FiniteJsonFromPython"], Tag("dict")]
            | Annotated[Text, Tag("str")]
            | Annotated[bool, Tag("bool")]
            | Annotated[FiniteInt, Tag("int")]
            | Annotated[float, Tag("float")]
            | Annotated[None, Tag("NoneType")],
            Discriminator(_json_kind, custom_error_type="invalid-json-value", custom_error_message="not a JSON value"),
        ],
    )


class _FreeJson:
    """Free JSON values keep R1 on both ways in: JSON text is checked against a plain union
    (fast on the JSONL path, NaN and ``1e999`` included), Python input against the tagged one."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.json_or_python_schema(
            json_schema=handler.generate_schema(_FiniteJson),
            python_schema=handler.generate_schema(_FiniteJsonFromPython),
        )


JsonData = Annotated[Any, _FreeJson]
"""Any finite JSON value: a free-form field (tool arguments, details, metadata values)."""


class _ListOrTuple:
    """Python input must be a list or tuple (R1); JSON text can only hold arrays here,
    so the JSONL fast path skips the Python-level check."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        sequence = handler(source)
        return core_schema.json_or_python_schema(
            json_schema=sequence,
            python_schema=core_schema.no_info_before_validator_function(_as_tuple, sequence),
        )


_Item = TypeVar("_Item")

Items = Annotated[tuple[_Item, ...], Field(strict=False), _ListOrTuple]
"""An immutable sequence field, ``Items[TextBlock]``: a list or tuple on input, a tuple in the model
(a generic alias, so a type checker sees the tuple)."""


def Seq(item: Any) -> Any:
    """``Items[item]`` as a call, the spelling Lab 11.1 teaches: ``constraints: Seq(str)``."""
    return Items[item]


class WireModel(BaseModel):
    """Base for every model: strict, frozen, camelCase on the wire, absent optionals omitted."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=True,
        allow_inf_nan=False,
        serialize_by_alias=True,
    )

    @model_serializer(mode="wrap")
    def _omit_absent_optionals(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        """The wire format omits an optional field rather than writing ``null``, as the chapter's files do."""
        data = handler(self)
        if isinstance(data, dict):
            for name, field in type(self).model_fields.items():
                if getattr(self, name) is None and not field.is_required() and field.default is None:
                    data.pop(field.alias if info.by_alias and field.alias else name, None)
        return data


# --- content blocks ---------------------------------------------------------------


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: Text


class ToolCall(WireModel):
    type: Literal["toolCall"] = "toolCall"
    id: NonBlankStr
    name: NonBlankStr
    arguments: dict[Text, JsonData]
    raw_arguments: Text | None = None


AssistantContent = Annotated[TextContent | ToolCall, Field(discriminator="type")]

TextBlock = Annotated[TextContent, Field(discriminator="type")]
"""A text block as a one-member tagged union: ``type`` is required on the wire (R1),
while Python code may still write ``TextContent(text=...)``."""


class Usage(WireModel):
    input: NonNegative
    output: NonNegative
    total_tokens: NonNegative


# --- agent messages ---------------------------------------------------------------


class SystemMessage(WireModel):
    role: Literal["system"] = "system"
    content: Text
    sections: dict[Text, Text | None] | None = None
    timestamp: Number


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: Items[TextBlock]
    timestamp: Number


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: Items[AssistantContent]
    provider: Text
    model: Text
    usage: Usage
    stop_reason: StopReason
    error_message: Text | None = None
    timestamp: Number


class ToolResultMessage(WireModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: NonBlankStr
    tool_name: NonBlankStr
    content: Items[TextBlock]
    details: JsonData = None
    is_error: bool
    timestamp: Number


AgentMessage = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage,
    Field(discriminator="role"),
]


# --- session entries --------------------------------------------------------------


class MessageEntry(WireModel):
    type: Literal["message"] = "message"
    id: NonBlankStr
    parent_id: NonBlankStr | None
    timestamp: Number
    message: AgentMessage


class MetadataEntry(WireModel):
    type: Literal["metadata"] = "metadata"
    id: NonBlankStr
    parent_id: NonBlankStr | None
    timestamp: Number
    key: NonBlankStr
    value: JsonData


class CompactionSummary(WireModel):
    """The seven fields, always in this order (R1)."""

    goal: NonBlankStr
    constraints: Items[Text]
    completed: Items[Text]
    decisions: Items[Text]
    changed_files: Items[Text]
    unresolved: Items[Text]
    next: Items[Text]


class CompactionEntry(WireModel):
    """A summary appended to the session; ``parent_id`` is never null (R1)."""

    type: Literal["compaction"] = "compaction"
    id: NonBlankStr
    parent_id: NonBlankStr
    timestamp: Number
    summary: CompactionSummary
    first_kept_entry_id: NonBlankStr
    tokens_before: NonNegative


SessionEntry = Annotated[
    MessageEntry | MetadataEntry | CompactionEntry,
    Field(discriminator="type"),
]
