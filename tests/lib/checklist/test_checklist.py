"""The fifteen checklist tests against the reference, and proof that each one can fail.

``test_checklist_case`` is the chapter's acceptance run (15 passed). The mutant
tests hand the checklist a deliberately broken function and expect the named
check to fail with a one-line message citing the rule.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import course_lib
from course_lib import checklist
from course_lib.checklist import CASES, Implementation
from course_lib.checklist.runner import run_case
from course_lib.context import build_context as reference_build
from course_lib.models import CompactionEntry, MessageEntry
from course_lib.parsing import ENTRY_ADAPTER
from course_lib.teaching import lab_registry


@pytest.mark.parametrize("case", CASES, ids=[f"{c.number:02d}-lab{c.lab}-{c.name}" for c in CASES])
def test_checklist_case(case: checklist.Case) -> None:
    record = run_case(case, Implementation())
    assert record.status == "passed", record.message


def test_fifteen_checks_split_3_3_3_2_4() -> None:
    """The chapter's fifteen; then every lab has the checks its registry entry states, numbered on from there."""
    per_lab = {lab: len(checklist.select(lab)) for lab in checklist.LABS}
    assert list(per_lab.values())[:5] == [3, 3, 3, 2, 4]
    assert [c.number for c in checklist.select()] == list(range(1, 16))
    assert per_lab == {lab.id: lab.checks for lab in lab_registry.LABS.values()}
    assert [c.number for c in CASES] == list(range(1, len(CASES) + 1))


def test_report_for_the_reference() -> None:
    report = checklist.run()
    assert (report.passed, report.total, report.all_passed) == (15, 15, True)
    assert "15/15 passed" in str(report)
    assert "<table>" in report._repr_html_()
    frame = report.to_dataframe()
    assert list(frame.columns) == ["lab", "name", "rules", "status", "message"]
    gradescope = report.to_gradescope()
    assert {t["max_score"] for t in gradescope} == {1} and len(gradescope) == 15


def _not_yet(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("Lab 11.3 not implemented yet: build_context")


def test_stub_shows_not_implemented_yet() -> None:
    report = checklist.run(lab="11.3", build_context=_not_yet)
    assert [r.status for r in report.records] == ["not implemented yet"] * 3
    assert all("Lab 11.3 not implemented yet" in r.message for r in report.records)
    assert report.summary == "Lab 11.3: 0/3 passed"


def test_unknown_function_name_is_refused() -> None:
    with pytest.raises(TypeError, match="build_contxt"):
        checklist.run(build_contxt=reference_build)


@pytest.mark.parametrize("lab", ["11.3", "Lab 11.3", 3, "3"])
def test_lab_names(lab: Any) -> None:
    assert checklist.run(lab=lab).lab == "11.3"


# --- mutants: each broken function must make its check fail --------------------------


def lenient_parse(value: Any) -> Any:
    """Ignores unknown keys and missing lists: a parser without R1."""
    if value.get("type") == "compaction":
        value = dict(value)
        value.pop("compactedEntryIds", None)
        summary = {
            k: v
            for k, v in value["summary"].items()
            if k in CompactionEntry.model_fields["summary"].annotation.model_fields or k == "changedFiles"
        }
        for key in ("constraints", "completed", "decisions", "changedFiles", "unresolved", "next"):
            summary.setdefault(key, [])
        value["summary"] = summary
    return course_lib.parse_session_entry(value)


def sharing_parse(value: Any) -> Any:
    """Builds the model without copying the caller's lists: breaks R3."""
    entry = ENTRY_ADAPTER.validate_python(value, by_alias=True, by_name=False)
    if isinstance(entry, CompactionEntry):
        object.__setattr__(entry.summary, "decisions", value["summary"]["decisions"])
    return entry


def sharing_groups(entries: Any) -> Any:
    """Returns the caller's entry objects: breaks R13."""
    groups = course_lib.group_interactions(entries)
    by_id = {e.id: e for e in entries}
    return [course_lib.InteractionGroup(tuple(by_id[e.id] for e in g.entries)) for g in groups]


def positional_groups(entries: Any) -> Any:
    """Starts a new group at every assistant message after a tool result: breaks R12."""
    groups: list[list[Any]] = []
    for entry in entries:
        role = entry.message.role
        if role == "system":
            continue
        if role == "user" or (role == "assistant" and groups and groups[-1][-1].message.role == "toolResult"):
            groups.append([entry])
        else:
            groups[-1].append(entry)
    return [course_lib.InteractionGroup(tuple(g)) for g in groups]


def unchecked_groups(entries: Any) -> Any:
    """Splits at user messages but never checks tool ids: breaks R11/R12."""
    groups: list[list[Any]] = []
    for entry in entries:
        if entry.message.role == "system":
            continue
        if entry.message.role == "user" or not groups:
            groups.append([entry])
        else:
            groups[-1].append(entry)
    return [course_lib.InteractionGroup(tuple(g)) for g in groups]


def ignores_reserve(path: Any, **options: Any) -> Any:
    """Forgets to deduct reserved_output: breaks R17."""
    return reference_build(path, **{**options, "reserved_output": 0})


def drops_overflowing_group(path: Any, **options: Any) -> Any:
    """Returns nothing when the newest group does not fit: breaks R20."""
    result = reference_build(path, **options)
    if result.reason == "single_group_overflow":
        return result.model_copy(update={"messages": result.messages[:1], "kept_entry_ids": ()})
    return result


def per_message_trim(path: Any, **options: Any) -> Any:
    """Trims message by message instead of by group: breaks R19."""
    estimate = options["estimate_tokens"]
    result = reference_build(path, **options)
    room = result.tokens.available_for_messages
    kept: list[str] = []
    for entry in reversed([e for e in path if e.type == "message" and e.message.role != "system"]):
        cost = estimate(entry.message)
        if cost > room:
            break
        kept.insert(0, entry.id)
        room -= cost
    return result.model_copy(update={"kept_entry_ids": tuple(kept)})


def sharing_build(path: Any, **options: Any) -> Any:
    """Returns the session's own message objects: breaks R21/R23."""
    result = reference_build(path, **options)
    by_id = {e.id: e.message for e in path if isinstance(e, MessageEntry)}
    head = list(result.messages[: len(result.messages) - len(result.kept_entry_ids)])
    return result.model_copy(update={"messages": (*head, *(by_id[i] for i in result.kept_entry_ids))})


def ignores_compaction(path: Any, **options: Any) -> Any:
    """Lab 11.3's function used for Lab 11.5: compactions are skipped, not resumed from."""
    return reference_build([e for e in path if e.type != "compaction"], **options)


def oldest_compaction(path: Any, **options: Any) -> Any:
    """Resumes from the first compaction instead of the latest: breaks R18."""
    compactions = [e for e in path if e.type == "compaction"]
    if len(compactions) < 2:
        return reference_build(path, **options)
    return reference_build([e for e in path if e not in compactions[1:]], **options)


def caller_parent(path: Any, **options: Any) -> Any:
    """Takes the parent from the first entry instead of the last: breaks R25."""
    entry = course_lib.create_compaction_entry(path, **options)
    return entry.model_copy(update={"parent_id": path[0].id})


def no_first_kept_check(path: Any, **options: Any) -> Any:
    """Accepts any firstKeptEntryId: breaks R27."""
    from course_lib.parsing import parse_session_entry, to_json_dict

    if not path:
        raise ValueError("empty path")
    return parse_session_entry(
        {
            "type": "compaction",
            "id": options["id"],
            "parentId": path[-1].id,
            "timestamp": options["timestamp"],
            "summary": to_json_dict(options["summary"]),
            "firstKeptEntryId": options["first_kept_entry_id"],
            "tokensBefore": options["tokens_before"],
        }
    )


MUTANTS = [
    ("parse_session_entry", lenient_parse, 2, "R1"),
    ("parse_session_entry", sharing_parse, 1, "R3"),
    ("group_interactions", sharing_groups, 4, "R13"),
    ("group_interactions", positional_groups, 5, "R12"),
    ("group_interactions", unchecked_groups, 6, "R11/R12"),
    ("build_context", ignores_reserve, 7, "R17"),
    ("build_context", drops_overflowing_group, 8, "R20"),
    ("build_context", per_message_trim, 9, "R19"),
    ("build_context", sharing_build, 9, "R23"),
    ("create_compaction_entry", caller_parent, 10, "R25"),
    ("create_compaction_entry", no_first_kept_check, 11, "R27"),
    ("build_context", ignores_compaction, 12, "R18"),
    ("build_context", oldest_compaction, 13, "R18"),
    ("build_context", ignores_compaction, 14, "R17/R18/R19"),
    ("build_context", ignores_compaction, 15, "R18"),
]


@pytest.mark.filterwarnings("ignore::UserWarning")  # sharing_parse puts a list where a tuple belongs
@pytest.mark.parametrize(
    ("function", "mutant", "number", "rule"), MUTANTS, ids=[m[1].__name__ + f"-{m[2]}" for m in MUTANTS]
)
def test_mutant_fails_its_check(function: str, mutant: Any, number: int, rule: str) -> None:
    record = run_case(CASES[number - 1], Implementation(**{function: mutant}))
    assert record.status == "failed", (record.status, record.message)
    assert record.message.startswith(rule), record.message
    assert "\n" not in record.message


def test_crash_in_learner_code_is_one_line_error() -> None:
    def crashes(*args: Any, **kwargs: Any) -> Any:
        return dict[str, Any]()["missing"]

    report = checklist.run(lab="11.3", build_context=crashes)
    assert {r.status for r in report.records} == {"error"}
    # named by the rule of the observation the check was making when the learner's code crashed
    assert [r.message.split(":")[0] for r in report.records] == ["R16", "R20", "R19/R20"]
    assert all(
        "— expected a result, but it raised KeyError: 'missing'" in r.message and "\n" not in r.message
        for r in report.records
    )


def test_command_line_exit_status() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "course_lib.checklist", "--lab", "11.4"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Lab 11.4: 2/2 passed" in done.stdout
