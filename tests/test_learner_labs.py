"""The lab notebooks: learner versions are generated from the solutions and stay in step.

``labs/solutions/`` is the single source (docs/notebooks.md). These tests fail when
a committed learner lab is not what ``make learner-labs`` would write, when a stub
names the wrong lab, or when a lab's exercise cells (all a grader runs, after the
setup cell) do not pass that lab's part of the checklist on their own.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import textwrap
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course_lib import checklist, lab_registry
from course_lib.checklist.runner import FUNCTION_NAMES

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("make_learner_labs", ROOT / "scripts" / "make_learner_labs.py")
assert _spec and _spec.loader
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)

SOLUTIONS = generator.solution_paths()
CHECKS_PER_LAB = {"11.1": 3, "11.2": 3, "11.3": 3, "11.4": 2, "11.5": 4, "capstone": 4}


def _read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def _comparable(cell: Any) -> dict[str, Any]:
    """What the generator decides: everything but outputs, counts and nbclient's timing metadata."""
    metadata = {key: value for key, value in cell.metadata.items() if key != "execution"}
    return {"id": cell.get("id"), "cell_type": cell.cell_type, "source": cell.source, "metadata": metadata}


def _tags(cell: Any) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _lab_code(notebook: Any) -> tuple[str, list[str]]:
    """The setup cell (first code cell) and the exercise cells: what a grader runs."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return code[0].source, [cell.source for cell in code if "exercise" in _tags(cell)]


def _run_lab_code(notebook: Any) -> dict[str, Any]:
    setup, exercises = _lab_code(notebook)
    namespace: dict[str, Any] = {"__name__": "__lab__"}
    for source in (setup, *exercises):
        # dont_inherit: this module's `from __future__ import annotations` must not leak into the cells
        exec(compile(source, "<lab cell>", "exec", dont_inherit=True), namespace)  # noqa: S102 - the course's own lab cells
    return namespace


def _ids(paths: list[Path]) -> list[str]:
    return [path.stem for path in paths]


def test_five_solution_labs_and_the_capstone_with_learner_versions() -> None:
    assert [_read(p).metadata["course"]["lab"] for p in SOLUTIONS] == list(CHECKS_PER_LAB)
    learner = sorted(p.name for p in (ROOT / "labs").glob("lab_11_*.ipynb"))
    assert learner == [p.name for p in SOLUTIONS[:5]], "every solution has exactly one learner version"
    assert all(generator.learner_path(p).is_file() for p in SOLUTIONS)


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_learner_lab_is_up_to_date(solution_path: Path) -> None:
    """The committed learner lab equals the generated one, outputs aside (run `make learner-labs`)."""
    generated = generator.learner_notebook(_read(solution_path))
    committed = _read(generator.learner_path(solution_path))
    assert committed.metadata["course"] == generated.metadata["course"]
    assert len(committed.cells) == len(generated.cells), "cell count differs: run `make learner-labs`"
    for number, (ours, theirs) in enumerate(zip(generated.cells, committed.cells), start=1):
        assert _comparable(theirs) == _comparable(ours), f"cell {number} differs: run `make learner-labs`"


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_lab_layout_follows_the_conventions(solution_path: Path) -> None:
    """Setup cell untagged, solution regions only in `exercise` cells, one `checklist` cell."""
    notebook = _read(solution_path)
    lab = notebook.metadata["course"]["lab"]
    assert solution_path.stem == lab_registry.lab(lab).notebook
    functions = notebook.metadata["course"]["functions"]
    assert functions and set(functions) <= set(FUNCTION_NAMES)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert _tags(code[0]) == [], "the first code cell is the untagged setup"
    assert [_tags(c) for c in code].count(["checklist"]) == 1
    for cell in code:
        has_region = generator.BEGIN in cell.source
        assert has_region == ("exercise" in _tags(cell)), f"solution regions belong in exercise cells:\n{cell.source[:80]}"
        if "checklist" in _tags(cell):
            assert f'lab="{lab}"' in cell.source and all(f"{f}={f}" in cell.source for f in functions)


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_learner_stubs_raise_with_the_lab_number(solution_path: Path) -> None:
    notebook = _read(generator.learner_path(solution_path))
    lab = notebook.metadata["course"]["lab"]
    _, exercises = _lab_code(notebook)
    label = lab_registry.lab(lab).label
    stubbed = re.findall(r'NotImplementedError\("(.+?) not implemented yet: (\w+)"\)', "\n".join(exercises))
    assert stubbed and {found for found, _ in stubbed} == {label}
    namespace = _run_lab_code(notebook)
    for name in notebook.metadata["course"]["functions"]:
        args, kwargs = _dummy_arguments(namespace[name])
        with pytest.raises(NotImplementedError, match=rf"^{re.escape(label)} not implemented yet: {name}$"):
            namespace[name](*args, **kwargs)


def _dummy_arguments(function: Any) -> tuple[list[None], dict[str, None]]:
    """``None`` for every required parameter: a stub raises before it looks at any of them."""
    required = [p for p in inspect.signature(function).parameters.values() if p.default is inspect.Parameter.empty]
    args = [None for p in required if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    kwargs = {p.name: None for p in required if p.kind is inspect.Parameter.KEYWORD_ONLY}
    return args, kwargs


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_exercise_cells_alone_pass_or_wait(solution_path: Path) -> None:
    """What a grader runs (setup + exercise cells): solutions pass their checks, learner stubs are 'not implemented yet'."""
    for path, expected in ((solution_path, "passed"), (generator.learner_path(solution_path), "not implemented yet")):
        notebook = _read(path)
        lab = notebook.metadata["course"]["lab"]
        namespace = _run_lab_code(notebook)
        functions = {name: namespace[name] for name in notebook.metadata["course"]["functions"]}
        report = checklist.run(lab=lab, **functions)
        assert report.total == CHECKS_PER_LAB[lab]
        assert [r.status for r in report.records] == [expected] * report.total, str(report)


# --- the generator itself ------------------------------------------------------------

SOLVED = '''\
class Model(Base):
    """Doc."""

    ### BEGIN SOLUTION
    x: int
    ### END SOLUTION


def outer(a):
    """Doc."""
    ### BEGIN SOLUTION
    def inner():
        return a
    return inner()
    ### END SOLUTION


class Holder:
    def method(self):
        ### BEGIN SOLUTION
        return 1
        ### END SOLUTION
'''

STUBBED = '''\
class Model(Base):
    """Doc."""

    pass  # Your code here: the body of Model (Lab 11.9).


def outer(a):
    """Doc."""
    # Your code here: replace the next line.
    raise NotImplementedError("Lab 11.9 not implemented yet: outer")


class Holder:
    def method(self):
        # Your code here: replace the next line.
        raise NotImplementedError("Lab 11.9 not implemented yet: method")
'''


def test_regions_become_stubs_at_their_indentation() -> None:
    """A region is named after its nearest enclosing def (not a nested one) or class."""
    assert generator.strip_solutions(SOLVED, "11.9") == STUBBED


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    ### BEGIN SOLUTION\n    return 1\n",
        "def f():\n    return 1\n    ### END SOLUTION\n",
        "### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n",
        "def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    ### END SOLUTION\n",
    ],
    ids=["unclosed", "unopened", "module-level", "nested"],
)
def test_malformed_regions_are_refused(source: str) -> None:
    with pytest.raises(generator.SolutionRegionError):
        generator.strip_solutions(source, "11.9")


# --- what each lab asks for, named where the learner looks ----------------------------------


def _asked_for(notebook: Any) -> list[str]:
    """Every def or class whose body holds a solution region: what the learner writes."""
    names = []
    for cell in notebook.cells:
        if "exercise" not in _tags(cell):
            continue
        lines = cell.source.split("\n")
        for number, line in enumerate(lines):
            if line.strip() == generator.BEGIN:
                indent = len(line) - len(line.lstrip())
                for before in reversed(lines[:number]):
                    match = generator._DEFINITION.match(before)
                    if match and len(match.group("indent")) < indent:
                        names.append(match.group("name"))
                        break
    return names


def _start_page_rows() -> dict[str, str]:
    """The start page's lab table: lab id -> its row."""
    start = _read(ROOT / "notebooks" / "00_start_here.ipynb")
    rows = {}
    for cell in start.cells:
        for line in cell.source.splitlines():
            cells = [part.strip() for part in line.strip().strip("|").split("|")]
            if line.startswith("| ") and cells[0] in lab_registry.LABS:
                rows[cells[0]] = line
    return rows


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_the_start_page_lists_everything_a_lab_asks_for(solution_path: Path) -> None:
    """Every function and model a lab's exercise cells leave to the learner is named in its row of the start page."""
    notebook = _read(solution_path)
    lab = notebook.metadata["course"]["lab"]
    asked = _asked_for(notebook)
    assert set(notebook.metadata["course"]["functions"]) <= set(asked)
    row = _start_page_rows().get(lab)
    assert row is not None, f"the start page's lab table has no row for {lab}"
    missing = [name for name in asked if f"`{name}`" not in row]
    assert not missing, f"the start page's row for {lab} does not name {missing}"


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_each_task_names_what_its_exercise_defines(solution_path: Path) -> None:
    """The 'Your task' text before an exercise cell names every def or class that cell leaves to the learner."""
    notebook = _read(solution_path)
    tasks = ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and "**Your task:**" in cell.source:
            tasks = cell.source
        elif "exercise" in _tags(cell):
            missing = [name for name in _asked_for(nbformat.v4.new_notebook(cells=[cell])) if f"`{name}" not in tasks]
            assert not missing, f"the task before the exercise defining {missing} does not name them"


def _course_imports(setup: str) -> set[str]:
    """Names the setup cell imports from the course (``from course_lib… import x``, ``import course_lib``)."""
    names = set()
    for node in ast.walk(ast.parse(setup)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib"):
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name for alias in node.names if alias.name.startswith("course_lib")}
    return names


def _solution_regions(source: str) -> str:
    """The code inside the solution regions of a cell, dedented, one region after the other."""
    regions: list[str] = []
    inside: list[str] | None = None
    for line in source.split("\n"):
        if line.strip() == generator.BEGIN:
            inside = []
        elif line.strip() == generator.END:
            regions.append(textwrap.dedent("\n".join(inside or [])))
            inside = None
        elif inside is not None:
            inside.append(line)
    return "\n".join(regions)


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_each_task_names_the_course_names_its_solution_uses(solution_path: Path) -> None:
    """A learner should not need the hints to learn which course type or helper to use (issue 21).

    Every name the setup cell imports from ``course_lib`` and the solution
    regions use must be named (in backticks) in the task text before the exercise,
    or in an earlier task of the same notebook; the hints do not count. So must
    every keyword the solution passes to such a name (``entry_id=``, ``max_tokens=``).
    """
    notebook = _read(solution_path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    course = _course_imports(code[0].source)
    tasks = ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and "**Your task:**" in cell.source:
            tasks += cell.source.split("<details><summary>Hint")[0]  # the hints do not count
        elif "exercise" in _tags(cell):
            used = {node.id for node in ast.walk(ast.parse(_solution_regions(cell.source))) if isinstance(node, ast.Name)}
            used |= {f"course_lib.{node.attr}" for node in ast.walk(ast.parse(_solution_regions(cell.source)))
                     if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "course_lib"}
            missing = sorted(name for name in used if name in course or name.startswith("course_lib."))
            missing = [name for name in missing if f"`{name}" not in tasks and name != "course_lib"]
            assert not missing, f"the task text does not name {missing}, which the solution uses"
            keywords = {(node.func.id, keyword.arg) for node in ast.walk(ast.parse(_solution_regions(cell.source)))
                        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in course
                        for keyword in node.keywords if keyword.arg}
            unnamed = sorted(f"{call}({keyword}=…)" for call, keyword in keywords if not re.search(rf"\b{keyword}=", tasks))
            assert not unnamed, f"the task text does not name the keywords {unnamed}, which the solution passes"
