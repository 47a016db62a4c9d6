"""Generated sessions for the benchmark: long, realistic, and still valid (R1, R11–R14).

A session is one system message followed by interaction groups shaped like a
coding agent's turns: user → assistant with tool calls → one result per call →
final answer. Every group is complete (each call has its result, R12), so
``build_context`` accepts the path and the budget can only keep or drop whole
groups. Sizes are exact, so "10x the entries" really is 10x.
"""

from __future__ import annotations

from collections.abc import Sequence

from course_lib import PathBuilder, SessionEntry, estimate_tokens_chars

GROUP_SIZE = 5
"""user, assistant (two calls), two results, final answer."""

_FILLER = (
    "The active path restores only the chosen branch; older groups stay on disk "
    "and only the projection is trimmed to the budget. "
)


def generate_session(n_entries: int) -> list[SessionEntry]:
    """A linear path of exactly ``n_entries`` entries: ``sys`` then whole groups.

    Groups have two tool calls; the last group takes between two and six calls so
    the total comes out exact without ever leaving a call unanswered.
    """
    if n_entries < 1 + GROUP_SIZE:
        raise ValueError(f"a session needs at least {1 + GROUP_SIZE} entries, got {n_entries}")
    builder = PathBuilder().system("sys", "You review code and keep diffs small.")
    remaining = n_entries - 1
    group = 0
    while remaining:
        calls = 2 if remaining >= 2 * GROUP_SIZE else remaining - 3
        _add_group(builder, group, calls)
        remaining -= 3 + calls
        group += 1
    return builder.entries


def _add_group(builder: PathBuilder, group: int, calls: int) -> None:
    """One interaction; text lengths vary a little so the costs are not all equal."""
    g = f"g{group}"
    filler = _FILLER * (1 + group % 3)
    builder.user(f"{g}-user", f"Turn {group}: check module {group % 97} and run its tests. {filler}")
    tool_calls = [
        (f"{g}-call-{c}", "read" if c % 2 == 0 else "test", {"path": f"src/mod_{group % 97}.py", "line": c})
        for c in range(calls)
    ]
    builder.assistant(f"{g}-calls", "Reading, then testing.", tool_calls=tool_calls)
    for c, (call_id, name, _) in enumerate(tool_calls):
        builder.tool_result(f"{g}-result-{c}", call_id, name, f"{name} ok for step {c}. {filler}")
    builder.assistant(f"{g}-answer", f"Module {group % 97} matches its tests. {filler}")


def tenth_budget(path: Sequence[SessionEntry], *, reserved_output: int = 512, safety_margin: int = 64) -> dict[str, int]:
    """Options for ``build_context`` that leave room for about a tenth of the messages."""
    costs = [estimate_tokens_chars(entry.message) for entry in path if entry.type == "message"]
    system, messages = costs[0], sum(costs[1:])
    return {
        "max_tokens": system + reserved_output + safety_margin + messages // 10,
        "reserved_output": reserved_output,
        "safety_margin": safety_margin,
    }
