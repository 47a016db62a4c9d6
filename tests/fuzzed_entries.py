"""Hypothesis strategies for session entries and JSONL lines at the edges, shared by the fuzz tests.

``wire_entries`` draws wire entries of every type whose texts, numbers and free JSON come from
the edges (lone surrogates, NUL, 5,000-character text, integers past the double range, NaN);
``mutated_lines`` a line as a broken writer might leave it. ``typed`` tags every number with its
type, so a round trip that turns 1 into 1.0 is seen.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import strategies as st
from wire_samples import ALL_WIRE_FACTORIES

texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "\ud800", "a\udfffb", "\U0001f600", "\x00", "x" * 5_000]),
)
numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**1024 - 2**970 - 1, 2**1024 - 2**970, -(10**400), 0.0, -0.0]),
    st.builds(pow, st.just(10), st.just(5_000)),  # too long for Python's int-to-text limit
    st.floats(),
    st.booleans(),
)
json_values = st.recursive(
    st.one_of(st.none(), numbers, texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def wire_entries(draw: st.DrawFn) -> dict[str, Any]:
    """A wire entry of every type, with free JSON, texts and numbers drawn from the edges."""
    wire = draw(st.sampled_from(ALL_WIRE_FACTORIES))()
    wire["parentId"] = None if wire["type"] != "compaction" else "root"
    wire["timestamp"] = draw(numbers)
    if wire["type"] == "metadata":
        wire["value"] = draw(json_values)
        wire["key"] = draw(texts)
    elif wire["type"] == "compaction":
        wire["tokensBefore"] = draw(numbers)
        wire["summary"]["goal"] = draw(texts)
        wire["summary"]["next"] = draw(st.lists(texts, max_size=3))
    else:
        message = wire["message"]
        message["timestamp"] = draw(numbers)
        if message["role"] == "assistant":
            message["content"][1]["arguments"] = draw(st.dictionaries(texts, json_values, max_size=4))
            message["usage"]["input"] = draw(numbers)
            message["model"] = draw(texts)
        elif message["role"] == "toolResult":
            message["details"] = draw(json_values)
        elif message["role"] == "system":
            message["content"] = draw(texts)
        else:
            message["content"][0]["text"] = draw(texts)
    return wire


def typed(value: Any) -> Any:
    """``value`` with every number tagged by its type: 1 and 1.0 must not pass for each other."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    if isinstance(value, float):
        return ("float", math.copysign(1.0, value), abs(value))
    return (type(value).__name__, value)


@st.composite
def mutated_lines(draw: st.DrawFn) -> bytes:
    """A line as a broken writer might leave it: one node of a valid entry replaced, or bytes."""
    wire = draw(st.sampled_from(ALL_WIRE_FACTORIES))()
    node: Any = wire
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = draw(st.sampled_from(keys))
        if isinstance(node[key], (dict, list)) and node[key] and draw(st.booleans()):
            node = node[key]
            continue
        node[key] = draw(st.one_of(json_values, st.just("x" * 1_000_000)))
        break
    if draw(st.booleans()):
        return draw(st.binary(max_size=40))
    try:
        text = json.dumps(wire, ensure_ascii=draw(st.booleans()))
    except ValueError:  # 10**5000 is past Python's int-to-text limit; the store tests cover it on disk
        return b"{}"
    return text.encode("utf-8", "surrogatepass")
