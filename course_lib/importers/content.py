"""Content blocks of every format as the course's text blocks.

The course's messages hold text (and tool calls); anything else in a block list
is turned into text or dropped, and either way reported in the import's notes:

* an image (pi ``{type: image, data, mimeType}``, Anthropic ``{type: image,
  source: {media_type, data}}``, Codex ``{type: input_image, image_url: data:…}``)
  becomes a placeholder such as ``[image: image/png, 12 KB]``: its base64 text
  would cost tokens the real request does not spend on it;
* a thinking or reasoning block is dropped: the course's messages have none;
* a block type this importer does not know is dropped.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import NotFiniteJsonError
from ..teaching.i18n import MESSAGES
from .assemble import Assembler, Block, image_placeholder

TEXT_TYPES = frozenset({"text", "input_text", "output_text", "summary_text"})
THINKING_TYPES = frozenset({"thinking", "redacted_thinking", "reasoning"})


def texts(content: Any, line: int, asm: Assembler) -> list[str]:
    """The text of a string or a list of blocks, with images as placeholders (see the module docstring)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        asm.note(line, MESSAGES("content of type {kind} kept as its JSON text").format(kind=type(content).__name__))
        return [str(content)]
    found: list[str] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in TEXT_TYPES:
            found.append(str(block.get("text", "")))
        elif kind in ("image", "input_image"):
            mime, data = _image(block)
            found.append(image_placeholder(mime, data))
            asm.note(line, MESSAGES("replaced a base64 image ({mime}) with a text placeholder").format(mime=mime))
        elif kind in THINKING_TYPES:
            asm.note(
                line,
                MESSAGES("dropped a {kind} block (the course's messages have no thinking blocks)").format(kind=kind),
            )
        elif isinstance(block, str):
            found.append(block)
        else:
            asm.note(
                line,
                MESSAGES("dropped a content block of type {kind} this importer does not know").format(kind=repr(kind)),
            )
    return found


def _image(block: dict[str, Any]) -> tuple[str, str]:
    source = block.get("source")
    if isinstance(source, dict):
        return str(source.get("media_type", "image")), str(source.get("data", ""))
    url = block.get("image_url")
    if isinstance(url, str) and url.startswith("data:") and "," in url:
        head, data = url[5:].split(",", 1)
        return head.split(";")[0] or "image", data
    if isinstance(url, str):
        return "image", ""
    return str(block.get("mimeType", "image")), str(block.get("data", ""))


def tool_call(call_id: str, name: str, arguments: Any) -> Block:
    """A tool call block (wire keys); arguments that are not an object (or are a JSON string that is
    not one) are wrapped."""
    raw: str | None = None
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        raw = arguments
        try:
            arguments = json.loads(arguments, parse_constant=_refuse) if arguments.strip() else {}
        except ValueError:
            arguments = {"raw": arguments}
    if not isinstance(arguments, dict):
        arguments = {"value": arguments}
    block = {"type": "toolCall", "id": call_id or "call", "name": name or "unknown", "arguments": arguments}
    if raw is not None:
        block["rawArguments"] = raw
    return block


def usage_of(input_tokens: Any, output_tokens: Any, total: Any = None) -> dict[str, Any]:
    given, produced = number(input_tokens), number(output_tokens)
    return {"input": given, "output": produced, "totalTokens": number(total) if total is not None else given + produced}


def object_at(value: Any, key: str) -> dict[str, Any]:
    """``value[key]`` when it is a JSON object, else ``{}``: a log's optional parts may be missing or of any type."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def number(value: Any) -> float:
    ok = (
        isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and 0 <= value < float("inf")
    )
    return value if ok else 0


def _refuse(name: str) -> Any:
    raise NotFiniteJsonError(name)
