"""What travels between a graded kernel and the grader (issue 27).

- the grader's memory is bounded per submission, in total: what it keeps of a
  kernel's replies has a budget (``replies.ReplyBudget``), and a reply flood
  near the frame limit is an ``error`` row with a note, the grading process
  staying small, its neighbour in the batch keeping full marks;
- output never costs marks: the harness's reply comes back in the cell's
  ``execute_reply`` (``harness.collect``), apart from anything printed or
  displayed, which the grader does not read;
- nothing the learner's function can read in the kernel says whether a call is
  covering, drawn or practice: requests carry inputs only, in one form.

The batches run real sandboxes (``sandboxed``); the rest is fast.
"""

from __future__ import annotations

import json
import re
import resource
import runpy
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from grading_corpus import edited, replace, solution

from course_grader import GradeOptions, Limits, SandboxSettings, grade_notebook
from course_grader.batch.batch import grade_folder
from course_grader.judging.hidden_cases import hidden_calls
from course_grader.judging.kernel_run import call_source
from course_grader.judging.verdicts import GradeResult
from course_grader.sandbox.replies import (
    MAX_DEPTH,
    MAX_KEPT,
    MAX_KEPT_MB,
    REPLY,
    ReplyBudget,
    ReplyTooLarge,
    harness_reply,
)
from course_lib.checklist import harness
from course_lib.teaching import lab_registry

FLOOD: str = runpy.run_path(str(Path(__file__).resolve().parents[3] / "scripts" / "reply_flood.py"))["FLOOD"]
"""Every hidden call answered with 3.5 MB of JSON (``scripts/reply_flood.py``, which measures the peak bounded here)."""

LIMITS = Limits(cell_timeout=20, interrupt_grace=2, budget=120)

PRINTS = replace(
    "    for entry in message_entries:\n", "    for entry in message_entries:\n        print(entry.id, flush=True)\n"
)
"""The Lab 11.2 solution with a debugging print left in (issue 27: it scored 3/5, then 2/5)."""

LOUD = """

from IPython.display import display as _display
_quiet_group_interactions = _loud = group_interactions


class _Big:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"application/json": {"rows": [[0] * 10] * 200_000}}, {}  # 6 MB as JSON


def group_interactions(message_entries):
    global _loud
    if _loud:  # once: output over the 4 MB frame limit costs the kernel's time, and the grader's never
        print("x" * 6_000_000, flush=True)
        _display(_Big())
        _loud = None
    return _quiet_group_interactions(message_entries)
"""
"""The solution, printing 6 MB and displaying 6 MB of JSON in its first call: output over the frame limit."""

PEAK_LIMIT_MB = 1024
"""The grading process's peak under the flood (issue 27: "< 1 GB"; ``scripts/reply_flood.py`` measures it)."""


# --- the kernel's side: the reply travels apart from the output ------------------------------------


def _execute_reply(bundle: Any) -> dict[str, Any]:
    """An ``execute_reply``'s content as ipykernel makes it from the harness's user expression."""
    return {"status": "ok", "user_expressions": {REPLY: {"status": "ok", "data": bundle, "metadata": {}}}}


def test_the_reply_is_collected_apart_from_what_the_cell_prints(capsys: pytest.CaptureFixture[str]) -> None:
    def group_interactions(entries: Any) -> list[Any]:
        print("debugging", flush=True)
        print(json.dumps({harness.MIME: {"kind": "returned", "value": "forged"}}), flush=True)
        return []

    call = hidden_calls(lab_registry.LABS["11.2"])[0]
    harness.call({"group_interactions": group_interactions}, json.dumps(call.request()))
    collected = harness.collect()
    assert collected is not None and harness.collect() is None  # one reply per cell, then the slot is empty
    data = collected._repr_mimebundle_()
    assert set(data) == {harness.MIME}
    text = harness_reply(_execute_reply(data))
    assert text is not None and json.loads(text)["value"] == []
    assert "debugging" in capsys.readouterr().out  # printed, to stdout (IOPub in a kernel): never read as the reply


def test_only_the_harness_expression_is_a_reply() -> None:
    assert harness_reply({"status": "ok", "user_expressions": {}}) is None
    assert harness_reply({"status": "ok"}) is None
    assert harness_reply(_execute_reply({"text/plain": "None"})) is None  # collect() found no reply
    assert harness_reply(_execute_reply({harness.MIME: {"kind": "returned"}})) is None  # not the harness's JSON text
    failed = {"status": "ok", "user_expressions": {REPLY: {"status": "error", "ename": "NameError"}}}
    assert harness_reply(failed) is None
    assert harness_reply([]) is None


def test_the_grader_sends_every_cell_with_the_reply_expression_and_reads_no_output() -> None:
    source = Path(sys.modules["course_grader.sandbox.kernel"].__file__ or "").read_text(encoding="utf-8")
    assert "user_expressions={REPLY: COLLECT}" in source
    assert "iopub_channel.close()" in source
    assert "execute_cell(" not in source  # nbclient's cell runner reads the output: not used


# --- the reply budget ---------------------------------------------------------------------------------


def test_replies_are_kept_within_a_budget_of_bytes_and_of_count() -> None:
    budget = ReplyBudget(megabytes=1, count=3)
    assert budget.admit(None) is None and budget.count == 0  # a cell without a reply costs nothing
    assert budget.admit(json.dumps([0] * 100_000)) == [0] * 100_000
    with pytest.raises(ReplyTooLarge, match=r"more than 1\.0 MB, over the grader's budget for one submission"):
        budget.admit(json.dumps([0] * 300_000))
    budget = ReplyBudget(megabytes=1, count=3)
    for _ in range(3):
        budget.admit("{}")
    with pytest.raises(ReplyTooLarge, match="more than 3 replies"):
        budget.admit("{}")
    assert MAX_KEPT_MB * 2**20 > 20 * 400_000 and MAX_KEPT > 150 + 117  # 20x the largest honest lab; practice too


def test_a_reply_is_decoded_only_when_it_is_json_within_the_depth_limit() -> None:
    with pytest.raises(ReplyTooLarge, match="nested deeper"):
        ReplyBudget().admit("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5))
    with pytest.raises(ReplyTooLarge, match="nested deeper"):
        ReplyBudget().admit("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ReplyTooLarge, match="not a Jupyter message"):
        ReplyBudget().admit("{not json")


# --- nothing readable marks a call's kind ---------------------------------------------------------------


def _keys(lab: str) -> list[str]:
    from course_grader.judging.practice import practice_tests

    entry = lab_registry.LABS[lab]
    return [call.key for call in hidden_calls(entry)] + [
        call.key for test in practice_tests(entry) for call in test.calls
    ]


KEY = "|".join(re.escape(key) for key in _keys("11.2"))
"""Lab 11.2's call keys, which labelled its calls in the kernel before (``h112-group_interactions-fixed-001``...)."""

PROBE = f"""
import linecache, re, sys
KEY = re.compile({KEY!r})


def marked(frame, depth=30):
    \"\"\"A call's key in the callers' frames (locals and globals), up to ``depth`` frames up.\"\"\"
    while frame is not None and depth > 0:
        for scope in (frame.f_locals, frame.f_globals):
            for value in list(scope.values()):
                if isinstance(value, (str, dict, list, tuple)) and KEY.search(repr(value)[:200_000]):
                    return True
        frame, depth = frame.f_back, depth - 1
    return False


def in_cells():
    \"\"\"A call's key in any cell source the kernel has compiled (IPython keeps them in linecache).\"\"\"
    return any(KEY.search("".join(lines[2])) for lines in list(linecache.cache.values()) if len(lines) > 2)
"""
"""The tabulating mutant's probe: where a call's label could be read from inside the learner's function."""

MUTANT = (
    PROBE
    + """
_honest_group_interactions = group_interactions


def group_interactions(message_entries):
    if marked(sys._getframe().f_back) or in_cells():
        return []  # a covering or practice call, found by its label: a wrong answer no drawn case would get
    return _honest_group_interactions(message_entries)
"""
)
"""The Lab 11.2 solution, except when its callers' frames, globals or the kernel's cells hold a call's key."""


@pytest.mark.slow  # draws every lab's hidden and practice cases: make test, not make check
def test_a_request_carries_inputs_only_in_one_form_for_every_kind_of_call() -> None:
    from course_grader.judging.practice import practice_tests

    for lab in lab_registry.LABS.values():
        calls = [*hidden_calls(lab), *(call for test in practice_tests(lab) for call in test.calls)]
        for call in calls:
            request = call.request()
            assert set(request) <= {"function", "path", "options", "value", "estimator", "reparse"}, call.key
            assert call.key not in call_source(request), call.key


def test_the_probe_finds_a_key_where_the_old_requests_left_one() -> None:
    """The mutant is not blind: a request that carries its key (as before) is found from the learner's function."""
    probe: dict[str, Any] = {}
    exec(PROBE, probe)  # noqa: S102 - the test's own probe
    call = hidden_calls(lab_registry.LABS["11.2"])[0]

    def harness_call(request_json: str) -> bool:  # the learner's caller, holding the request as harness.call does
        return bool(probe["marked"](sys._getframe(), depth=1))

    assert harness_call(json.dumps({"key": call.key, **call.request()}))
    assert not harness_call(json.dumps(call.request()))


def _verdicts(result: GradeResult) -> list[tuple[str, float, str]]:
    return [(test.name, test.score, test.output) for test in result.tests if test.hidden]


# --- in real sandboxes ---------------------------------------------------------------------------------


def peak_grade(path: Path, options: GradeOptions, *, root: str | None = None) -> GradeResult:
    """``grade_notebook``, writing the grading process's peak RSS next to the row (a batch worker grades one row)."""
    result = grade_notebook(path, options, root=root)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Path(f"{path}.peak").write_text(json.dumps(peak), encoding="utf-8")
    return result


def _write(folder: Path, name: str, notebook: nbformat.NotebookNode) -> Path:
    (folder / name).mkdir(parents=True)
    path = folder / name / "lab_11_2_group_interactions.ipynb"
    nbformat.write(notebook, path)
    return path


@pytest.mark.sandboxed
@pytest.mark.slow
def test_a_reply_flood_is_an_error_and_its_neighbours_are_unharmed_even_by_huge_output(tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    flood = _write(folder, "flood", edited(solution("11.2"), "group_interactions", lambda source: source + FLOOD))
    honest = _write(folder, "honest", solution("11.2"))
    _write(folder, "loud", edited(solution("11.2"), "group_interactions", lambda source: source + LOUD))
    rows = {
        row.student: row
        for row in grade_folder(
            folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), jobs=2, progress=False, grade=peak_grade
        )
    }
    flooded, neighbour = rows["flood"], rows["honest"]
    assert flooded.status == "error", flooded
    assert any("over the grader's budget for one submission" in note for note in flooded.notes), flooded.notes
    peak = json.loads(Path(f"{flood}.peak").read_text())
    assert peak < PEAK_LIMIT_MB, f"the grading process peaked at {peak:.0f} MB under the reply flood"
    assert neighbour.status == "ok" and neighbour.score == neighbour.max_score > 0, neighbour
    assert json.loads(Path(f"{honest}.peak").read_text()) < PEAK_LIMIT_MB
    loud = rows["loud"]  # output is never read: no size of it stops a sandbox or costs a mark
    assert loud.status == "ok" and loud.score == loud.max_score and not loud.notes, loud


@pytest.mark.sandboxed
@pytest.mark.slow
def test_a_solution_that_prints_gets_full_marks_every_time(tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    printing = edited(solution("11.2"), "group_interactions", PRINTS)
    for number in range(20):
        _write(folder, f"printer{number:02d}", printing)
    results = grade_folder(folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), jobs=2, progress=False)
    assert len(results) == 20
    for result in results:
        feedback = "\n".join([*result.notes, *(test.output for test in result.tests if not test.score)])
        assert result.status == "ok" and result.score == result.max_score > 0, (result.student, feedback)
        assert not result.notes, (result.student, result.notes)


@pytest.mark.sandboxed
@pytest.mark.slow
def test_a_mutant_that_looks_for_a_calls_label_cannot_find_one(tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    _write(folder, "honest", solution("11.2"))
    _write(folder, "probe", edited(solution("11.2"), "group_interactions", lambda source: source + MUTANT))
    rows = {
        row.student: row
        for row in grade_folder(folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), jobs=2, progress=False)
    }
    assert rows["honest"].score == rows["honest"].max_score > 0, rows["honest"]
    assert _verdicts(rows["probe"]) == _verdicts(rows["honest"]), rows["probe"].tests
    assert rows["probe"].score == rows["honest"].score
