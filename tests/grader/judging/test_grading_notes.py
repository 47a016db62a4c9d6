"""Zeros explain themselves: the grader's notes say where the code is that never ran, and what to do.

Real notebooks (the course's solutions, edited as a learner would) are graded
in this process: each exercise cell runs on its own as in a kernel, the
harness replies go through JSON, and ``assemble`` judges them with the
notebook at hand. The last tests grade the same kinds of notebooks in
sandboxed kernels, time-outs included (``slow``).
"""

from __future__ import annotations

import copy
import json
import sys
import textwrap
import time
import types
from pathlib import Path

import nbformat
import pytest
from grading_corpus import edited, solution, tagged
from nbformat import NotebookNode

from course_grader import GradeOptions, GradeResult, Limits, SandboxSettings, grade_folder
from course_grader.batch.batch import AGAIN_ALONE
from course_grader.intake.cells import exercise_sources, setup_sources
from course_grader.intake.lab_templates import find_template
from course_grader.judging import diagnose
from course_grader.judging.assemble import assemble
from course_grader.judging.hidden_cases import hidden_calls
from course_grader.sandbox.cell_run import CellRun
from course_lib.checklist import harness
from course_lib.checklist.runner import select
from course_lib.teaching import lab_registry

pytestmark = pytest.mark.sandboxed  # make test-sandboxed: real sandboxes, cgroups, Gradescope dry runs

TAGS = diagnose.HOW_TO_TAG


def grade_here(lab: str, notebook: NotebookNode) -> GradeResult:
    """``notebook`` graded in this process, exactly as ``grade_notebook`` judges a kernel's replies."""
    from course_grader.judging.kernel_run import KernelRun

    module = types.ModuleType(f"notes_{lab.replace('.', '_')}")
    sys.modules[module.__name__] = module
    names = module.__dict__
    for source in setup_sources(find_template(lab_registry.LABS[lab])):
        exec(compile(source, "<setup>", "exec"), names)  # noqa: S102 - the course's own cells

    def run_cell(source: str) -> CellRun:
        """One exercise cell as a kernel runs it: an exception ends the cell, the next one still runs."""
        try:
            exec(compile(source, "<exercise>", "exec"), names)  # noqa: S102 - the learner's cell, as a kernel would
        except Exception as exc:  # noqa: BLE001 - the cell's error is its outcome
            return CellRun("error", type(exc).__name__, str(exc))
        return CellRun("ok")

    def reply(data: harness.Reply) -> CellRun:
        return CellRun("ok", reply=json.loads(json.dumps(data.data, default=repr)))

    functions = list(lab_registry.LABS[lab].functions)
    run = KernelRun(setup=[CellRun("ok")], exercises=[run_cell(s) for s in exercise_sources(notebook)])
    run.functions = reply(harness.functions(names, functions))
    if all(run.functions.reply.values()):
        for case in select(lab):
            run.checks[case.number] = reply(harness.check(names, case.number, functions))
        for call in hidden_calls(lab_registry.LABS[lab]):
            run.calls[call.key] = reply(harness.call(names, json.dumps(call.request())))
    return assemble(
        Path("learner.ipynb"),
        "someone",
        "",
        lab_registry.LABS[lab],
        run,
        time.monotonic(),
        GradeOptions(),
        notebook=notebook,
    )


def helper_in_untagged_cell() -> NotebookNode:
    """Lab 11.3 with its helper ``token_count`` moved out of the exercise cell into a new, untagged cell after it."""
    notebook = copy.deepcopy(solution("11.3"))
    cell = tagged(notebook, "exercise")[0]
    helper, rest = cell.source.split("\n\n\ndef build_context(", 1)
    cell.source = "def build_context(" + rest
    notebook.cells.insert(notebook.cells.index(cell) + 1, nbformat.v4.new_code_cell(helper))
    return notebook


def tags_stripped(lab: str) -> NotebookNode:
    notebook = copy.deepcopy(solution(lab))
    for cell in notebook.cells:
        cell.metadata["tags"] = [tag for tag in cell.metadata.get("tags", []) if tag != "exercise"]
    return notebook


def inside_if_false() -> NotebookNode:
    return edited(solution("11.4"), "create_compaction_entry", lambda s: "if False:\n" + textwrap.indent(s, "    "))


def raises_before_the_def() -> NotebookNode:
    return edited(solution("11.4"), "create_compaction_entry", lambda s: "settings = {}\nsettings['missing']\n\n" + s)


def _line_of(notebook: NotebookNode, name: str) -> int:
    source = next(c.source for c in tagged(notebook, "exercise") if f"def {name}(" in c.source)
    return next(number for number, line in enumerate(source.splitlines(), 1) if f"def {name}(" in line)


def test_a_helper_in_an_untagged_cell_is_named_with_the_cell_and_the_fix() -> None:
    notebook = helper_in_untagged_cell()
    position = next(i for i, c in enumerate(notebook.cells, 1) if c.source.startswith("def token_count("))
    result = grade_here("11.3", notebook)
    assert (result.status, result.score) == ("ok", 0)
    assert "NameError: name 'token_count' is not defined" in result.tests[0].output
    assert result.notes == (
        f"`token_count` is defined in an untagged cell {position} (`def token_count(what: str, value: Any) -> int | float:`); "
        f"the grader runs only cells tagged `exercise` — tag that cell `exercise` ({TAGS}) or move the code into an "
        f"exercise cell",
    )


def test_a_notebook_without_exercise_tags_says_so() -> None:
    notebook = tags_stripped("11.1")
    result = grade_here("11.1", notebook)
    assert (result.status, result.score) == ("missing-function", 0)
    assert result.notes[0] == (
        f"no cell is tagged `exercise`: the grader runs only cells tagged `exercise`, so none "
        f"of your code ran; tag each cell holding your solution `exercise` ({TAGS})"
    )
    assert "parse_session_entry is not defined after running your exercise cells" in result.notes
    position = next(i for i, c in enumerate(notebook.cells, 1) if "def parse_session_entry(" in c.source)
    assert any(
        note.startswith(f"`parse_session_entry` is defined in an untagged cell {position} ") for note in result.notes
    )


def test_a_def_inside_if_false_is_never_reached() -> None:
    notebook = inside_if_false()
    result = grade_here("11.4", notebook)
    assert (result.status, result.score) == ("missing-function", 0)
    line = _line_of(notebook, "create_compaction_entry")
    assert (
        f"`create_compaction_entry` is defined inside an `if` block at line {line} of exercise cell 1, which did "
        f"not define it when the cell ran; define it at the top level of the cell"
    ) in result.notes


def test_a_def_after_a_statement_that_raises_is_never_reached() -> None:
    notebook = raises_before_the_def()
    result = grade_here("11.4", notebook)
    assert (result.status, result.score) == ("error", 0)
    line = _line_of(notebook, "create_compaction_entry")
    assert result.notes[0] == "exercise cell 1: KeyError: 'missing'"
    assert (
        f"`create_compaction_entry` is defined at line {line} of exercise cell 1, but that cell stopped before "
        f"reaching it (KeyError: 'missing')"
    ) in result.notes


def test_a_definition_cell_after_one_that_raises_names_what_the_first_never_defined() -> None:
    """Lab 11.1: exercise cell 2 (the parser) runs, but needs the models exercise cell 1 stopped before defining."""
    notebook = copy.deepcopy(solution("11.1"))
    models = tagged(notebook, "exercise")[0]
    models.source = "raise RuntimeError('not finished')\n" + models.source
    result = grade_here("11.1", notebook)
    assert (result.status, result.score) == ("ok", 0)
    assert "NameError: name 'CompactionEntry' is not defined" in result.tests[0].output
    line = next(n for n, text in enumerate(models.source.splitlines(), 1) if text.startswith("class CompactionEntry("))
    assert result.notes == (
        "exercise cell 1: RuntimeError: not finished",
        f"`CompactionEntry` is defined at line {line} of exercise cell 1, but that cell stopped "
        f"before reaching it (RuntimeError: not finished)",
    )


def test_a_syntax_error_says_none_of_the_cell_ran() -> None:
    notebook = edited(solution("11.1"), "parse_session_entry", lambda s: s + "\n\ndef unfinished(value:\n")
    result = grade_here("11.1", notebook)
    assert result.status == "error"
    assert any(
        note.startswith("`parse_session_entry` is defined at line ")
        and "but that cell has a syntax error, so none of it ran (SyntaxError:" in note
        for note in result.notes
    )


def test_a_correct_notebook_gets_no_note() -> None:
    result = grade_here("11.3", solution("11.3"))
    assert result.score == result.max_score and result.notes == ()


def test_definitions_read_from_any_block_and_magics() -> None:
    found = diagnose.definitions(
        "%matplotlib inline\nimport json as j\nx, (y, z) = 1, (2, 3)\n"
        "try:\n    from m import k\nexcept ImportError:\n    k = None\n"
        "def outer():\n    def inner(): pass\n"
    )
    assert [(d.name, d.inside) for d in found] == [
        ("j", None),
        ("x", None),
        ("y", None),
        ("z", None),
        ("k", "a `try` block"),
        ("k", "a `try` block"),
        ("outer", None),
        ("inner", "the function `outer`"),
    ]
    assert diagnose.definitions("x = 1\ndef broken(:\n") == (
        diagnose.Definition("broken", 2),
    )  # a syntax error: def lines only
    assert diagnose.definitions("x = 1\n" * (diagnose.MAX_SOURCE // 6 + 1)) == ()


def test_name_errors_are_read_once_and_bounded() -> None:
    texts = [
        "R16: … — expected a result, but it raised NameError: name 'helper' is not defined",
        "NameError: name 'helper' is not defined",
        "KeyError: 'x'",
        "NameError: name 'other' is not defined",
    ]
    assert diagnose.missing_names(texts) == ["helper", "other"]
    cells = [diagnose.CodeCell(position, f"n{position} = 1", None) for position in range(1, 20)]
    notes = diagnose.where_defined([f"n{i}" for i in range(1, 20)], cells, [])
    assert len(notes) == diagnose.MAX_NAME_NOTES


# --- the same, in sandboxed kernels -------------------------------------------------

TIME_LIMIT = 3.0


def _loop_after_defs() -> NotebookNode:
    return edited(solution("11.2"), "group_interactions", lambda s: s + "\n\nwhile True:\n    pass\n")


def _loop_before_def() -> NotebookNode:
    return edited(solution("11.2"), "group_interactions", lambda s: "while True:\n    pass\n\n" + s)


def _uninterruptible_after_defs() -> NotebookNode:
    return edited(solution("11.2"), "group_interactions", lambda s: s + "\n\nsum(range(10**13))\n")


SANDBOXED = {
    "untagged_helper_lab_11_3": helper_in_untagged_cell,
    "no_tags_lab_11_1": lambda: tags_stripped("11.1"),
    "loop_after_defs_lab_11_2": _loop_after_defs,
    "loop_before_def_lab_11_2": _loop_before_def,
    "uninterruptible_lab_11_2": _uninterruptible_after_defs,
}


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GradeResult]:
    folder = tmp_path_factory.mktemp("notes")
    for name, make in SANDBOXED.items():
        (folder / f"{name}.ipynb").write_text(nbformat.writes(make()), encoding="utf-8")
    limits = Limits(cell_timeout=TIME_LIMIT, interrupt_grace=2)
    results = grade_folder(folder, GradeOptions(sandbox=SandboxSettings(limits=limits)), jobs=2, progress=False)
    return {Path(result.submission).stem: result for result in results}


@pytest.mark.slow
def test_sandboxed_untagged_helper_and_missing_tags(sandboxed: dict[str, GradeResult]) -> None:
    helper = sandboxed["untagged_helper_lab_11_3"]
    assert (helper.status, helper.score) == ("ok", 0)
    assert len(helper.notes) == 1 and helper.notes[0].startswith("`token_count` is defined in an untagged cell ")
    untagged = sandboxed["no_tags_lab_11_1"]
    assert untagged.status == "missing-function" and untagged.notes[0].startswith("no cell is tagged `exercise`")


@pytest.mark.slow
def test_sandboxed_timeout_in_an_exercise_cell(sandboxed: dict[str, GradeResult]) -> None:
    """What a time-out in an exercise cell means for the score (docs/grading.md): what it defined by then counts."""
    after = sandboxed["loop_after_defs_lab_11_2"]
    assert after.status == "timeout" and after.score == after.max_score
    # On a host busy enough to starve its sandbox, the batch grades the row again alone and says so first (a grade
    # that moves says why; tests/grader/sandbox/test_grading_cpu.py owns that note): the time-out's note is the rest.
    assert tuple(note for note in after.notes if note != AGAIN_ALONE) == (
        f"exercise cell 1 ran longer than {TIME_LIMIT:g} s and was interrupted; the functions it "
        f"had defined by then were graded",
    )
    before = sandboxed["loop_before_def_lab_11_2"]
    assert before.status == "timeout" and before.score == 0
    assert any(
        note.startswith("`group_interactions` is defined at line ")
        and "but that cell stopped before reaching it (TimeoutError: the cell ran longer than 3 s)" in note
        for note in before.notes
    ), before.notes
    stuck = sandboxed["uninterruptible_lab_11_2"]
    assert stuck.score == 0 and stuck.status == "timeout"
    assert stuck.notes[0] == (
        f"exercise cell 1 ran longer than {TIME_LIMIT:g} s and did not stop when interrupted, "
        f"so its kernel was stopped and nothing could be graded"
    )
