"""Mutants that attack the grader instead of misreading a rule: a table of hidden answers, a subclass that hides sharing.

**Tabulating** (Labs 11.2, 11.3, 11.5 and the capstone's thresholds). A learner who has the course pack can run the grader offline
under a seed of their own, record what the reference returns on every covering
call, and hand in a function that answers those calls from the table (keyed by
the call's inputs) and falls back to a plausible wrong implementation for
everything else. The covering set's ids, texts, costs and budgets come from the
run's seed (``course_grader.judging.covering``), so under any other seed the table
answers nothing and the wrong fallback is graded; under the recording seed
itself the drawn cases still catch the fallback. ``RECORDED_SEED`` is the
learner's seed: not one ``make mutants`` grades under, as no learner can know
the seed a graded run draws.

**A subclass that ignores writes.** R13's "groups hold the caller's entries",
where the entries' tool arguments are first swapped for a ``dict`` subclass
that ignores writes: writing into the result then changes nothing the copy
checks could see. The harness and the checklist judge exact types
(``course_lib.checklist.exact``) and compare the input with their own pristine
copy, so it loses the same marks as the plain bug.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from course_grader.judging.covering import covering_calls
from course_grader.judging.hidden import Returned
from course_lib.checklist import harness
from course_lib.teaching import lab_registry

from . import Mutant, mutant

RECORDED_SEED = 4242
"""The seed the tables were recorded under, offline (``course-grade --seed 4242`` on the learner's own machine)."""

KEY = '''
import hashlib as _hashlib
import json as _json

from course_lib.checklist import harness as _harness
from course_lib.parsing import to_json_dict as _to_json_dict


def _table_key(*inputs):
    """The inputs of one call, as the table recorded them: entries in the wire format, numbers, the estimator's name."""
    named = [next((n for n, f in _harness.ESTIMATORS.items() if f is i), i) if callable(i) else i for i in inputs]
    text = _json.dumps(_to_json_dict(named), sort_keys=True, default=repr)
    return _hashlib.sha256(text.encode()).hexdigest()[:20]


def _tabulated(*inputs):
    """The recorded answer for these inputs: ("returned", value), ("rejected", names), or None."""
    return _TABLE.get(_table_key(*inputs))

'''


def _key_function() -> Callable[..., str]:
    names: dict[str, Any] = {"_TABLE": {}}
    exec(compile(KEY, "<table key>", "exec"), names)  # noqa: S102 - the mutant's own key, run offline as in the kernel
    return names["_table_key"]


def _table(lab: str, inputs: Callable[[list[Any], dict[str, Any]], tuple[Any, ...]], function: str = "") -> str:
    """The covering calls' answers under ``RECORDED_SEED`` (of ``function``, or all), as the mutant's cell holds them."""
    key = _key_function()
    table: dict[str, Any] = {}
    for calls in covering_calls(lab_registry.LABS[lab], RECORDED_SEED).values():
        for call in calls:
            if function and call.function != function:
                continue
            args, kwargs = harness.decode(call.request())
            expected = call.expected
            answer = ["returned", expected.value] if isinstance(expected, Returned) else ["rejected", expected.names]
            table[key(*inputs(args, kwargs))] = answer
    return f"_TABLE = _json.loads({json.dumps(table, sort_keys=True)!r})\n"


def _build_inputs(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    options = ("max_tokens", "reserved_output", "safety_margin", "estimate_tokens")
    return (list(args[0]), *(kwargs[name] for name in options))


BUILD = "def build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens) -> BuildContextResult:\n"
BUILD_BODY = '    ### BEGIN SOLUTION\n    max_tokens = token_count("max_tokens", max_tokens)\n'
GROUPS = "def group_interactions(message_entries: Iterable[MessageEntry]) -> list[InteractionGroup]:\n"
GROUPS_BODY = "    ### BEGIN SOLUTION\n    groups: list[InteractionGroup] = []\n"
ANSWER = """    answer = _tabulated({inputs})
    if answer and answer[0] == "rejected":
        raise ValueError("rejected: " + ", ".join(answer[1]))
    if answer:
        return {rebuilt}
"""


def _tabulating_build(lab: str) -> Mutant:
    inputs = "list(active_path), max_tokens, reserved_output, safety_margin, estimate_tokens"
    answer = ANSWER.format(inputs=inputs, rebuilt="BuildContextResult.model_validate(answer[1])")
    return mutant(
        lab,
        "tabulated_covering_calls",
        "R19",
        f"answers the covering calls from a table recorded under seed {RECORDED_SEED}; otherwise skips a group "
        "that does not fit and keeps looking at older ones",
        (BUILD, KEY + _table(lab, _build_inputs) + "\n\n" + BUILD),
        (BUILD_BODY, BUILD_BODY.replace("    max_tokens =", answer + "    max_tokens =")),
        ("            break\n", "            continue\n"),
    )


def _threshold_inputs(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    return kwargs["context_tokens"], kwargs["context_window"], kwargs["settings"]


SHOULD = "def should_compact(context_tokens, context_window, settings) -> bool:\n"
SHOULD_BODY = "    ### BEGIN SOLUTION\n    number = isinstance(context_tokens"


def _tabulating_capstone() -> Mutant:
    answer = ANSWER.format(inputs="context_tokens, context_window, settings", rebuilt="answer[1]")
    return mutant(
        "capstone",
        "tabulated_covering_calls",
        "L2",
        f"answers should_compact's covering calls from a table recorded under seed {RECORDED_SEED}; otherwise "
        "compacts at the threshold too",
        (
            SHOULD,
            KEY + _table("capstone", _threshold_inputs, "should_compact") + "\n\n" + SHOULD,
        ),
        (SHOULD_BODY, SHOULD_BODY.replace("    number =", answer + "    number =")),
        ("context_tokens > threshold", "context_tokens >= threshold"),
    )


def _tabulating_11_2() -> Mutant:
    rebuilt = "[InteractionGroup(entries=tuple(parse_session_entry(e) for e in group)) for group in answer[1]]"
    answer = ANSWER.format(inputs="list(message_entries)", rebuilt=rebuilt)
    missing_result = """    for call_id, call_entry in calls.items():
        if call_id not in results:
            raise tool_facts.unanswered(call_id, call_entry, start)
"""
    return mutant(
        "11.2",
        "tabulated_covering_calls",
        "R12",
        f"answers the covering calls from a table recorded under seed {RECORDED_SEED}; otherwise a call without "
        "a result is not checked",
        (
            GROUPS,
            KEY
            + "from course_lib.parsing import parse_session_entry\n"
            + _table("11.2", lambda args, kwargs: (list(args[0]),))
            + "\n\n"
            + GROUPS,
        ),
        (GROUPS_BODY, GROUPS_BODY.replace("    groups:", answer + "    groups:")),
        (missing_result, ""),
    )


SETTLED = '''

class _Settled(dict):
    """A dict that ignores writes: whatever a caller changes in a group, the session looks the same."""

    def __setitem__(self, key, value):
        pass

    def update(self, *args, **kwargs):
        pass


def _settle(value):
    if isinstance(value, dict):
        return _Settled({key: _settle(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_settle(item) for item in value]
    return value


def _settled(entry):
    """The caller's own entry, its tool arguments (at every depth) swapped for dicts that ignore writes."""
    for block in getattr(entry.message, "content", ()):
        if isinstance(block, ToolCall):
            object.__setattr__(block, "arguments", _settle(block.arguments))
    return entry
'''

MUTANTS = (
    _tabulating_build("11.3"),
    _tabulating_build("11.5"),
    _tabulating_capstone(),
    _tabulating_11_2(),
    mutant(
        "11.2",
        "shares_entries_behind_a_subclass",
        "R13",
        "groups hold the caller's entries, whose tool arguments became a dict subclass that ignores writes",
        (
            "InteractionGroup(entries=tuple(copy.deepcopy(entry) for entry in group))",
            "InteractionGroup(entries=tuple(_settled(entry) for entry in group))",
        ),
        ("    ### END SOLUTION\n\n\n" + GROUPS, "    ### END SOLUTION\n" + SETTLED + "\n\n" + GROUPS),
    ),
)
