"""What the labs' text promises a self-taught learner (issue 30): hints that teach, predictions before answers.

- No hint tier contains the solution's decisive code: a hint's code (between
  backticks) shares no run of ``RUN`` tokens with the exercise's solution regions.
- Every "Check your prediction" box follows a prompt to predict.
- ``lab_helpers.after_predicting`` hides the worked answers until every prediction is written.
- Each lab source says in its first line that it is the instructor's solution source.
"""

from __future__ import annotations

import io
import re
import tempfile
import tokenize
from pathlib import Path

import jupytext
import nbformat
import pytest

from course_lib.teaching import lab_helpers, lab_registry

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "labs" / "sources").glob("*.py")) + sorted((ROOT / "notebooks" / "sources").glob("*.py"))
RUN = 8
"""Tokens in a row a hint may not share with the solution: enough for a whole condition or call, the answer itself."""
HINT = re.compile(r"<details><summary>Hint[^<]*</summary>(.*?)</details>", re.DOTALL)
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.DOTALL)


def _tokens(code: str) -> list[str]:
    found: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                continue
            if token.type != tokenize.ENDMARKER and token.string.strip():
                found.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found += code.split()
    return found


def _runs(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + RUN]) for i in range(len(tokens) - RUN + 1)}


def _cells(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    notebook = jupytext.reads(text.split("\n", 1)[1] if text.startswith("# INSTRUCTOR'S") else text, fmt="py:percent")
    return [(cell.cell_type, cell.source) for cell in notebook.cells]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_no_hint_tier_holds_the_solutions_decisive_code(path: Path) -> None:
    cells = _cells(path)
    solution = _runs([t for _, source in cells for region in SOLUTION.findall(source) for t in _tokens(region)])
    leaks = []
    for kind, source in cells:
        if kind != "markdown":
            continue
        for hint in HINT.findall(source):
            for code in re.findall(r"`([^`]+)`", hint):
                shared = _runs(_tokens(code)) & solution
                if shared:
                    leaks.append(f"{code[:80]!r} repeats the solution's {' '.join(sorted(shared)[0])!r}")
    assert not leaks, leaks


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_every_check_your_prediction_box_has_its_prompt(path: Path) -> None:
    markdown = [source for kind, source in _cells(path) if kind == "markdown"]
    orphans = []
    for index, source in enumerate(markdown):
        at = source.find("Check your prediction")
        if at < 0:
            continue
        before = source[:at] if "predict" in source[:at].lower() else (markdown[index - 1] if index else "")
        if "predict" not in before.lower():
            orphans.append(source[:80])
    assert not orphans, orphans


def test_worked_answers_wait_for_the_predictions() -> None:
    answers = {"tokensBefore true": "tokensBefore", "timestamp '100'": "timestamp"}
    waiting = lab_helpers.after_predicting({"tokensBefore true": None}, answers)
    assert set(waiting["hand-worked answer"]) == {lab_helpers.HIDDEN_UNTIL_PREDICTED}
    shown = lab_helpers.after_predicting({"tokensBefore true": "rejected"}, answers)
    assert shown["hand-worked answer"].to_dict() == answers


LAB_SOURCES = [ROOT / lab.folder / "sources" / f"{lab.notebook}.py" for lab in lab_registry.LABS.values()]
"""The labs' and the capstone's sources (the others, of notebooks without exercises, hold no solution)."""


@pytest.mark.parametrize("path", LAB_SOURCES, ids=lambda p: p.stem)
def test_each_lab_source_says_it_is_the_instructors_solution(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# INSTRUCTOR'S SOLUTION SOURCE"), first


def _notebook(relative: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / relative, as_version=4)


def _cell(notebook: nbformat.NotebookNode, cell_id: str) -> nbformat.NotebookNode:
    return next(cell for cell in notebook.cells if cell.get("id") == cell_id)


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


def test_the_start_page_maps_the_chapters_names_to_pythons() -> None:
    text = "\n".join(cell.source for cell in _notebook("notebooks/00_start_here.ipynb").cells)
    for chapter, python in (
        ("`groupInteractions()`", "`group_interactions()`"),
        ("`buildContext()`", "`build_context()`"),
        ("`createCompactionEntry()`", "`create_compaction_entry()`"),
        ('`node --test --test-name-pattern="Lab 11.3" …`', "`python -m course_lib.checklist --lab 11.3`"),
    ):
        assert re.search(rf"\| {re.escape(chapter)} \| {re.escape(python)}", text), chapter


def test_the_capstone_sets_the_two_reserves_side_by_side() -> None:
    cell = _cell(_notebook("notebooks/solutions/02_lifecycle_capstone.ipynb"), "capstone-04c")
    table = cell.outputs[0]["data"]["text/plain"]
    assert (
        "reserved_output (Chapter 11, build_context)" in table and "reserve_tokens (this lesson, compaction)" in table
    )


def test_the_capstones_session_runs_the_learners_functions_and_says_so() -> None:
    """Issue 30: the learner's should_compact was called 0 times in the 40-turn session; now it runs, counted."""
    solved = _printed(_cell(_notebook("notebooks/solutions/02_lifecycle_capstone.ipynb"), "capstone-08"))
    counts = re.search(
        r"run with your functions: should_compact called (\d+) times, find_cut_point called (\d+)", solved
    )
    assert counts and int(counts[1]) >= 40 and int(counts[2]) >= 3, solved
    assert "your retry_after_overflow runs in check 18" in solved
    unsolved = _printed(_cell(_notebook("notebooks/02_lifecycle_capstone.ipynb"), "capstone-08"))
    assert "run with the course's should_compact and find_cut_point" in unsolved, unsolved


def test_the_capstones_exercises_carry_their_facts_instead_of_pointing_at_the_package() -> None:
    text = "\n".join(
        c.source for c in _notebook("notebooks/02_lifecycle_capstone.ipynb").cells if c.cell_type == "markdown"
    )
    assert "course_lib/lifecycle/" not in text


def test_notebook_03_says_what_the_margin_did_for_the_session_at_hand() -> None:
    """The fit is printed from the rows themselves: one line per margin, saying whether the session fits."""
    notebook = _notebook("notebooks/03_your_own_session.ipynb")
    printed = _printed(_cell(notebook, "066c5496"))
    rows = [line for line in printed.splitlines() if line.startswith("safety_margin=")]
    assert len(rows) == 2 and all(" fits in " in row or " does NOT fit in " in row for row in rows), printed


@pytest.mark.slow  # starts a Jupyter kernel
def test_notebook_03_on_a_mixed_chinese_english_session_prints_what_its_table_shows(tmp_path: Path) -> None:
    """Issue 30's session: chars/4 far below BPE. The notebook runs on it, and each printed line is its table's row."""
    from nbclient import NotebookClient
    from traitlets.config import Config

    from course_lib import JsonlSessionStore, PathBuilder

    builder = PathBuilder().system("sys", "You are a careful coding agent.")
    for turn in range(1, 7):
        builder.user(
            f"u{turn}", f"请检查会话恢复逻辑，第 {turn} 步：只恢复选中的分支，不要改写历史。Check step {turn}."
        )
        builder.assistant(f"a{turn}", f"好的，第 {turn} 步已经检查：历史只追加，摘要在 firstKeptEntryId 之前。Done.")
    log = tmp_path / "mixed.jsonl"
    with JsonlSessionStore.open(log) as store:
        for entry in builder.entries:
            store.append(entry)
    notebook = _notebook("notebooks/03_your_own_session.ipynb")
    setup = notebook.cells[1]
    setup.source = setup.source.replace("SESSION_FILE = None", f"SESSION_FILE = {str(log)!r}", 1)
    widget = next(cell for cell in notebook.cells if "nbval-ignore-output" in cell.metadata.get("tags", []))
    notebook.cells.remove(widget)
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:
        config = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
        NotebookClient(
            notebook,
            config=config,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(ROOT / "notebooks")}},
        ).execute()
    cell = _cell(notebook, "066c5496")
    rows = [line for line in _printed(cell).splitlines() if line.startswith("safety_margin=")]
    table = cell.outputs[-1]["data"]["text/plain"]
    verdicts = re.findall(r"\b(True|False)\s*$", table, re.MULTILINE)
    assert len(rows) == len(verdicts) == 2, (rows, table)
    for line, fits in zip(rows, verdicts, strict=True):
        assert (" fits in " in line) == (fits == "True"), (line, table)
