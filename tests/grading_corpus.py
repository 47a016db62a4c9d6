"""Synthetic submissions for the grader, made from the course's lab notebooks by small edits.

Each ``Submission`` is a notebook a learner could hand in, with the outcome the
grader must give it: a status, a score (exact, or "between 0 and full") and a
phrase the feedback must contain. ``tests/grader/cli/test_grading_corpus.py`` grades them
all in one batch run and checks every row.
"""

from __future__ import annotations

import copy
import json
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
FUNCTION = {"11.1": "parse_session_entry", "11.2": "group_interactions", "11.3": "build_context",
            "11.4": "create_compaction_entry", "11.5": "build_context"}  # fmt: skip


def solution(lab: str) -> NotebookNode:
    from course_lib.teaching import lab_registry

    entry = lab_registry.lab(lab)
    return nbformat.read(ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb", as_version=4)


def learner(lab: str) -> NotebookNode:
    """The committed learner version (``make learner-labs`` keeps it equal to the generated one)."""
    from course_lib.teaching import lab_registry

    entry = lab_registry.lab(lab)
    return nbformat.read(ROOT / entry.folder / f"{entry.notebook}.ipynb", as_version=4)


def tagged(notebook: NotebookNode, tag: str) -> list[NotebookNode]:
    return [cell for cell in notebook.cells if tag in cell.metadata.get("tags", [])]


def function_cell(notebook: NotebookNode, name: str) -> NotebookNode:
    """The exercise cell that defines ``name``."""
    return next(cell for cell in tagged(notebook, "exercise") if f"def {name}(" in cell.source)


def edited(notebook: NotebookNode, name: str, change: Callable[[str], str]) -> NotebookNode:
    """A copy whose exercise cell defining ``name`` went through ``change`` (which must change it)."""
    result = copy.deepcopy(notebook)
    cell = function_cell(result, name)
    new = change(cell.source)
    assert new != cell.source, f"the edit did not change the cell defining {name}"
    cell.source = new
    return result


def in_body(name: str, lines: str) -> Callable[[str], str]:
    """Insert ``lines`` as the first statements of ``name``'s solution region."""

    def change(source: str) -> str:
        marker = "### BEGIN SOLUTION\n"
        at = source.index(marker, source.index(f"def {name}(")) + len(marker)
        return source[:at] + "".join(f"    {line}\n" for line in lines.splitlines()) + source[at:]

    return change


def replace(old: str, new: str) -> Callable[[str], str]:
    def change(source: str) -> str:
        assert old in source, f"{old!r} not in the cell"
        return source.replace(old, new, 1)

    return change


def without(notebook: NotebookNode, keep: Callable[[NotebookNode], bool]) -> NotebookNode:
    result = copy.deepcopy(notebook)
    result.cells = [cell for cell in result.cells if keep(cell)]
    return result


HARD_CODED_11_3 = '''
COSTS = {"sys": 3, "u1": 3, "a1": 4, "u2": 3, "a2": 4, "u3": 3, "calls": 3, "r-test": 3, "r-read": 3, "a3": 3}
GROUPS = [["u1", "a1"], ["u2", "a2"], ["u3", "calls", "r-test", "r-read", "a3"]]


def build_context(active_path, *, max_tokens, reserved_output, safety_margin, estimate_tokens):
    """Written against the chapter's table: its costs and its three groups, not the rules."""
    by_id = {entry.id: entry for entry in active_path}
    system = COSTS["sys"] if "sys" in by_id else 0
    available = max(0, max_tokens - system - reserved_output - safety_margin)
    groups = [group for group in GROUPS if all(i in by_id for i in group)]
    kept, used = [], 0
    for group in reversed(groups):
        cost = sum(COSTS[i] for i in group)
        if used + cost > available:
            break
        kept, used = group + kept, used + cost
    reason = "within_budget" if len(kept) == sum(map(len, groups)) else "trimmed" if kept else "single_group_overflow"
    if not kept:
        kept = groups[-1]
        used = sum(COSTS[i] for i in kept)
    head = [copy.deepcopy(by_id["sys"].message)] if "sys" in by_id else []
    return BuildContextResult(
        messages=head + [copy.deepcopy(by_id[i].message) for i in kept], kept_entry_ids=kept, reason=reason,
        tokens=TokenProjection(max_tokens=max_tokens, system=system, messages=used, reserved_output=reserved_output,
                               safety_margin=safety_margin, available_for_messages=available,
                               total=system + used + reserved_output + safety_margin),
    )
'''


@dataclass(frozen=True)
class Submission:
    """A synthetic submission and what the grader must say about it."""

    name: str
    lab: str
    make: Callable[[], NotebookNode | str]
    status: str
    score: float | str  # a number, "full", or "partial" (strictly between 0 and full)
    says: str = ""  # a phrase the feedback (test outputs and notes) must contain
    checklist_passes: int | None = None  # how many of the lab's checklist cases must pass, if pinned

    def write(self, folder: Path) -> Path:
        path = folder / f"{self.name}_lab_{self.lab.replace('.', '_')}.ipynb"
        made = self.make()
        path.write_text(made if isinstance(made, str) else nbformat.writes(made), encoding="utf-8")
        return path


def _fake_checklist(lab: str) -> NotebookNode:
    """The untouched stub, but the checklist cell prints a pass and every cell carries a passing output."""
    notebook = learner(lab)
    for cell in tagged(notebook, "checklist"):
        cell.source = 'print("Lab 11.1: 3/3 passed")'
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="Lab 11.1: 3/3 passed\n")]
    return notebook


CORPUS: tuple[Submission, ...] = (
    Submission("reference", "11.3", lambda: solution("11.3"), "ok", "full"),
    Submission(
        "partly_correct",
        "11.3",
        # R19 broken: skips a group that does not fit and keeps looking at older ones.
        lambda: edited(solution("11.3"), "build_context", replace("            break\n", "            continue\n")),
        "ok",
        "partial",
        says="R19",
    ),
    Submission(
        "untouched_stub", "11.2", lambda: learner("11.2"), "ok", 0, says="not implemented yet", checklist_passes=0
    ),
    Submission(
        "syntax_error",
        "11.1",
        lambda: edited(solution("11.1"), "parse_session_entry", lambda s: s + "\n\ndef unfinished(value:\n"),
        "error",
        0,
        says="SyntaxError",
    ),
    Submission(
        "infinite_loop_in_function",
        "11.4",
        lambda: edited(
            solution("11.4"), "create_compaction_entry", in_body("create_compaction_entry", "while True:\n    pass")
        ),
        "timeout",
        0,
        says="ran longer than",
    ),
    Submission(
        "infinite_loop_in_cell",
        "11.2",
        lambda: edited(solution("11.2"), "group_interactions", lambda s: s + "\n\nwhile True:\n    pass\n"),
        "timeout",
        "full",
        says="exercise cell",
    ),
    Submission(
        "sys_exit_in_function",
        "11.3",
        lambda: edited(solution("11.3"), "build_context", in_body("build_context", "import sys\nsys.exit(1)")),
        "ok",
        0,
        says="SystemExit",
    ),
    Submission(
        "sys_exit_in_cell",
        "11.2",
        lambda: edited(solution("11.2"), "group_interactions", lambda s: s + '\n\nimport sys\nsys.exit("done")\n'),
        "ok",
        "full",
        says="SystemExit",
    ),
    Submission(
        "os_exit",
        "11.5",
        lambda: edited(solution("11.5"), "build_context", lambda s: "import os\nos._exit(0)\n\n" + s),
        "error",
        0,
        says="kernel",
    ),
    Submission(
        "memory_bomb",
        "11.4",
        lambda: edited(
            solution("11.4"),
            "create_compaction_entry",
            in_body("create_compaction_entry", "hog = []\nwhile True:\n    hog.append(bytes(100_000_000))"),
        ),
        "error",
        0,
        says="MemoryError",
    ),
    Submission(
        "hard_coded_example",
        "11.3",
        lambda: edited(solution("11.3"), "build_context", lambda s: s.split("def build_context(")[0] + HARD_CODED_11_3),
        "ok",
        "partial",
        says="generated",
        checklist_passes=1,
    ),
    Submission(
        "imports_reference",
        "11.2",
        lambda: edited(
            learner("11.2"),
            "group_interactions",
            lambda s: s.split("def group_interactions(")[0] + "from course_lib import group_interactions\n",
        ),
        "ok",
        0,
        says="not available while grading",
    ),
    Submission(
        "wraps_reference",
        "11.3",
        lambda: edited(
            learner("11.3"),
            "build_context",
            lambda s: (
                s.split("def build_context(")[0]
                + (
                    "import course_lib.context\n\n\ndef build_context(active_path, **options):\n"
                    "    return course_lib.context.build_context(active_path, **options)\n"
                )
            ),
        ),
        "ok",
        0,
        says="not available while grading",
    ),
    Submission(
        "fake_checklist_output",
        "11.1",
        lambda: _fake_checklist("11.1"),
        "ok",
        0,
        says="not implemented yet",
        checklist_passes=0,
    ),
    Submission(
        "deleted_exercise_cell",
        "11.4",
        lambda: without(solution("11.4"), lambda c: "def create_compaction_entry(" not in c.source),
        "missing-function",
        0,
        says="is not defined",
    ),
    Submission(
        "deleted_setup_and_checklist",
        "11.5",
        lambda: without(solution("11.5"), lambda c: "exercise" in c.metadata.get("tags", [])),
        "ok",
        "full",
    ),
    Submission("not_a_notebook", "11.1", lambda: "this is not JSON", "error", 0, says="not a readable"),
)


def namespace(lab: str, notebook: NotebookNode) -> dict[str, Any]:
    """What a kernel would hold after the lab's setup and ``notebook``'s exercise cells, built in this process."""
    from course_grader.intake.cells import exercise_sources, setup_sources
    from course_grader.intake.lab_templates import find_template
    from course_lib.teaching import lab_registry

    module = types.ModuleType(f"learner_{lab.replace('.', '_')}")
    sys.modules[module.__name__] = module  # pydantic resolves a model's annotations through its module
    names = module.__dict__
    for source in (*setup_sources(find_template(lab_registry.LABS[lab])), *exercise_sources(notebook)):
        exec(compile(source, "<cell>", "exec"), names)  # noqa: S102 - the course's own notebooks
    return names


def grade_in_process(
    lab: str,
    names: dict[str, Any],
    folder: Path | None = None,
    *,
    seed: str | int | None = None,
    counterexamples: bool = True,
    checks: dict | None = None,
    language: str = "en",
):
    """The grader's checks and hidden cases on functions in this process: no kernel, the same judging.

    Each harness reply goes through JSON as it would leave a kernel, and
    ``assemble`` judges it exactly as for a sandboxed run. ``seed`` draws the
    hidden cases as ``course-grade --seed`` does; ``language`` is the course file's.
    """
    import time

    from course_grader import GradeOptions, JudgingSettings
    from course_grader.judging.assemble import assemble
    from course_lib.teaching import lab_registry

    run = run_in_process(lab, names, seed=seed, counterexamples=counterexamples, checks=checks, language=language)
    return assemble(
        Path("in_process.ipynb"),
        "someone",
        "",
        lab_registry.LABS[lab],
        run,
        time.monotonic(),
        GradeOptions(judging=JudgingSettings(seed=seed, language=language)),
    )


def run_in_process(
    lab: str,
    names: dict[str, Any],
    *,
    seed: str | int | None = None,
    counterexamples: bool = True,
    checks: dict | None = None,
    language: str = "en",
):
    """The ``KernelRun`` a sandboxed kernel would report, made in this process.

    A seed sweep that only needs scores can leave out the practice
    counterexamples (they never change a score) and pass the checklist's cells
    of an earlier run as ``checks`` (no seed changes a check).
    """
    from course_grader.judging.hidden_cases import hidden_calls
    from course_grader.judging.kernel_run import KernelRun, add_counterexamples
    from course_grader.sandbox.cell_run import CellRun
    from course_lib.checklist import harness
    from course_lib.checklist.runner import select
    from course_lib.teaching import lab_registry

    def cell(reply: harness.Reply) -> CellRun:
        return CellRun("ok", reply=json.loads(json.dumps(reply.data, default=repr)))

    functions = list(lab_registry.LABS[lab].functions)
    run = KernelRun(
        setup=[CellRun("ok")], exercises=[CellRun("ok")], functions=cell(harness.functions(names, functions))
    )
    if all(run.functions.reply.values()):
        for case in select(lab):
            run.checks[case.number] = (
                checks[case.number] if checks else cell(harness.check(names, case.number, functions))
            )
        for call in hidden_calls(lab_registry.LABS[lab], seed):
            run.calls[call.key] = cell(harness.call(names, json.dumps(call.request())))
        if counterexamples:
            add_counterexamples(
                lab_registry.LABS[lab],
                run,
                lambda request: cell(harness.call(names, json.dumps(request))),
                seed,
                language,
            )
    return run
