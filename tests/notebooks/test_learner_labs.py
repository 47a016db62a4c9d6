"""Every notebook is generated from one text source and stays in step with it; a lab's solution and learner versions too.

``labs/sources/*.py`` and ``notebooks/sources/*.py`` (jupytext py:percent) are the
single sources (docs/notebooks.md): each lab and the capstone give a solution and a
learner notebook, the notebooks without exercises (00, 01, 03) one notebook each.
These tests fail when a committed notebook is not what ``make learner-labs`` would
write from its source, when a source loses a cell's id, tags or metadata on the
way, when a stub names the wrong lab, or when a lab's exercise cells (all a
grader runs, after the setup cell) do not pass that lab's part of the checklist
on their own. ``tests/grader/packaging/test_nbgrader_interop.py`` runs real nbgrader on them.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course_lib import checklist
from course_lib.checklist.runner import FUNCTION_NAMES
from course_lib.teaching import lab_registry

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("make_learner_labs", ROOT / "scripts" / "make_learner_labs.py")
assert _spec and _spec.loader
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)

SOURCES = generator.source_paths()
SOLUTIONS = generator.solution_paths()
PLAIN_SOURCES = generator.plain_source_paths()
"""The sources of the notebooks without exercises (00, 01, 03): one notebook each, no solution."""
CHECKS_PER_LAB = {lab.id: lab.checks for lab in lab_registry.LABS.values()}
"""Each lab's checks as its registry entry states them (tests/lib/checklist/test_checklist.py holds the checklist to it)."""


def _read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


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


def test_six_solution_labs_and_the_capstone_with_learner_versions() -> None:
    assert [generator.read_source(p).metadata["course"]["lab"] for p in SOURCES] == list(CHECKS_PER_LAB)
    assert [_read(p).metadata["course"]["lab"] for p in SOLUTIONS] == list(CHECKS_PER_LAB)
    assert sorted(p.name for p in (ROOT / "labs" / "sources").glob("*.py")) == sorted(
        p.name for p in SOURCES if p.parent.parent.name == "labs"
    ), "every text source in labs/ belongs to a lab of the registry"
    for folder in ("labs/solutions", "notebooks/solutions"):
        assert {p.stem for p in (ROOT / folder).glob("*.ipynb")} <= {p.stem for p in SOURCES}, (
            f"{folder} holds a notebook with no text source"
        )
    learner = sorted(p.name for p in (ROOT / "labs").glob("lab_11_*.ipynb"))
    in_labs = sorted(p.name for p in SOLUTIONS if p.parent.parent.name == "labs")
    assert learner == in_labs, "every solution has exactly one learner version"
    assert all(generator.learner_path(p).is_file() for p in SOLUTIONS)


def _assert_up_to_date(generated: Any, committed_path: Path) -> None:
    """``generator.is_up_to_date``, saying which part differs (what ``--changed`` regenerates)."""
    committed = generator.comparable(_read(committed_path))
    ours = generator.comparable(generated)
    where = f"{committed_path.relative_to(ROOT)} is out of date with its source: run `make learner-labs`"
    assert committed["metadata"] == ours["metadata"], f"notebook metadata differs; {where}"
    assert [c["id"] for c in committed["cells"]] == [c["id"] for c in ours["cells"]], f"cells differ; {where}"
    for mine, theirs in zip(ours["cells"], committed["cells"]):
        assert theirs == mine, f"cell {mine['id']} differs; {where}"
    assert generator.is_up_to_date(generated, committed_path)


@pytest.mark.parametrize("source", SOURCES, ids=_ids(SOURCES))
def test_solution_notebook_is_up_to_date(source: Path) -> None:
    """The committed solution notebook is its text source, cell by cell (ids, sources, tags, metadata), outputs aside."""
    _assert_up_to_date(generator.read_source(source), generator.solution_path(source))


@pytest.mark.parametrize("source", SOURCES, ids=_ids(SOURCES))
def test_learner_notebook_is_up_to_date(source: Path) -> None:
    """The committed learner notebook is what the generator makes from the source, outputs aside."""
    _assert_up_to_date(
        generator.learner_notebook(generator.read_source(source)),
        generator.learner_path(generator.solution_path(source)),
    )


def test_an_edited_source_makes_the_committed_notebooks_out_of_date() -> None:
    """The up-to-date check sees a one-word edit of a markdown cell and of a code cell."""
    source = SOURCES[2]
    text = source.read_text(encoding="utf-8")
    for old, new in (
        ("# ## 3 · Run: 31 tokens", "# ## 3 · Run it: 31 tokens"),
        ("field by field", "one field at a time"),
    ):
        assert old in text
        edited = generator.solution_notebook(text.replace(old, new, 1))
        with pytest.raises(AssertionError, match="out of date"):
            _assert_up_to_date(edited, generator.solution_path(source))
        with pytest.raises(AssertionError, match="out of date"):
            _assert_up_to_date(
                generator.learner_notebook(edited), generator.learner_path(generator.solution_path(source))
            )
        assert not generator.is_up_to_date(edited, generator.solution_path(source))
    assert not generator.is_up_to_date(generator.read_source(source), ROOT / "labs" / "no_such_notebook.ipynb")


TEXT_SOURCE = """\
# ---
# jupyter:
#   course:
#     functions: [f]
#     lab: '11.4'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="intro"
# # A lab
#
# <details><summary>Hint</summary>
#
# Look at `f`.
# </details>

# %% id="setup"
import math

# %% id="hint" jupyter={"source_hidden": true} collapsed=true
print("a hidden hint")

# %% id="answer" tags=["exercise"]
def f():
    ### BEGIN SOLUTION
    return math.pi
    ### END SOLUTION

# %% id="predict"
my_prediction = None

# %% id="check" tags=["checklist"]
checklist.run(lab="11.4", f=f)

# %% [markdown] id="outro"
# The end.
"""


def test_a_source_keeps_ids_tags_metadata_and_gets_nbgrader_metadata() -> None:
    """Ids, tags, hidden/collapsed cell metadata and the header's notebook metadata reach the notebook unchanged.

    nbgrader's metadata comes from the tags: the exercise is an autograded answer,
    the setup and checklist cells are read-only, the rest carry none.
    """
    notebook = generator.solution_notebook(TEXT_SOURCE)
    assert notebook.metadata == {
        "course": {"functions": ["f"], "lab": "11.4"},
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    }
    assert [(c.id, c.cell_type) for c in notebook.cells] == [
        ("intro", "markdown"),
        ("setup", "code"),
        ("hint", "code"),
        ("answer", "code"),
        ("predict", "code"),
        ("check", "code"),
        ("check-10", "code"),
        ("check-11", "code"),
        ("outro", "markdown"),
    ]
    cells = {c.id: c for c in notebook.cells}
    assert cells["intro"].source.startswith("# A lab\n\n<details><summary>Hint</summary>")
    assert cells["hint"].metadata == {"jupyter": {"source_hidden": True}, "collapsed": True}
    assert cells["answer"].source == "def f():\n    ### BEGIN SOLUTION\n    return math.pi\n    ### END SOLUTION"

    def nbgrader(cell_id: str, *, solution: bool, locked: bool) -> dict[str, Any]:
        return {"grade": False, "grade_id": cell_id, "locked": locked, "schema_version": 3, "solution": solution}

    assert cells["setup"].metadata == {"nbgrader": nbgrader("setup", solution=False, locked=True)}
    assert cells["answer"].metadata == {
        "tags": ["exercise"],
        "nbgrader": nbgrader("answer", solution=True, locked=False),
    }
    assert cells["check"].metadata == {
        "tags": ["checklist"],
        "nbgrader": nbgrader("check", solution=False, locked=True),
    }
    assert "nbgrader" not in cells["predict"].metadata and "nbgrader" not in cells["intro"].metadata
    for number in (10, 11):  # Lab 11.4's checks, each passing the functions the registry says the lab grades
        test = cells[f"check-{number}"]
        assert test.source.endswith(
            f"\nchecklist.grade_cell({number}, create_compaction_entry=create_compaction_entry)"
        )
        assert test.metadata == {
            "nbgrader": {**nbgrader(f"check-{number}", solution=False, locked=True), "grade": True, "points": 1}
        }
    learner = {c.id: c for c in generator.learner_notebook(notebook).cells}
    assert 'raise NotImplementedError("Lab 11.4 not implemented yet: f")' in learner["answer"].source
    assert learner["answer"].metadata == cells["answer"].metadata
    assert learner["check-10"] == cells["check-10"], "the learner version keeps nbgrader's test cells, as nbgrader does"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("lab: '11.4'", "lab: '11.9'"), "lab '11.9' is not in course_lib/teaching/lab_registry.py"),
        (('id="check" tags=["checklist"]', 'id="check"'), "exactly one cell tagged 'checklist', found 0"),
        (('id="predict"', 'id="predict" tags=["checklist"]'), "exactly one cell tagged 'checklist', found 2"),
        (('id="outro"', 'id="check-11"'), r"the ids \['check-11'\] are nbgrader's test cells'"),
    ],
    ids=["unknown-lab", "no-checklist", "two-checklists", "taken-id"],
)
def test_a_lab_whose_test_cells_cannot_be_placed_is_refused(change: tuple[str, str], message: str) -> None:
    """No lab notebook is written without nbgrader's test cells (``nbgrader autograde`` would score it out of 0)."""
    assert change[0] in TEXT_SOURCE
    with pytest.raises(generator.nbgrader_test_cells.GradeCellError, match=message):
        generator.solution_notebook(TEXT_SOURCE.replace(*change), "lab.py")


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_every_check_of_a_lab_has_its_nbgrader_test_cell(solution_path: Path) -> None:
    """One test cell per check of the lab, 1 point each, right after the checklist cell: what course-grade scores."""
    notebook = _read(solution_path)
    lab = lab_registry.lab(notebook.metadata["course"]["lab"])
    at = next(i for i, cell in enumerate(notebook.cells) if "checklist" in _tags(cell))
    tests = [cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]
    assert notebook.cells[at + 1 : at + 1 + len(tests)] == tests
    assert [cell.id for cell in tests] == [f"check-{case.number}" for case in checklist.select(lab.id)]
    assert sum(cell.metadata["nbgrader"]["points"] for cell in tests) == CHECKS_PER_LAB[lab.id]
    arguments = ", ".join(f"{name}={name}" for name in lab.functions)
    assert all(cell.source.endswith(f"({cell.id.removeprefix('check-')}, {arguments})") for cell in tests)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('# %% id="setup"', "# %%"), 'cell 2 has no valid id.*e.g. id="intro-b"'),
        (('id="setup"', 'id="set up"'), "cell 2 has no valid id"),
        (('id="predict"', 'id="setup"'), "cell 5 repeats the id 'setup'"),
    ],
    ids=["missing", "invalid", "repeated"],
)
def test_a_source_cell_without_its_own_id_is_refused(change: tuple[str, str], message: str) -> None:
    """nbformat would give such a cell a random id: every regeneration would then rewrite the notebooks."""
    with pytest.raises(generator.LabSourceError, match=message):
        generator.solution_notebook(TEXT_SOURCE.replace(*change), "lab.py")


def test_every_notebook_has_a_text_source() -> None:
    """No notebook is kept by hand: each one under notebooks/ and labs/ is generated from a source."""
    generated = {path for path, _ in generator.generated()}
    committed = {p for folder in ("notebooks", "labs") for p in (ROOT / folder).rglob("*.ipynb")}
    assert {p.relative_to(ROOT) for p in committed} == {p.relative_to(ROOT) for p in generated}
    assert [generator.plain_path(p).name for p in PLAIN_SOURCES] == [
        "00_start_here.ipynb",
        "01_projection_explorer.ipynb",
        "03_your_own_session.ipynb",
    ]


@pytest.mark.parametrize("source", PLAIN_SOURCES, ids=_ids(PLAIN_SOURCES))
def test_notebook_without_exercises_is_up_to_date(source: Path) -> None:
    """The committed notebook is its text source, cell by cell, with nothing added (no nbgrader metadata), outputs aside."""
    notebook = generator.read_plain_source(source)
    _assert_up_to_date(notebook, generator.plain_path(source))
    assert set(notebook.metadata) == {"kernelspec"}
    assert not [cell.id for cell in notebook.cells if "nbgrader" in cell.metadata]


def test_the_widget_and_book_cells_keep_their_tags() -> None:
    """What nbval, the book and the browser test rely on: the live widget cells' tags, the drawn cells' hidden input."""
    tags = {
        (path.stem, cell.id): _tags(cell)
        for path in PLAIN_SOURCES
        for cell in generator.read_plain_source(path).cells
        if _tags(cell)
    }
    assert tags == {
        ("01_projection_explorer", "ea9ee56f"): ["nbval-ignore-output", "remove-output"],
        ("01_projection_explorer", "9e648248"): ["hide-input"],
        ("01_projection_explorer", "050664f6"): ["hide-input"],
        ("03_your_own_session", "a8572027"): ["nbval-ignore-output", "remove-output"],
    }


_REGION = "    ### BEGIN SOLUTION\n    return math.pi\n    ### END SOLUTION\n"
_LAB_HEADER = "#   course:\n#     functions: [f]\n#     lab: '11.4'\n"


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (TEXT_SOURCE.replace(_LAB_HEADER, "").replace(_REGION, "    return math.pi\n"), False),
        (TEXT_SOURCE.replace(_REGION, "    return math.pi\n"), True),
        (TEXT_SOURCE.replace(_LAB_HEADER, ""), True),
    ],
    ids=["plain", "lab-metadata", "solution-region"],
)
def test_a_notebook_without_exercises_that_is_a_lab_is_refused(
    text: str, refused: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Published as it is, a lab the registry does not know would hand its solutions to learners."""
    assert text != TEXT_SOURCE
    source = tmp_path / "notebooks" / "sources" / "04_more.py"
    source.parent.mkdir(parents=True)
    source.write_text(text, encoding="utf-8")
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    if not refused:
        notebook = generator.read_plain_source(source)
        assert "course" not in notebook.metadata and "nbgrader" not in notebook.cells[1].metadata
        return
    with pytest.raises(
        generator.LabSourceError, match=r"notebooks/sources/04_more.py: .*course_lib/teaching/lab_registry.py"
    ):
        generator.read_plain_source(source)


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
        assert has_region == ("exercise" in _tags(cell)), (
            f"solution regions belong in exercise cells:\n{cell.source[:80]}"
        )
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
            used = {
                node.id for node in ast.walk(ast.parse(_solution_regions(cell.source))) if isinstance(node, ast.Name)
            }
            used |= {
                f"course_lib.{node.attr}"
                for node in ast.walk(ast.parse(_solution_regions(cell.source)))
                if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "course_lib"
            }
            missing = sorted(name for name in used if name in course or name.startswith("course_lib."))
            missing = [name for name in missing if f"`{name}" not in tasks and name != "course_lib"]
            assert not missing, f"the task text does not name {missing}, which the solution uses"
            keywords = {
                (node.func.id, keyword.arg)
                for node in ast.walk(ast.parse(_solution_regions(cell.source)))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in course
                for keyword in node.keywords
                if keyword.arg
            }
            unnamed = sorted(
                f"{call}({keyword}=…)" for call, keyword in keywords if not re.search(rf"\b{keyword}=", tasks)
            )
            assert not unnamed, f"the task text does not name the keywords {unnamed}, which the solution passes"


# --- make learner-labs itself ---------------------------------------------------------------


def _copy_sources(root: Path) -> list[Path]:
    copies = []
    for source in [*SOURCES, *PLAIN_SOURCES]:
        copy = root / source.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
        copies.append(copy)
    return copies


@pytest.mark.slow  # generates every notebook of a copy of the course: make test, not make check
def test_make_learner_labs_writes_both_versions_and_changed_only_what_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """From the sources alone: every notebook; then ``--changed`` rewrites only an edited lab's two, or an edited page."""
    copies = _copy_sources(tmp_path)
    pages = [generator.plain_path(p) for p in PLAIN_SOURCES]
    english = {str(p.relative_to(ROOT)) for p in [*SOLUTIONS, *map(generator.learner_path, SOLUTIONS), *pages]}
    every = {str(path.relative_to(ROOT)) for path, _ in generator.generated()}  # English, then the translated editions
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    assert generator.main(["--no-execute"]) == 0
    written = {line.removeprefix("wrote ") for line in capsys.readouterr().out.splitlines()}
    assert written == every and english <= every
    for path in [*SOLUTIONS, *pages]:
        assert generator.comparable(_read(tmp_path / path.relative_to(ROOT))) == generator.comparable(_read(path))
    assert generator.main(["--changed", "--no-execute"]) == 0
    assert capsys.readouterr().out == ""
    # From here the English alone: an edited English cell makes its translated edition wait for its catalog
    # (tests/notebooks/test_translated_notebooks.py), which is not what --changed is tested for.
    monkeypatch.setattr(generator.translated_notebooks, "TRANSLATED", ())
    edited = copies[3]
    edited.write_text(edited.read_text(encoding="utf-8").replace("# ## 2 · ", "# ## 2 - ", 1), encoding="utf-8")
    assert generator.main(["--changed", "--no-execute"]) == 0
    assert capsys.readouterr().out.split() == [
        "wrote",
        "labs/solutions/lab_11_4_create_compaction_entry.ipynb",
        "wrote",
        "labs/lab_11_4_create_compaction_entry.ipynb",
    ]
    page = copies[len(SOURCES)]
    page.write_text(page.read_text(encoding="utf-8").replace("# ## 2. ", "# ## 2 - ", 1), encoding="utf-8")
    assert generator.main(["--changed", "--no-execute"]) == 0
    assert capsys.readouterr().out.split() == ["wrote", "notebooks/00_start_here.ipynb"]


@pytest.mark.slow
def test_executing_a_notebook_prints_no_kernel_transport_warning(tmp_path: Path) -> None:
    """The executor's kernels use IPC: ipykernel's "running over TCP without encryption" warning (once per notebook) is gone."""
    path = tmp_path / "tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")]), path)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "execute_notebooks.py"), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert _read(path).cells[0].outputs[0]["text"] == "42\n"
    assert "WARNING" not in done.stderr and "without encryption" not in done.stderr, done.stderr


def test_a_widget_view_gets_the_same_model_id_on_every_run() -> None:
    """The kernel's random model id would rewrite 01 and 03 on every execution; the executor derives it instead."""
    spec = importlib.util.spec_from_file_location("execute_notebooks", ROOT / "scripts" / "execute_notebooks.py")
    assert spec and spec.loader
    executor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(executor)

    def run(model_id: str, name: str = "01_projection_explorer.ipynb") -> list[str]:
        def output() -> Any:
            view = {"model_id": model_id, "version_major": 2, "version_minor": 0}
            return nbformat.v4.new_output("display_data", data={executor.WIDGET_VIEW: view, "text/plain": "VBox()"})

        cells = [nbformat.v4.new_code_cell("w", id=cell_id, outputs=[output()]) for cell_id in ("a", "b")]
        notebook = nbformat.v4.new_notebook(cells=cells)
        executor._stable_widget_ids(notebook, name)
        return [cell.outputs[0]["data"][executor.WIDGET_VIEW]["model_id"] for cell in notebook.cells]

    first = run("29cc13aa7bb6467789c8158237a7534e")
    assert first == run("bbcdb78211ae42cd927eed61d1fd663f")
    assert len(set(first)) == 2 and all(re.fullmatch(r"[0-9a-f]{32}", found) for found in first)
    assert run("29cc13aa7bb6467789c8158237a7534e", "03_your_own_session.ipynb") != first
