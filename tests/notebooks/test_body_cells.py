"""No lab contradicts itself: a body cell never praises a wrong answer, nor shows a ❌ above a checklist that passes.

A ✅ must come from checking what the cell shows; a ❌ (or ⚠️, a crash, an
``ok`` row not ✅) must come with a check the checklist fails. A *body cell* is
every code cell of a lab except its ``checklist`` cell (and nbgrader's test
cells, the checklist's checks again). What a body cell *shows* is, in order: each printed line,
each displayed object (the cell's last expression included, as a kernel shows
it), and a crash. A table with an ``ok`` column shows one item per row.

Every code cell of each mutant of the corpus (``tests/mutants``, whatever
``MUTANTS`` holds) and of each lab's solution is run once per test run, in
order (``mutants.run.run_body``, read through ``corpus_verdicts``). When the
mutant's checklist passes, no body cell may show a failure. When it fails a
check:

1. every table row marked ✅ must show exactly what the solution's row shows,
   the wording of an error aside (a row saying "rejected: …" is compared as
   "rejected"; whether the error names the right ids is the row's own check):
   a row that calls a different result correct did not check what it shows;
2. a cell that shows a ✅ and no ❌, ⚠️ or crash must show exactly what the
   solution's cell shows (error wording aside, as in 1): if the mutant changed
   anything the cell displays (the summary in a messages table, a token count),
   the cell's own comparisons must have caught it.

A cell that shows no ✅ makes no claim and is not judged. Lab 11.5 §7 is the example this was written for: a ``latest_compaction``
returning the oldest compaction kept from ``u3`` anyway, so "first kept entry"
said ✅ while the table showed compact-1's summary.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import corpus_verdicts as verdicts
import pytest
from mutants import MUTANTS, Mutant, reference
from mutants.run import PASS, Body, Cell, run_body
from nbformat import NotebookNode

from course_lib.teaching import lab_registry


def violations(reference: Body, mutant: Body) -> list[str]:
    """Body cells of ``mutant`` that show ✅ for something the solution does not show (rules 1 and 2 above)."""
    found = []
    for number, cell in mutant.cells.items():
        solution = reference.cells.get(number, Cell(number))
        for label, row in cell.rows.items():
            if PASS in row and _claim(row) != _claim(solution.rows.get(label, "")):
                found.append(
                    f"cell {number}, a ✅ row showing something else than the solution's:\n"
                    f"  shows {row}\n  solution {solution.rows.get(label)}"
                )
        mine, theirs = [*map(_claim, cell.items), ""], [*map(_claim, solution.items), ""]
        if cell.praises and not cell.fails and mine != theirs:
            differs = next((a, b) for a, b in zip(mine, theirs) if a != b)
            found.append(
                f"cell {number} shows ✅ and no ❌, yet shows something else than the solution's:\n"
                f"  shows {differs[0]}\n  solution {differs[1]}"
            )
    return found


_ERROR_WORDING = re.compile(r"(rejected|crashed): [^|]*")


def _claim(row: str) -> str:
    """A row as rule 1 compares it: an error's wording is the learner's own, so only "rejected" is compared.

    Whether the error names the right ids is the row's own ``ok`` check (``Attempt.names``).
    """
    return _ERROR_WORDING.sub(r"\1: …", row)


@pytest.mark.slow  # every notebook of the corpus, run cell by cell (once per run): make test, not make check
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_no_body_cell_contradicts_the_checklist(mutant: Mutant) -> None:
    run = verdicts.body(mutant)
    assert run.checklist is not None, "the notebook has no checklist cell"
    if run.checklist.all_passed:
        assert not run.failures, f"{run.checklist.summary}, yet the body cells show: {run.failures[:3]}"
        return
    found = violations(verdicts.body(reference(mutant.lab)), run)
    assert not found, f"{run.checklist.summary} for {mutant.description!r} ({mutant.rule}), yet:\n" + "\n".join(found)


@pytest.mark.slow  # every lab's notebook, run cell by cell: make test runs it, make check does not
@pytest.mark.parametrize("lab", lab_registry.LABS)
def test_the_solutions_show_no_failure(lab: str) -> None:
    """Every lab's solution: a checklist that passes and no ❌, ⚠️, crash or unsettled row in any body cell."""
    run = verdicts.body(reference(lab))
    assert run.checklist is not None and run.checklist.all_passed, run.checklist
    assert not run.failures, run.failures


@pytest.mark.slow  # runs Lab 11.5's notebook three times: make test, not make check
def test_a_cell_that_checks_less_than_it_shows_is_found() -> None:
    """The detector fails Lab 11.5 §7 as it was: only the count of summaries and the first kept id checked."""
    oldest = next(m for m in MUTANTS if m.name == "11_5_oldest_compaction")

    def weakened(notebook: NotebookNode) -> NotebookNode:
        notebook = copy.deepcopy(notebook)
        cell = next(c for c in notebook.cells if c.get("id") == "lab11-5-26")
        kept = [
            line
            for line in cell.source.splitlines()
            if "lab_helpers.compare" not in line or "summary messages sent" in line or "first kept entry" in line
        ]
        cell.source = "\n".join(kept)
        return notebook

    solution = run_body(weakened(reference("11.5").notebook()), "weak_reference")
    run = run_body(weakened(oldest.notebook()), "weak_oldest")
    assert run.checklist is not None and not run.checklist.all_passed
    section_7 = next(i for i, c in enumerate(oldest.notebook().cells) if c.get("id") == "lab11-5-26")
    found = [v for v in violations(solution, run) if v.startswith(f"cell {section_7} ")]
    assert found and "Goal: Verify session restore" in found[0], found  # compact-1's summary, shown with ✅
    assert verdicts.body(oldest).cells[section_7].fails, "the lab as it is now shows a ❌ there"


# --- the lab_helpers helpers the body cells judge with ---------------------------------------------


def test_a_prediction_is_judged_against_the_worked_answer_not_the_code() -> None:
    """Issue 21: a right prediction with a broken function is 🎯, and the function's ❌ is its own row mark."""
    from course_lib.teaching import lab_helpers

    table = lab_helpers.prediction_table(
        {"right": "Rejected", "wrong": "accepted", "open": None},
        worked={"right": "rejected", "wrong": "rejected", "open": 3},
        yours=lambda: {"right": "accepted", "wrong": "rejected", "open": 3},
        function="parser",
    )
    verdicts = table["against the worked answer"]
    assert (
        verdicts["right"].startswith("🎯")
        and verdicts["wrong"].startswith("🤔")
        and verdicts["open"] == lab_helpers.NO_PREDICTION
    )
    assert list(table["ok"]) == ["❌", "✅", "✅"]
    assert "see the checklist" in table["your parser"]["right"]


def test_a_statement_expected_to_hold_is_said_as_one_sentence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: "❌ message 2 is the summary text——应为 True" read as two languages; a statement is one sentence."""
    from course_lib.teaching import lab_helpers

    monkeypatch.setenv("COURSE_LANG", "zh")
    assert not lab_helpers.compare(False, True, "第 2 条消息是摘要文本")
    assert lab_helpers.compare(True, True, "第 2 条消息是摘要文本")
    assert capsys.readouterr().out == "❌ 不成立：第 2 条消息是摘要文本\n✅ 第 2 条消息是摘要文本\n"
    monkeypatch.setenv("COURSE_LANG", "en")
    lab_helpers.compare(False, True, "message 2 is the summary text")
    assert capsys.readouterr().out == "❌ not so: message 2 is the summary text\n"


def test_a_prediction_is_judged_before_the_function_exists() -> None:
    from course_lib.teaching import lab_helpers

    def stub() -> dict[str, Any]:
        raise NotImplementedError("Lab 11.9 not implemented yet: f")

    table = lab_helpers.prediction_table({"a": 1}, worked={"a": 1}, yours=stub, function="f")
    assert table["against the worked answer"]["a"].startswith("🎯") and table["ok"]["a"] == "⏳"


def test_a_pydantic_error_shows_as_one_line_with_its_field_path() -> None:
    """Issue 21: a learner's own model raising pydantic's report must not make a table row many lines wide."""
    from course_lib import fixtures
    from course_lib.models import CompactionEntry
    from course_lib.teaching import lab_helpers

    bad = fixtures.compact_1_wire() | {"tokensBefore": -1, "timestamp": "100"}
    bad["summary"] = bad["summary"] | {"decisions": ["ok", 7]}
    shown = lab_helpers.outcome(lambda: CompactionEntry.model_validate(bad, by_alias=True, by_name=False))
    assert "\n" not in shown and len(shown) <= 170
    assert shown.startswith("rejected: ValidationError, ") and "more)" in shown
    assert lab_helpers.one_line(ValueError("first line\nsecond line")) == "first line …"
    nested = lab_helpers.outcome(
        lambda: CompactionEntry.model_validate(
            fixtures.compact_1_wire() | {"summary": bad["summary"]}, by_alias=True, by_name=False
        )
    )
    assert "summary.decisions[1]:" in nested, nested


def test_an_id_is_named_as_a_whole_word() -> None:
    from course_lib.teaching import lab_helpers

    tried = lab_helpers.attempt(lambda: (_ for _ in ()).throw(ValueError("firstKeptEntryId is a system message")))
    assert tried.rejected and not tried.names("sys")
    assert lab_helpers.attempt(lambda: (_ for _ in ()).throw(ValueError("entry 'sys' is a system message"))).names(
        "sys"
    )


def test_a_crashing_function_still_gets_its_predictions_judged() -> None:
    from course_lib.teaching import lab_helpers

    def broken() -> dict[str, Any]:
        raise KeyError("u3")

    table = lab_helpers.prediction_table({"a": 1}, worked={"a": 1}, yours=broken, function="f")
    assert table["against the worked answer"]["a"].startswith("🎯") and table["ok"]["a"] == "❌"
    assert table["your f"]["a"] == "💥 crashed: KeyError: 'u3'"
