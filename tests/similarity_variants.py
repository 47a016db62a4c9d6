"""Honest solutions written apart from the course's: how much alike independent work is (docs/grading.md, *Similarity*).

Each variant is a lab's exercise cells as another learner might write them
from the chapter alone: the same functions, the same rules, its own way (loops
or slices, helpers or not, other names). ``tests/grader/similarity/test_similarity.py`` grades
them in process (full marks) and checks none is reported against the others,
the course's solution or ``course_lib``'s implementation;
``scripts/similarity_figures.py`` prints how alike each pair is.
"""

from __future__ import annotations

import copy

from grading_corpus import solution, tagged
from nbformat import NotebookNode

TOKEN_COUNT_A = '''def token_count(what: str, value: Any) -> int | float:
    """Budgets and estimates must be finite numbers >= 0; a bool is not a number (R15)."""
    if type(value) not in (int, float):
        raise ValueError(f"{what}: expected an int or a float, got {type(value).__name__} (R15)")
    if value != value or value in (math.inf, -math.inf) or value < 0:
        raise ValueError(f"{what} must be finite and not negative, got {value} (R15)")
    return value
'''

BUILD_CONTEXT_A = '''

def build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens) -> BuildContextResult:
    """Project the active path onto a token budget: fixed costs first, then whole groups, newest first."""
    limits = {name: token_count(name, value) for name, value in
              (("max_tokens", max_tokens), ("reserved_output", reserved_output), ("safety_margin", safety_margin))}
    estimate = lambda msg: token_count("estimate", estimate_tokens(copy.deepcopy(msg)))
    entries = list(filter(lambda e: e.type == "message", active_path))
    prompt = current_system_message([e.message for e in entries])
    prompt_tokens = 0 if prompt is None else estimate(prompt)
    left = limits["max_tokens"] - prompt_tokens - limits["reserved_output"] - limits["safety_margin"]
    left = left if left > 0 else 0
    all_groups = group_interactions(entries)
    sizes = [sum(map(estimate, (e.message for e in g.entries))) for g in all_groups]
    take = 0
    spent = 0
    while take < len(all_groups) and spent + sizes[len(all_groups) - 1 - take] <= left:
        spent += sizes[len(all_groups) - 1 - take]
        take += 1
    if take == len(all_groups):
        chosen, why = all_groups, "within_budget"
    elif take == 0:
        chosen, spent, why = all_groups[-1:], sizes[-1], "single_group_overflow"
    else:
        chosen, why = all_groups[len(all_groups) - take:], "trimmed"
    ids, out = [], [] if prompt is None else [prompt]
    for g in chosen:
        for e in g.entries:
            ids.append(e.id)
            out.append(copy.deepcopy(e.message))
    projection = TokenProjection(max_tokens=limits["max_tokens"], system=prompt_tokens, messages=spent,
                                 reserved_output=limits["reserved_output"], safety_margin=limits["safety_margin"],
                                 available_for_messages=left,
                                 total=prompt_tokens + spent + limits["reserved_output"] + limits["safety_margin"])
    return BuildContextResult(messages=out, kept_entry_ids=ids, reason=why, tokens=projection)
'''

TOKEN_COUNT_B = '''def token_count(what: str, value: Any) -> int | float:
    """Budgets and estimates must be finite numbers >= 0; a bool is not a number (R15)."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float))
    ok = ok and math.isfinite(value) and value >= 0
    if not ok:
        raise ValueError("R15: " + what + " is " + repr(value) + ", not a finite number >= 0")
    return value
'''

BUILD_CONTEXT_B = '''

def _fits(costs, room):
    """How many of the newest groups fit in room, counting from the end (R19)."""
    total = 0
    for n, c in enumerate(costs[::-1]):
        if total + c > room:
            return n, total
        total += c
    return len(costs), total


def build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens) -> BuildContextResult:
    """Project the active path onto a token budget: fixed costs first, then whole groups, newest first."""
    budget = token_count("max_tokens", max_tokens)
    reserve = token_count("reserved_output", reserved_output)
    margin = token_count("safety_margin", safety_margin)
    def price(m):
        return token_count("estimate_tokens", estimate_tokens(copy.deepcopy(m)))
    msgs = []
    for item in active_path:
        if item.type == "message":
            msgs.append(item)
    sys_msg = current_system_message([item.message for item in msgs])
    sys_cost = price(sys_msg) if sys_msg else 0
    room = max(budget - sys_cost - reserve - margin, 0)
    grouped = group_interactions(msgs)
    group_costs = []
    for grp in grouped:
        group_costs.append(sum(price(item.message) for item in grp.entries))
    count, used = _fits(group_costs, room)
    if count == len(grouped):
        keep, status = grouped, "within_budget"
    elif count:
        keep, status = grouped[len(grouped) - count:], "trimmed"
    else:
        keep = [grouped[-1]]
        used = group_costs[-1]
        status = "single_group_overflow"
    flat = [item for grp in keep for item in grp.entries]
    result_messages = ([sys_msg] if sys_msg else []) + [copy.deepcopy(item.message) for item in flat]
    return BuildContextResult(
        messages=result_messages,
        kept_entry_ids=[item.id for item in flat],
        reason=status,
        tokens=TokenProjection(
            max_tokens=budget, system=sys_cost, messages=used, reserved_output=reserve,
            safety_margin=margin, available_for_messages=room, total=sys_cost + used + reserve + margin,
        ),
    )
'''

CHECK_TOOL_FACTS_A = '''def check_tool_facts(group: list[MessageEntry]) -> None:
    """Pair tool calls and results by id only; position and completion order do not matter (R12)."""
    declared = {}
    answered = {}
    for item in group:
        msg = item.message
        if msg.role == "assistant":
            for part in msg.content:
                if isinstance(part, ToolCall):
                    if part.id in declared:
                        raise tool_facts.declared_twice(part.id, declared[part.id], item.id)
                    declared[part.id] = item.id
        elif msg.role == "toolResult":
            if msg.tool_call_id in answered:
                raise tool_facts.answered_twice(msg.tool_call_id, answered[msg.tool_call_id], item.id)
            answered[msg.tool_call_id] = item.id
    first = group[0].id
    orphans = [call for call in answered if call not in declared]
    if orphans:
        raise tool_facts.unknown_call(answered[orphans[0]], orphans[0], first)
    missing = [call for call in declared if call not in answered]
    if missing:
        raise tool_facts.unanswered(missing[0], declared[missing[0]], first)
'''

GROUP_INTERACTIONS_A = '''

def group_interactions(message_entries: Iterable[MessageEntry]) -> list[InteractionGroup]:
    """Split message entries into interaction groups, as independent copies (R11–R14)."""
    spans = []
    for item in message_entries:
        role = item.message.role
        if role == "system":
            continue
        if role == "user":
            spans.append([item])
        elif spans:
            spans[-1].append(item)
        else:
            raise tool_facts.before_first_user(item.id, role)
    out = []
    for span in spans:
        check_tool_facts(span)
        out.append(InteractionGroup(entries=tuple(copy.deepcopy(e) for e in span)))
    return out
'''

CREATE_COMPACTION_ENTRY_A = '''def create_compaction_entry(
    active_path, *, id: str, timestamp: int | float, summary: Any, first_kept_entry_id: str, tokens_before: int | float
) -> CompactionEntry:
    """A new compaction entry for the end of the path; the path and any store are left alone (R24)."""
    entries = [e for e in active_path]
    if len(entries) == 0:
        raise CompactionError("R25: the path is empty, so the compaction would have no parent")
    known = {e.id: e for e in entries}
    if id in known:
        raise CompactionError(f"R26: {id!r} is taken by an entry on the path", entry_id=id)
    starts = set()
    for g in group_interactions([e for e in entries if e.type == "message"]):
        starts.add(g.entries[0].id)
    if first_kept_entry_id not in starts:
        target = known.get(first_kept_entry_id)
        if target is None:
            why = "is not on the path"
        elif target.type != "message":
            why = "is a " + target.type + " entry"
        else:
            why = "is a " + target.message.role + " message"
        raise CompactionError(
            f"R27: firstKeptEntryId {first_kept_entry_id!r} {why}; it must start an interaction group",
            entry_id=first_kept_entry_id,
        )
    wire = dict(type="compaction", id=id, parentId=entries[-1].id, timestamp=timestamp,
                firstKeptEntryId=first_kept_entry_id, tokensBefore=tokens_before, summary=to_json_dict(summary))
    return parse_session_entry(wire)
'''

VARIANTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "11.2": ((CHECK_TOOL_FACTS_A + GROUP_INTERACTIONS_A,),),
    "11.3": ((TOKEN_COUNT_A + BUILD_CONTEXT_A,), (TOKEN_COUNT_B + BUILD_CONTEXT_B,)),
    "11.4": ((CREATE_COMPACTION_ENTRY_A,),),
}
"""Per lab, each variant's exercise cells (as many as the lab has, in order)."""


def variant_notebook(lab: str, cells: tuple[str, ...]) -> NotebookNode:
    """The lab's solution notebook with its exercise cells replaced by ``cells``."""
    notebook = copy.deepcopy(solution(lab))
    exercise = tagged(notebook, "exercise")
    assert len(exercise) == len(cells), f"Lab {lab} has {len(exercise)} exercise cells"
    for cell, source in zip(exercise, cells):
        cell.source = source
    return notebook


def renamed(source: str) -> str:
    """``source`` with every name of its own renamed (``n1``, ``n2`` …), comments and docstrings dropped: a disguised paste."""
    import builtins
    import io
    import keyword
    import tokenize

    names: dict[str, str] = {}
    out: list[tokenize.TokenInfo] = []
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            continue
        if token.type == tokenize.STRING and previous in (tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT):
            token = token._replace(string='""')  # a docstring (or a bare string statement): emptied
        elif (
            token.type == tokenize.NAME and not keyword.iskeyword(token.string) and not hasattr(builtins, token.string)
        ):
            token = token._replace(string=names.setdefault(token.string, f"n{len(names) + 1}"))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.type
        out.append(token)
    return tokenize.untokenize(out)


def pasteable(source: str, package: str = "course_lib") -> str:
    """A course module as a learner pastes it into a cell: its imports absolute, no ``__future__`` line."""
    lines = [line for line in source.splitlines() if line != "from __future__ import annotations"]
    return "\n".join(
        line.replace("from .", f"from {package}.", 1) if line.startswith("from .") else line for line in lines
    )


def variants(lab: str) -> dict[str, tuple[str, ...]]:
    """The lab's honest solutions written apart, by name: the course's own and each variant here."""
    from course_grader.intake.cells import exercise_sources

    found = {"solution": exercise_sources(solution(lab))}
    for index, cells in enumerate(VARIANTS.get(lab, ()), start=1):
        found[f"variant {index}"] = cells
    return found
