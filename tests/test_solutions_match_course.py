"""The readable lab solutions and the optimized ``course_lib`` functions agree on generated sessions.

They stay two programs on purpose: a lab's solution is the code a learner
reads, ``course_lib``'s is indexed and fast. This property test holds them to
one behaviour: on every generated input both return the same value (in the
wire format) or both refuse it with the same error. The solutions come from
the committed notebooks (``labs/solutions/*.ipynb``, read with nbformat: the
lab's own code cells before its first exercise, then its ``exercise`` cells),
exactly as the grader loads a submission.
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Callable
from typing import Any

import pytest
from grading_corpus import namespace, solution
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_grader.generate import SessionRecipe, group_starts, random_session, random_summary
from course_lib import build_context, context, create_compaction_entry, group_interactions, parse_session_entry, tool_facts
from course_lib.catalogues import broken_tool_facts, budgets, compactions
from course_lib.checklist.harness import ESTIMATORS
from course_lib.errors import InteractionError
from course_lib.parsing import to_json_dict

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
seeds = st.integers(0, 10**6)


@functools.cache
def lab(name: str) -> dict[str, Any]:
    """The names the lab's solution notebook defines, as a kernel would hold them after its exercise cells."""
    return namespace(name, solution(name))


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call did, comparable across the two programs: its value in the wire format, or its error."""
    try:
        value = call()
    except ValueError as exc:
        return "rejected", error_facts(exc)
    return "returned", to_json_dict(value)


def error_facts(exc: ValueError) -> dict[str, Any]:
    """The error's kind and the ids it carries; its words are compared by ``test_the_errors_are_worded_alike``."""
    return {"type": type(exc).__name__, **{name: getattr(exc, name) for name in ("entry_ids", "call_id", "entry_id")
                                            if hasattr(exc, name)}}


def agree(ours: Callable[..., Any], theirs: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """Both functions on deep copies of the same input; they must do the same thing."""
    expected = outcome(lambda: ours(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
    got = outcome(lambda: theirs(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
    assert got == expected
    return expected


def session(seed: int, **recipe: Any) -> list[Any]:
    return random_session(seed, SessionRecipe(**recipe))


# --- Lab 11.1: parse_session_entry ------------------------------------------------------------


@SETTINGS
@given(seeds, st.data())
def test_lab_11_1_parses_and_refuses_like_the_course(seed: int, data: st.DataObject) -> None:
    entries = [to_json_dict(entry) for entry in session(seed, groups=(1, 4), compactions=2)]
    for entry in entries:
        assert agree(parse_session_entry, lab("11.1")["parse_session_entry"], entry)[0] == "returned"
    records = [entry for entry in entries if entry["type"] == "compaction"]
    if records:
        record = data.draw(st.sampled_from(records))
        change = data.draw(st.sampled_from([*compactions.MALFORMED, compactions.BLANK_ID, *compactions.UNUSUAL]))
        value = change.applied(record)
        value = value[0] if isinstance(value, tuple) else value
        agree(parse_session_entry, lab("11.1")["parse_session_entry"], value)


# --- Lab 11.2: group_interactions --------------------------------------------------------------


def message_entries(path: list[Any]) -> list[dict[str, Any]]:
    return [to_json_dict(entry) for entry in path if entry.type == "message"]


@SETTINGS
@given(seeds, st.sampled_from([None, *broken_tool_facts.BROKEN]))
def test_lab_11_2_groups_and_refuses_like_the_course(seed: int, broken: broken_tool_facts.Broken | None) -> None:
    rng = random.Random(seed)
    entries = message_entries(session(seed, groups=(1, 5), max_tool_calls=3))
    if broken is not None and broken.applies_to(entries):
        broken.draw(entries, rng)
    path = [parse_session_entry(entry) for entry in entries]
    agree(group_interactions, lab("11.2")["group_interactions"], path)


@pytest.mark.xfail(strict=True, reason="Lab 11.2's solution still words its errors itself; passes once its exercise cell "
                   "raises course_lib.tool_facts' errors (see the cell in /work/notes/catalogue.md): then drop this mark")
def test_the_errors_are_worded_alike() -> None:
    """Error messages are written once (course_lib.tool_facts): the lab's solution says what the course says."""
    for broken in broken_tool_facts.BROKEN:
        path = broken.chapter_path()
        expected = outcome_text(group_interactions, path)
        assert outcome_text(lab("11.2")["group_interactions"], path) == expected, broken.what


def outcome_text(function: Callable[..., Any], path: list[Any]) -> str:
    try:
        function(path)
    except InteractionError as exc:
        return str(exc)
    raise AssertionError("accepted")


# --- Labs 11.3 and 11.5: build_context ----------------------------------------------------------

estimators = st.sampled_from(["teaching", "teaching", "chars", "touching", *budgets.BAD_ESTIMATORS])
numbers = st.integers(0, 80) | st.floats(0, 80, allow_nan=False) | st.sampled_from([value for _, value in budgets.BAD_OPTIONS])


@SETTINGS
@given(seeds, numbers, numbers, numbers, estimators)
def test_lab_11_3_builds_like_the_course(seed: int, max_tokens: Any, reserved: Any, margin: Any, estimator: str) -> None:
    path = session(seed, groups=(1, 6))
    options = {"max_tokens": max_tokens, "reserved_output": reserved, "safety_margin": margin,
               "estimate_tokens": ESTIMATORS[estimator]}
    agree(build_context, lab("11.3")["build_context"], path, **options)


@SETTINGS
@given(seeds, st.integers(0, 3), numbers, numbers, numbers, estimators, st.data())
def test_lab_11_5_resumes_like_the_course(seed: int, compacted: int, max_tokens: Any, reserved: Any, margin: Any,
                                          estimator: str, data: st.DataObject) -> None:
    path = session(seed, groups=(2, 7), compactions=compacted)
    latest = context.latest_compaction(path)
    if latest is not None and data.draw(st.booleans()):  # R18: a compaction may keep from any entry; only a user message before it will do
        first_kept = data.draw(st.sampled_from([entry.id for entry in path]))
        at = path.index(latest)
        path[at] = parse_session_entry(to_json_dict(latest) | {"firstKeptEntryId": first_kept})
    resume = lab("11.5")
    compaction = context.latest_compaction(path)
    assert to_json_dict(resume["latest_compaction"](path)) == to_json_dict(compaction)
    if compaction is not None:
        agree(context.resume_candidates, resume["resume_candidates"], path, compaction)
    options = {"max_tokens": max_tokens, "reserved_output": reserved, "safety_margin": margin,
               "estimate_tokens": ESTIMATORS[estimator]}
    agree(build_context, resume["build_context"], path, **options)


# --- Lab 11.4: create_compaction_entry -------------------------------------------------------------


@SETTINGS
@given(seeds, st.data())
def test_lab_11_4_compacts_and_refuses_like_the_course(seed: int, data: st.DataObject) -> None:
    path = session(seed, groups=(0, 5) if seed % 7 == 0 else (1, 5), compactions=seed % 3, metadata=True)
    ids = [entry.id for entry in path]
    first_kept = data.draw(st.sampled_from(group_starts(path) or ["u1"]) | st.sampled_from([*ids, "missing-1"] if ids else ["missing-1"]))
    new_id = data.draw(st.just("compact-new") | st.sampled_from(ids or ["compact-new"]))
    options = {"id": new_id, "timestamp": data.draw(st.integers(0, 10**6) | st.floats(0, 10**6)),
               "summary": to_json_dict(random_summary(random.Random(seed))), "first_kept_entry_id": first_kept,
               "tokens_before": data.draw(st.integers(0, 5000) | st.just(17.25))}
    agree(create_compaction_entry, lab("11.4")["create_compaction_entry"], path, **options)


def test_the_helper_reads_tool_call_ids_on_both_sides_of_the_wire() -> None:
    """One question, one answer: a parsed entry and its wire form have the same tool-call ids (R12)."""
    path = session(5, groups=(3, 5), max_tool_calls=3)
    declared = [tool_facts.tool_call_ids(entry) for entry in path]
    assert any(declared)
    assert declared == [tool_facts.tool_call_ids(to_json_dict(entry)) for entry in path]
    answered = [tool_facts.answered_call_id(entry) for entry in path]
    assert answered == [tool_facts.answered_call_id(to_json_dict(entry)) for entry in path]
    assert sorted(filter(None, answered)) == sorted(call for calls in declared for call in calls)
