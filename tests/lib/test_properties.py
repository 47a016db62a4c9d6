"""Property tests: wire round trips (R1–R4, R9), parser fuzzing (R1, R2) and random sessions (R11–R23, R27).

Each property states a rule for *all* inputs of a shape instead of one example,
so it can find what the hand-written tests did not think of.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from course_lib import (
    AssistantMessage,
    CompactionEntry,
    CompactionError,
    CompactionSummary,
    MessageEntry,
    MetadataEntry,
    PathBuilder,
    SessionEntryError,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    build_context,
    compaction_summary_text,
    create_compaction_entry,
    estimate_tokens_chars,
    parse_session_entry,
    recover_jsonl,
    to_json_dict,
)
from course_lib.fixtures import teaching_estimator

SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- strategies: valid models ----------------------------------------------------------------

texts = st.text(max_size=12) | st.sampled_from(["", " ", "中文 文本", "🧪 emoji", "a\u2028b", "\x00\x1f\x7f", "w w w"])
non_blank = st.builds(
    lambda head, tail: head + tail,
    st.text(st.characters(categories=["L", "N", "P", "S"]), min_size=1, max_size=3),
    texts,
)
finite = st.integers(-(2**60), 2**60) | st.floats(allow_nan=False, allow_infinity=False)
non_negative = st.integers(0, 2**60) | st.floats(min_value=0, allow_nan=False, allow_infinity=False)
json_keys = st.text(max_size=6) | st.sampled_from(["type", "role", "text", "dict", "list", "float", "str"])
json_values = st.recursive(
    st.none() | st.booleans() | finite | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_keys, inner, max_size=3),
    max_leaves=8,
)


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


def model(cls: Any, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Like ``st.builds``, but by field name only (``st.builds`` would also fill the camelCase aliases)."""
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


text_blocks = model(TextContent, text=texts)
tool_calls = model(
    ToolCall,
    id=non_blank,
    name=non_blank,
    arguments=st.dictionaries(json_keys, json_values, max_size=3),
    raw_arguments=optional(texts),
)
usages = model(Usage, input=non_negative, output=non_negative, total_tokens=non_negative)

system_messages = model(
    SystemMessage,
    content=texts,
    sections=optional(st.dictionaries(texts, optional(texts), max_size=3)),
    timestamp=finite,
)
user_messages = model(UserMessage, content=st.lists(text_blocks, max_size=3).map(tuple), timestamp=finite)
assistant_messages = model(
    AssistantMessage,
    content=st.lists(text_blocks | tool_calls, max_size=3).map(tuple),
    provider=texts,
    model=texts,
    usage=usages,
    stop_reason=st.sampled_from(["stop", "length", "toolUse", "error", "aborted"]),
    error_message=optional(texts),
    timestamp=finite,
)
tool_result_messages = model(
    ToolResultMessage,
    tool_call_id=non_blank,
    tool_name=non_blank,
    content=st.lists(text_blocks, max_size=3).map(tuple),
    details=json_values,
    is_error=st.booleans(),
    timestamp=finite,
)
agent_messages = system_messages | user_messages | assistant_messages | tool_result_messages

string_lists = st.lists(texts, max_size=3).map(tuple)
summaries = model(
    CompactionSummary,
    goal=non_blank,
    constraints=string_lists,
    completed=string_lists,
    decisions=string_lists,
    changed_files=string_lists,
    unresolved=string_lists,
    next=string_lists,
)
entries = (
    model(MessageEntry, id=non_blank, parent_id=optional(non_blank), timestamp=finite, message=agent_messages)
    | model(
        MetadataEntry, id=non_blank, parent_id=optional(non_blank), timestamp=finite, key=non_blank, value=json_values
    )
    | model(
        CompactionEntry,
        id=non_blank,
        parent_id=non_blank,
        timestamp=finite,
        summary=summaries,
        first_kept_entry_id=non_blank,
        tokens_before=non_negative,
    )
)

free_json = st.lists(json_values, min_size=1, max_size=3) | st.dictionaries(
    json_keys, json_values, min_size=1, max_size=3
)
calls_with_arguments = model(
    ToolCall, id=non_blank, name=non_blank, arguments=st.dictionaries(json_keys, json_values, min_size=1, max_size=3)
)
entries_with_free_data = model(
    MessageEntry,
    id=non_blank,
    parent_id=optional(non_blank),
    timestamp=finite,
    message=model(
        ToolResultMessage,
        tool_call_id=non_blank,
        tool_name=non_blank,
        content=st.just(()),
        details=free_json,
        is_error=st.booleans(),
        timestamp=finite,
    )
    | model(
        AssistantMessage,
        content=st.lists(calls_with_arguments, min_size=1, max_size=2).map(tuple),
        provider=texts,
        model=texts,
        usage=usages,
        stop_reason=st.just("toolUse"),
        timestamp=finite,
    )
    | model(
        SystemMessage,
        content=texts,
        sections=st.dictionaries(texts, optional(texts), min_size=1, max_size=3),
        timestamp=finite,
    ),
) | model(MetadataEntry, id=non_blank, parent_id=optional(non_blank), timestamp=finite, key=non_blank, value=free_json)
"""Entries that surely hold free data (tool arguments, details, sections, metadata values), for the fuzzer."""


# --- (a) round trips -----------------------------------------------------------------------------


@SETTINGS
@given(entries)
def test_r1_r9_every_valid_entry_round_trips_through_json(entry: Any) -> None:
    """``to_json_dict`` → ``json.dumps`` → ``json.loads`` → ``parse_session_entry`` gives the same model,
    and so does reading the line back as a committed JSONL line (R9)."""
    wire = to_json_dict(entry)
    text = json.dumps(wire, ensure_ascii=False, allow_nan=False)
    assert parse_session_entry(json.loads(text)) == entry
    assert parse_session_entry(entry) == entry
    if entry.parent_id == entry.id:
        return  # the parser allows it, but no store can hold an entry that is its own parent (R7)
    parent = entry.parent_id and {
        "type": "metadata",
        "id": entry.parent_id,
        "parentId": None,
        "timestamp": 0,
        "key": "k",
        "value": 0,
    }
    read = recover_jsonl((json.dumps(parent) + "\n" if parent else "") + text + "\n")
    assert read.entries[-1:] == [entry] and read.warnings == ()


# --- (b) fuzzing the parser ----------------------------------------------------------------------

FREE_FIELDS = {"arguments": "json", "details": "json", "value": "json", "sections": "sections"}
OPTIONAL_FIELDS = {"sections", "rawArguments", "errorMessage", "details"}
DISCRIMINATORS = {"type", "role"}
UNKNOWN_KEYS = st.sampled_from(
    ["parent_id", "first_kept_entry_id", "tokens_before", "tool_call_id", "tool_name", "is_error", "stop_reason",
     "error_message", "raw_arguments", "total_tokens", "changed_files", "files", "nextSteps", "invariants",
     "compactedEntryIds", "extra", "Type", "ID"]
) | st.text(min_size=1, max_size=5).map(lambda s: "x-" + s)  # fmt: skip
junk: st.SearchStrategy[Any] = (
    json_values
    | st.sampled_from([math.nan, math.inf, -math.inf, True, False, None, "", " ", -1, 0, 2.5, [], {}])
    | st.recursive(
        st.sampled_from([math.nan, math.inf, None, True, "x"]),
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(json_keys, inner, max_size=2),
        max_leaves=4,
    )
)

Path = tuple[str | int, ...]


def _locations(node: Any, path: Path = (), region: str = "model") -> list[tuple[Path, str]]:
    """Every key or index under ``node`` with the region it lies in (model fields or free data)."""
    found: list[tuple[Path, str]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        child_region = FREE_FIELDS.get(key, region) if region == "model" and isinstance(key, str) else region
        found.append(((*path, key), region))
        found.extend(_locations(child, (*path, key), child_region))
    return found


def _containers(node: Any, path: Path = (), region: str = "model") -> list[tuple[Path, str]]:
    found = [(path, region)] if isinstance(node, dict) else []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        child_region = FREE_FIELDS.get(key, region) if region == "model" and isinstance(key, str) else region
        found.extend(_containers(child, (*path, key), child_region))
    return found


def _at(node: Any, path: Path) -> Any:
    for part in path:
        node = node[part]
    return node


def _format(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _within(reported: str | None, location: Path) -> bool:
    """The reported field path is ``location`` or lies inside it."""
    expected = _format(location)
    return reported is not None and (
        reported == expected or not expected or reported.startswith((expected + ".", expected + "["))
    )


def _prefer_free(places: list[tuple[Path, str]], prefer: bool) -> list[tuple[Path, str]]:
    free = [place for place in places if place[1] != "model"]
    return free if prefer and free else places


def _mutate(data: st.DataObject, wire: dict[str, Any]) -> tuple[str, Path, str]:
    """Apply one random mutation; return its kind, where it happened and that place's region.

    What goes in is a deep copy of the draw: a later mutation of the same wire may edit it in place, and an
    object the strategy hands out again (a list or dict it keeps) must not change between test cases, or
    Hypothesis replays a different draw (``FlakyStrategyDefinition``).
    """
    kind = data.draw(st.sampled_from(["delete", "add", "replace"]))
    free_data_first = data.draw(st.booleans())  # free data is a small part of an entry; visit it often
    if kind == "add":
        where, region = data.draw(st.sampled_from(_prefer_free(_containers(wire), free_data_first)))
        key = data.draw(UNKNOWN_KEYS)
        _at(wire, where)[key] = copy.deepcopy(data.draw(junk))
        return kind, (*where, key), region
    location, region = data.draw(st.sampled_from(_prefer_free(_locations(wire), free_data_first)))
    parent = _at(wire, location[:-1])
    if kind == "delete":
        del parent[location[-1]]
    else:
        parent[location[-1]] = copy.deepcopy(data.draw(junk))
    return kind, location, region


@SETTINGS
@given(entries | entries_with_free_data, st.data())
def test_r1_r2_fuzzed_entries_parse_or_raise_session_entry_error_naming_id_and_field(
    entry: Any, data: st.DataObject
) -> None:
    """One random mutation of a valid wire dict either still parses or raises a SessionEntryError
    (never KeyError/TypeError/AttributeError) whose id and field path point at the mutation."""
    wire = to_json_dict(entry)
    kind, location, region = _mutate(data, wire)
    snapshot = copy.deepcopy(wire)
    try:
        parsed = parse_session_entry(wire)
    except SessionEntryError as error:
        event(f"{kind} in {region}: refused")
        assert wire == snapshot or _has_nan(wire)  # the parser does not touch its input
        raw_id = wire.get("id")
        if isinstance(raw_id, str) and raw_id.strip():
            assert error.entry_id == raw_id
            assert f" {raw_id}." in str(error) or str(error).endswith(f" {raw_id}")
        else:
            assert error.entry_id is None
        assert str(error).startswith("session ")
        key = location[-1]
        if (kind == "delete" and region == "model") or (kind == "add" and region == "model"):
            assert error.path == _format(location), (str(error), location)
        elif not (kind == "replace" and region == "model" and key in DISCRIMINATORS):
            assert _within(error.path, location), (str(error), location)
    else:
        event(f"{kind} in {region}: accepted")
        assert to_json_dict(parsed) == snapshot or _has_nan(snapshot)
        if region == "model" and kind == "delete":
            assert isinstance(location[-1], int) or location[-1] in OPTIONAL_FIELDS, location
        if region == "model" and kind == "add":
            raise AssertionError(f"unknown key {location} was accepted")


def _has_nan(value: Any) -> bool:
    """NaN != NaN, so a snapshot holding one never compares equal to itself."""
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


@SETTINGS
@given(entries, st.data())
@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_r1_several_mutations_never_raise_anything_but_session_entry_error(entry: Any, data: st.DataObject) -> None:
    wire = to_json_dict(entry)
    for _ in range(data.draw(st.integers(2, 4))):
        if not isinstance(wire, dict) or not _locations(wire):
            break
        _mutate(data, wire)
    try:
        parse_session_entry(wire)
    except SessionEntryError:
        pass


@SETTINGS
@given(st.one_of(json_values, junk))
def test_r1_any_json_value_is_parsed_or_refused_cleanly(value: Any) -> None:
    try:
        parse_session_entry(value)
    except SessionEntryError:
        pass


# --- (c) random sessions ---------------------------------------------------------------------------

words = st.lists(st.sampled_from(["w", "ab", "中文", "🧪", "x\u2028y", "long-word"]), max_size=6).map(" ".join)
small_arguments = st.dictionaries(
    st.sampled_from(["path", "pattern", "n"]), st.integers(0, 9) | words | st.lists(words, max_size=2), max_size=2
)
small_summaries = model(
    CompactionSummary,
    goal=words.map(lambda text: text or "goal"),
    **{
        name: st.lists(words, max_size=2).map(tuple)
        for name in ("constraints", "completed", "decisions", "changed_files", "unresolved", "next")
    },
)
SESSION_SETTINGS = settings(SETTINGS, max_examples=examples(100))


@st.composite
def sessions(draw: st.DrawFn) -> tuple[list[Any], list[list[str]], list[tuple[str, int]]]:
    """A random valid active path.

    Returns the path, the ids of each interaction group in path order, and the
    compactions as (id, index of the group their ``firstKeptEntryId`` opens).
    """
    builder = PathBuilder()
    counter = itertools.count()
    groups: list[list[str]] = []
    compactions: list[tuple[str, int]] = []

    def new_id(prefix: str) -> str:
        return f"{prefix}{next(counter)}"

    def maybe_patch() -> None:
        if draw(st.integers(0, 5)) == 0:
            sections = draw(
                st.none() | st.dictionaries(st.sampled_from(["rules", "style"]), st.none() | words, max_size=2)
            )
            builder.system(new_id("patch"), draw(words), sections=sections)

    maybe_patch()
    for _ in range(draw(st.integers(0, 6))):
        maybe_patch()
        group = [new_id("u")]
        builder.user(group[0], draw(words))
        calls = [
            (new_id("call"), draw(st.sampled_from(["read", "test", "grep"])), draw(small_arguments))
            for _ in range(draw(st.integers(0, 3)))
        ]
        if calls:
            maybe_patch()
            group.append(new_id("c"))
            builder.assistant(group[-1], draw(words), tool_calls=calls)
            for index in draw(st.permutations(range(len(calls)))):
                maybe_patch()
                if draw(st.integers(0, 2)) == 0:
                    group.append(new_id("progress"))
                    builder.assistant(group[-1], draw(words) or "working")
                group.append(new_id("r"))
                builder.tool_result(group[-1], calls[index][0], calls[index][1], draw(words))
        if draw(st.booleans()):
            group.append(new_id("a"))
            builder.assistant(group[-1], draw(words))
        groups.append(group)
        if draw(st.integers(0, 4)) == 0:
            builder.metadata(new_id("meta"), "label", draw(small_arguments))
        if draw(st.integers(0, 2)) == 0:
            first = draw(st.integers(0, len(groups) - 1))
            entry = create_compaction_entry(
                builder.entries,
                id=new_id("compact"),
                timestamp=builder.clock + 1,
                summary=draw(small_summaries),
                first_kept_entry_id=groups[first][0],
                tokens_before=draw(st.integers(0, 10**6)),
            )
            builder.add(entry)
            compactions.append((entry.id, first))
    maybe_patch()
    return builder.entries, groups, compactions


budgets = st.fixed_dictionaries(
    {
        "max_tokens": st.integers(40, 160) | st.integers(0, 400) | st.floats(0, 300),
        "reserved_output": st.integers(0, 20),
        "safety_margin": st.integers(0, 10) | st.floats(0, 10),
    }
)
estimators = st.sampled_from([teaching_estimator, estimate_tokens_chars])


def _replayed_system(path: list[Any]) -> dict[str, Any] | None:
    """R5 written out again, independently of the package."""
    systems = [e.message for e in path if e.type == "message" and e.message.role == "system"]
    if not systems:
        return None
    sections: dict[str, str] = {}
    for message in systems:
        for name, text in (message.sections or {}).items():
            if text is None:
                sections.pop(name, None)
            else:
                sections[name] = text
    replayed: dict[str, Any] = {
        "role": "system",
        "content": "\n\n".join(m.content for m in systems if m.content),
        "timestamp": systems[0].timestamp,
    }
    if sections:
        replayed["sections"] = sections
    return replayed


@pytest.mark.slow  # several seconds: make test, not make check
@SESSION_SETTINGS
@given(sessions(), budgets, estimators)
def test_r16_to_r22_random_sessions_match_the_budget_arithmetic(
    session: tuple[list[Any], list[list[str]], list[tuple[str, int]]],
    budget: dict[str, Any],
    estimate: Callable[[Any], int],
) -> None:
    path, groups, compactions = session
    by_id = {entry.id: entry for entry in path}
    result = build_context(path, **budget, estimate_tokens=estimate)

    # What the chapter says should happen, computed here step by step.
    system = _replayed_system(path)
    system_cost = estimate(SystemMessage.model_validate(system)) if system else 0
    available = max(0, budget["max_tokens"] - system_cost - budget["reserved_output"] - budget["safety_margin"])
    candidates = groups
    head: list[dict[str, Any]] = [system] if system else []
    summary_cost = 0
    if compactions:
        compaction_id, first = compactions[-1]  # R18: only the latest
        compaction = by_id[compaction_id]
        candidates = groups[first:]
        summary = {
            "role": "user",
            "content": [{"type": "text", "text": compaction_summary_text(compaction.summary)}],
            "timestamp": compaction.timestamp,
        }
        summary_cost = estimate(UserMessage.model_validate(summary))
        head.append(summary)
    room = max(0, available - summary_cost)  # the summary may use up the allowance, never more
    costs = [sum(estimate(by_id[i].message) for i in group) for group in candidates]
    kept_count, used = 0, 0
    for cost in reversed(costs):  # R19: newest first, stop at the first that does not fit
        if used + cost > room:
            break
        kept_count, used = kept_count + 1, used + cost
    if kept_count == len(candidates):
        reason = "within_budget"
    elif kept_count:
        reason = "trimmed"
    else:
        reason, kept_count, used = "single_group_overflow", 1, costs[-1]
    kept_groups = candidates[len(candidates) - kept_count :]
    kept_ids = [i for group in kept_groups for i in group]

    event(f"{result.reason}, {'resumed' if compactions else 'no compaction'}")
    assert list(result.kept_entry_ids) == kept_ids  # R19: a contiguous suffix of whole groups
    assert result.reason == reason  # R20
    all_ids = [i for group in candidates for i in group]
    suffixes = [[i for group in candidates[start:] for i in group] for start in range(len(candidates) + 1)]
    assert list(result.kept_entry_ids) in suffixes
    overflow = bool(candidates) and costs[-1] > room
    assert (result.reason == "single_group_overflow") == overflow
    assert (result.reason == "within_budget") == (list(result.kept_entry_ids) == all_ids and not overflow)
    messages_cost = summary_cost + used
    assert to_json_dict(result.tokens) == {  # R17, R22
        "maxTokens": budget["max_tokens"],
        "system": system_cost,
        "messages": messages_cost,
        "reservedOutput": budget["reserved_output"],
        "safetyMargin": budget["safety_margin"],
        "availableForMessages": available,
        "total": system_cost + messages_cost + budget["reserved_output"] + budget["safety_margin"],
    }
    assert to_json_dict(result.messages) == head + [to_json_dict(by_id[i].message) for i in kept_ids]  # R21
    path_order = [e.id for e in path]
    assert [path_order.index(i) for i in result.kept_entry_ids] == sorted(
        path_order.index(i) for i in result.kept_entry_ids
    )


@pytest.mark.slow  # several seconds: make test, not make check
@SESSION_SETTINGS
@given(sessions(), budgets, estimators)
def test_r23_random_builds_are_deterministic_and_isolated(
    session: tuple[list[Any], list[list[str]], list[tuple[str, int]]],
    budget: dict[str, Any],
    estimate: Callable[[Any], int],
) -> None:
    path = session[0]
    before = to_json_dict(path)
    first = build_context(path, **budget, estimate_tokens=estimate)
    second = build_context(path, **budget, estimate_tokens=estimate)
    assert first == second
    assert to_json_dict(first) == to_json_dict(second)
    for message in first.messages:
        for block in getattr(message, "content", ()):
            if isinstance(block, ToolCall):
                block.arguments["injected"] = ["by", "the", "caller"]
                block.arguments.pop(next(iter(block.arguments)), None)
    assert to_json_dict(path) == before
    assert build_context(path, **budget, estimate_tokens=estimate) == second


@pytest.mark.slow  # several seconds: make test, not make check
@SESSION_SETTINGS
@given(sessions(), budgets, estimators)
def test_r18_a_resume_keeps_only_entries_from_first_kept_onward(
    session: tuple[list[Any], list[list[str]], list[tuple[str, int]]],
    budget: dict[str, Any],
    estimate: Callable[[Any], int],
) -> None:
    path, _groups, compactions = session
    if not compactions:
        return
    latest = next(e for e in reversed(path) if e.type == "compaction")
    start = [e.id for e in path].index(latest.first_kept_entry_id)
    resumable = [e.id for e in path[start:] if e.type == "message" and e.message.role != "system"]
    result = build_context(path, **budget, estimate_tokens=estimate)
    assert set(result.kept_entry_ids) <= set(resumable)
    huge = build_context(path, max_tokens=10**9, reserved_output=0, safety_margin=0, estimate_tokens=estimate)
    assert list(huge.kept_entry_ids) == resumable
    assert huge.reason == "within_budget"


@pytest.mark.slow  # several seconds: make test, not make check
@SESSION_SETTINGS
@given(sessions(), st.data())
def test_r27_only_group_starts_can_be_first_kept(
    session: tuple[list[Any], list[list[str]], list[tuple[str, int]]], data: st.DataObject
) -> None:
    path, groups, _ = session
    if not path:
        return
    starts = {group[0] for group in groups}
    candidate = data.draw(st.sampled_from([e.id for e in path] + ["not-there"]))
    options: dict[str, Any] = {
        "id": "compact-new",
        "timestamp": 1,
        "summary": CompactionSummary(
            goal="g", constraints=(), completed=(), decisions=(), changed_files=(), unresolved=(), next=()
        ),
        "tokens_before": 0,
    }
    if candidate in starts:
        entry = create_compaction_entry(path, first_kept_entry_id=candidate, **options)
        assert entry.parent_id == path[-1].id
    else:
        try:
            create_compaction_entry(path, first_kept_entry_id=candidate, **options)
        except CompactionError as error:
            assert error.entry_id == candidate
        else:
            raise AssertionError(f"{candidate!r} is not a group start but was accepted")
