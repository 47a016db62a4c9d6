"""Lab 11.5's checks: resume from the latest compaction, its summary, its budget and compacting again (R5–R27)."""

from __future__ import annotations

import re
from typing import Any

from ... import fixtures
from ...builders import PathBuilder
from ...context import latest_compaction
from ...paths import path_to
from ...teaching.i18n import message
from ...teaching.wording import Wording, say
from ..check import Implementation, LabChecks
from ..expect import (
    Diagnosis,
    diagnosis_template,
    expect,
    expect_equal,
    expect_independent,
    expect_rejects,
    expect_same,
    observe,
    wire,
)
from .shared import (
    GROUP_2_AND_3,
    GROUP_3,
    PATCHED_SYSTEM,
    Selection,
    build,
    change_a_tool_argument,
    costed,
    expect_budget_guards,
    expect_history_stays,
    observe_head,
    system_message,
)

CHECKS = LabChecks("11.5")


def observe_build(result: Any, what: Wording) -> None:
    """A build result, observed one part at a time, each part under the rule that decides it.

    Judged against the reference's build of the same path: the system message
    (R16), the summary (R18), the order of the head (R21), the kept ids
    (R18/R19), the reason (R20), the room for messages (R17), the tokens (R22)
    and then every message (R21). So a build that differs is blamed on the
    first rule it breaks, whichever check built it.
    """
    observe_head(result, what)
    messages = list(result.messages)
    roles = [getattr(m, "role", None) for m in messages]
    observe(roles, "R21", say("{what}: the roles of the messages, in order", what=what))
    observe(list(result.kept_entry_ids), "R18/R19", say("{what}: kept_entry_ids", what=what))
    observe(result.reason, "R20", say("{what}: reason", what=what))
    observe(result.tokens.available_for_messages, "R17", say("{what}: tokens.availableForMessages", what=what))
    observe(wire(result.tokens), "R22", say("{what}: tokens", what=what))
    observe(wire(messages), "R21", say("{what}: the messages", what=what))


EXPECTED_SUMMARY_TEXT = "\n".join(
    [
        "[Compaction summary]",
        "Goal: Verify session restore and JSONL writes.",
        "Constraints:",
        "- History is append-only.",
        "Completed:",
        "- Checked the session-restore logic.",
        "Decisions:",
        "- Restore only the active path.",
        "Changed files:",
        "- (none)",
        "Unresolved:",
        "- (none)",
        "Next:",
        "- Add a regression test.",
    ]
)


def _resumed_build(impl: Implementation, path: list[Any], budget: dict[str, int]) -> Any:
    """A build of a compacted path; a crash at the entry right after ``firstKeptEntryId`` is explained as such (R18).

    ``firstKeptEntryId`` is inclusive: the entry it names is the first kept. A
    suffix started one entry later opens on an assistant message, which
    ``group_interactions`` refuses: the learner should read about the cut point,
    not about that entry.
    """
    try:
        return build(impl, path, budget)
    except NotImplementedError:
        raise
    except Exception as exc:
        kept = latest_compaction(path)
        ids = [entry.id for entry in path]
        if kept is None or kept.first_kept_entry_id not in ids[:-1]:
            raise
        after = ids[ids.index(kept.first_kept_entry_id) + 1]
        if not re.search(rf"(?<![\w-]){re.escape(after)}(?![\w-])", str(exc)):
            raise
        first_line = (str(exc).splitlines() or [""])[0][:160]
        error = f"{type(exc).__name__}: {first_line}"
        raise Diagnosis(
            say(CUT_POINT_INCLUSIVE, kept=repr(kept.first_kept_entry_id), after=repr(after), error=error)
        ) from exc


SYSTEM_REPLAYED_FROM_THE_WHOLE_PATH = message(
    "the system message replayed from the whole path, the compacted part included, not from the entries after the "
    "compaction alone ({selection})"
)

CUT_POINT_INCLUSIVE = diagnosis_template(
    "R18: firstKeptEntryId {kept} is itself kept (the cut point is inclusive), "
    "but your build_context started at {after}, the entry after it ({error})"
)


RESUMED_TOKENS = {
    "maxTokens": 80, "system": 3, "messages": 70, "reservedOutput": 4,
    "safetyMargin": 2, "availableForMessages": 71, "total": 79,
}  # fmt: skip
"""The tokens of the resumed path's build at the resume budget: the summary's 40 are counted in messages (R18, R22)."""


@CHECKS.case(12, "R10 R18 R21")
def test_resume_through_path_to(impl: Implementation) -> None:
    path = path_to(fixtures.sibling_tree(), "a4")
    result = _resumed_build(impl, path, fixtures.RESUME_BUDGET)
    observe_head(result, say("the resumed path"))
    kept = GROUP_2_AND_3 + ["u4", "a4"]
    expect_equal(list(result.kept_entry_ids), kept, "R18", "kept ids after compact-1 (from u2, then u4, a4)")
    expect_equal([m.role for m in result.messages][:2], ["system", "user"], "R21", "the head: system, then the summary")
    expect_equal(len(result.messages), 2 + len(kept), "R21", "message count (system + summary + kept)")
    summary = result.messages[1]
    expect_equal(summary.content[0].text, EXPECTED_SUMMARY_TEXT, "R18", "the summary message's exact text")
    expect_equal(summary.timestamp, 100, "R18", "the summary message's timestamp (the compaction's)")
    texts = " ".join(b.text for m in result.messages[1:] for b in m.content if b.type == "text")
    for absent in ("Try the sibling branch.", "Check session-restore logic.", "Restores only chosen branch."):
        expect(
            absent not in texts,
            "R18",
            say("{text} (a sibling or summarized message) must not be sent", text=repr(absent)),
        )
    expect_equal(result.reason, "within_budget", "R20", "reason for the resumed path")
    expect_equal(
        wire(result.tokens),
        RESUMED_TOKENS,
        "R18/R22",
        "tokens for the resumed path (the summary's 40 counted in messages)",
    )
    for first_kept, what in (
        ("a2", say("an assistant message")),
        ("sys", say("a system message")),
        ("note", say("a metadata entry")),
        ("u4", say("an entry after the compaction")),
    ):
        expect_rejects(
            "R18",
            say("a compaction keeping from {entry} ({what})", entry=repr(first_kept), what=what),
            lambda k=first_kept: build(impl, fixtures.resumed_keeping_from(k), fixtures.RESUME_BUDGET),
            (first_kept,),
        )
    expect_history_stays(impl, fixtures.resumed_keeping_from("u2"), say("a resumed path with metadata"))


@CHECKS.case(13, "R18 R23")
def test_only_the_newest_compaction_is_read(impl: Implementation) -> None:
    path = fixtures.twice_compacted_path()
    first = _resumed_build(impl, path, fixtures.RESUME_BUDGET)
    summaries = [m for m in first.messages if m.role == "user" and m.content[0].text.startswith("[Compaction summary]")]
    expect_equal(len(summaries), 1, "R18", "number of summary messages (only the latest compaction is read)")
    text = summaries[0].content[0].text
    expect("Goal: Finish the regression test." in text, "R18", "the summary must be compact-2's")
    expect(
        text.count("- (none)") == 4,
        "R18",
        say("empty lists must render '- (none)' (4 of them in compact-2); got {text}", text=repr(text)),
    )
    expect_equal(
        list(first.kept_entry_ids)[:2], ["u3", "calls"], "R18", "the suffix must start at compact-2's firstKeptEntryId"
    )
    observe_build(first, say("the twice-compacted path"))
    second = build(impl, path, fixtures.RESUME_BUDGET)
    expect_same(wire(first), wire(second), "R23", "two builds of the same path and options")
    expect_independent(first, second, "R23", "two build results")
    expect_independent(path, first, "R23", "the session and a build result")
    resumed = fixtures.resumed_path()
    before = wire(resumed)
    earlier = build(impl, resumed, fixtures.RESUME_BUDGET)
    change_a_tool_argument(earlier)
    expect_equal(wire(resumed), before, "R23", "the session after changing a returned tool argument")
    expect_same(
        wire(build(impl, fixtures.resumed_path(), fixtures.RESUME_BUDGET)),
        wire(build(impl, resumed, fixtures.RESUME_BUDGET)),
        "R23",
        "a fresh build and a later build after changing an earlier result",
    )
    expect_budget_guards(impl, resumed)


@CHECKS.case(14, "R19 R24 R27")
def test_resumed_path_compacts_again(impl: Implementation) -> None:
    twice_compacted = _compact_the_resumed_path_again(impl)
    resumed = Selection([["u2", "a2"], GROUP_3, ["u4", "a4"]], [7, 15, 8], fixed=9, summary=40)
    twice = Selection([GROUP_3, ["u4", "a4"], ["u5", "a5"]], [15, 8, 5], fixed=9, summary=40)
    for selection, session in ((resumed, fixtures.resumed_path()), (twice, twice_compacted)):
        _expect_the_selection_at_every_budget(impl, session, selection)
    _expect_the_summary_to_use_up_the_room(impl)
    _expect_free_groups_to_fit_after_a_costly_summary(impl)


def _compact_the_resumed_path_again(impl: Implementation) -> list[Any]:
    """compact-2 created on the resumed path (keeping from u3), then one more exchange: the path compacted twice."""
    path = fixtures.resumed_path()
    again = impl.create_compaction_entry(
        path,
        id="compact-2",
        timestamp=200,
        summary=wire(fixtures.compact_1_summary()),
        first_kept_entry_id="u3",
        tokens_before=70,
    )
    expect_equal(again.parent_id, "a4", "R25", "the second compaction's parent")
    return PathBuilder([*path, again]).user("u5", "Run the suite.").assistant("a5", "Suite passes.").entries


def _expect_the_selection_at_every_budget(impl: Implementation, session: list[Any], selection: Selection) -> None:
    """R17–R19 on a compacted path, at every max_tokens from 5 to 94: the summary first, then whole groups.

    The replayed system message is observed first (R16, R5): a system message replayed from the suffix alone costs
    what the whole path's would not, and every budget's tokens then differ for that reason, not the selection's.
    """
    whole = _resumed_build(impl, session, fixtures.RESUME_BUDGET | {"max_tokens": 94})
    observe(system_message(whole), "R16/R5", say(SYSTEM_REPLAYED_FROM_THE_WHOLE_PATH, selection=selection.describe()))
    for max_tokens in range(5, 95):
        result = _resumed_build(impl, session, fixtures.RESUME_BUDGET | {"max_tokens": max_tokens})
        built = {
            "kept_entry_ids": list(result.kept_entry_ids),
            "reason": result.reason,
            "availableForMessages": result.tokens.available_for_messages,
            "messages": result.tokens.messages,
        }
        expect_equal(
            built,
            selection.expected(max_tokens, "kept_entry_ids", "reason", "availableForMessages", "messages"),
            "R17/R18/R19",
            say(
                "kept ids, reason and tokens at max_tokens={max_tokens} ({selection})",
                max_tokens=max_tokens,
                selection=selection.describe(),
            ),
        )


def _expect_the_summary_to_use_up_the_room(impl: Implementation) -> None:
    """The resumed path at the chapter's budget: the summary's 40 exceed the 22 available (R18, R20)."""
    tight = build(impl, fixtures.resumed_path(), fixtures.OPENING_BUDGET)
    built = {"kept_entry_ids": list(tight.kept_entry_ids), "reason": tight.reason, "tokens": wire(tight.tokens)}
    expected = {
        "kept_entry_ids": ["u4", "a4"],
        "reason": "single_group_overflow",
        "tokens": {
            "maxTokens": 31,
            "system": 3,
            "messages": 48,
            "reservedOutput": 4,
            "safetyMargin": 2,
            "availableForMessages": 22,
            "total": 57,
        },
    }
    expect_equal(
        built,
        expected,
        "R18/R20",
        "the resumed path at max_tokens 31 (the summary alone uses up the 22 available)",
    )


def _expect_free_groups_to_fit_after_a_costly_summary(impl: Implementation) -> None:
    """A summary costing more than is available leaves a room of 0, never less (R17, R18)."""
    costly = PathBuilder().user("u1", "u1").assistant("a1", "a1").user("u2", "u2")
    costly.add(fixtures.compact_1(costly.entries, firstKeptEntryId="u1"))
    starved = impl.build_context(
        costly.entries,
        max_tokens=5,
        reserved_output=0,
        safety_margin=0,
        estimate_tokens=costed({"u1": 0, "a1": 0, "u2": 0, "[Compaction summary]": 7}),
    )
    built = {"kept_entry_ids": list(starved.kept_entry_ids), "reason": starved.reason}
    expected = {"kept_entry_ids": ["u1", "a1", "u2"], "reason": "within_budget"}
    expect_equal(
        built,
        expected,
        "R17/R18",
        "a summary costing 7 of 5 available: the room left is 0, never negative, so free groups still fit",
    )


@CHECKS.case(15, "R5 R6 R16 R27")
def test_system_replays_across_the_compaction(impl: Implementation) -> None:
    path = fixtures.system_replay_path()
    result = _resumed_build(impl, path, {"max_tokens": 200, "reserved_output": 4, "safety_margin": 2})
    expect_equal(
        system_message(result),
        PATCHED_SYSTEM,
        "R16/R6",
        "the system message replayed from the whole path, before and after the compaction (R6's example)",
    )
    expect_equal(
        list(result.kept_entry_ids), ["u2", "a2", "u3", "a3"], "R18", "kept ids (no system message in a group)"
    )
    expect_equal(
        [m.role for m in result.messages],
        ["system", "user", "user", "assistant", "user", "assistant"],
        "R18/R21",
        "roles: the replayed system message, the summary, then the kept messages",
    )
    expect_equal(
        [m.role for m in result.messages].count("system"),
        1,
        "R18",
        "system messages in the result (folded into the head)",
    )
    summary = result.messages[1].content[0].text
    for prompt_text in ("BASE", "RULE", "Prefer small diffs."):
        expect(
            prompt_text not in summary,
            "R18",
            say("the summary must carry none of the system prompt ({text})", text=repr(prompt_text)),
        )
    expect_rejects(
        "R27",
        "firstKeptEntryId 'patch-2' (a system message)",
        lambda: impl.create_compaction_entry(
            path,
            id="compact-2",
            timestamp=300,
            summary=wire(fixtures.compact_1_summary()),
            first_kept_entry_id="patch-2",
            tokens_before=10,
        ),
        ("patch-2",),
    )
