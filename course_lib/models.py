"""The session's typed, immutable models and their camelCase wire format (spec §1).

Every model is strict (R1): unknown keys are refused, numbers must be finite and
bools are not numbers. Models are frozen and their lists are tuples, so a parsed
entry can be shared safely; the only mutable parts are free-form JSON values
(tool arguments, details, metadata values, sections), which is why the public
functions hand out deep copies.

Python attributes are snake_case; the wire keys are the chapter's camelCase
aliases, and only the aliases are accepted when parsing wire data.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    JsonValue,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StringConstraints,
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


NonBlankStr = Annotated[str, StringConstraints(pattern=r"\S")]
"""A string with at least one non-whitespace character (ids, goal, key, tool names)."""

Number = int | float
"""A finite JSON number; the models' config refuses NaN, infinities and bools."""

NonNegative = Union[Annotated[int, Field(ge=0)], Annotated[float, Field(ge=0)]]
"""A finite number >= 0. The bound sits on each member so pydantic-core checks it natively;
on the union ``int | float`` it would call a Python validator for every value."""

_FiniteJson = TypeAliasType(
    "_FiniteJson", Union[None, bool, int, float, str, list["_FiniteJson"], dict[str, "_FiniteJson"]]
)


class _FiniteWhenReadFromJson:
    """Reading JSON text, pydantic's ``JsonValue`` keeps whatever the parser made, even
    ``NaN`` or ``1e999`` (an infinite float). This checks such values like any other
    number (R1) when a JSONL line is parsed straight into the models; Python input keeps
    ``JsonValue``'s own checks and messages."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.json_or_python_schema(
            json_schema=handler.generate_schema(_FiniteJson), python_schema=handler(source)
        )


JsonData = Annotated[JsonValue, _FiniteWhenReadFromJson]
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


def Seq(item: Any) -> Any:  # noqa: N802 - reads like a type in the field declarations
    """An immutable sequence field: a list or tuple on input, a tuple in the model."""
    return Annotated[tuple[item, ...], Field(strict=False), _ListOrTuple]


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
    def _omit_absent_optionals(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        """The wire format omits an optional field rather than writing ``null`` (api.md)."""
        data = handler(self)
        if isinstance(data, dict):
            for name, field in type(self).model_fields.items():
                if getattr(self, name) is None and not field.is_required() and field.default is None:
                    data.pop(field.alias if info.by_alias and field.alias else name, None)
        return data


# --- content blocks ---------------------------------------------------------------


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str


class ToolCall(WireModel):
    type: Literal["toolCall"] = "toolCall"
    id: NonBlankStr
    name: NonBlankStr
    arguments: dict[str, JsonData]
    raw_arguments: str | None = None


AssistantContent = Annotated[Union[TextContent, ToolCall], Field(discriminator="type")]

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
    content: str
    sections: dict[str, str | None] | None = None
    timestamp: Number


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: Seq(TextBlock)
    timestamp: Number


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: Seq(AssistantContent)
    provider: str
    model: str
    usage: Usage
    stop_reason: StopReason
    error_message: str | None = None
    timestamp: Number


class ToolResultMessage(WireModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: NonBlankStr
    tool_name: NonBlankStr
    content: Seq(TextBlock)
    details: JsonData = None
    is_error: bool
    timestamp: Number


AgentMessage = Annotated[
    Union[SystemMessage, UserMessage, AssistantMessage, ToolResultMessage],
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
    """The seven fields, always in this order (spec §1)."""

    goal: NonBlankStr
    constraints: Seq(str)
    completed: Seq(str)
    decisions: Seq(str)
    changed_files: Seq(str)
    unresolved: Seq(str)
    next: Seq(str)


class CompactionEntry(WireModel):
    """A summary appended to the session; ``parent_id`` is never null (spec §1)."""

    type: Literal["compaction"] = "compaction"
    id: NonBlankStr
    parent_id: NonBlankStr
    timestamp: Number
    summary: CompactionSummary
    first_kept_entry_id: NonBlankStr
    tokens_before: NonNegative


SessionEntry = Annotated[
    Union[MessageEntry, MetadataEntry, CompactionEntry],
    Field(discriminator="type"),
]
