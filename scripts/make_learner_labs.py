"""Generate the learner labs from the solution notebooks, then execute them (``make learner-labs``).

Usage: python scripts/make_learner_labs.py [--no-execute]

``labs/solutions/lab_11_N_*.ipynb`` is the single source of every lab, and
``notebooks/solutions/02_lifecycle_capstone.ipynb`` of the capstone; this writes
the learner version one folder up (``labs/lab_11_N_*.ipynb``,
``notebooks/02_lifecycle_capstone.ipynb``). Each region between
``### BEGIN SOLUTION`` and ``### END SOLUTION`` is replaced, at the marker's
indentation, by a stub:

- inside a function: ``raise NotImplementedError("Lab 11.N not implemented yet: <function>")``
  (``"The capstone not implemented yet: ..."`` for the capstone),
  so the learner notebook runs and the checklist shows "not implemented yet";
- inside a class body: ``pass``, so the class still exists (Lab 11.1's models).

Everything else (prose, hints, tags, cell and notebook metadata) is copied as
it is; outputs are cleared and then refilled by ``scripts/execute_notebooks.py``.
``tests/test_learner_labs.py`` fails when the committed learner labs differ
from what this script generates.
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course_lib import lab_registry  # noqa: E402 - the registry says where each lab's notebooks live

SOLUTIONS = ROOT / "labs" / "solutions"
LEARNER_DIR = ROOT / "labs"

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
_DEFINITION = re.compile(r"^(?P<indent>\s*)(?:async\s+def|def|class)\s+(?P<name>\w+)")
_KIND = re.compile(r"^\s*(?P<kind>async\s+def|def|class)\b")


class SolutionRegionError(ValueError):
    """A solution region is unbalanced or sits where no stub can replace it."""


def strip_solutions(source: str, lab: str) -> str:
    """``source`` with every solution region replaced by its stub (see the module docstring)."""
    lines = source.split("\n")
    out: list[str] = []
    inside: tuple[int, str] | None = None  # (line number of BEGIN, stub indentation)
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside is not None:
                raise SolutionRegionError(f"line {number}: {BEGIN} inside another solution region")
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + stub for stub in _stub(lines[: number - 1], indent, lab, number))
            inside = (number, indent)
        elif marker == END:
            if inside is None:
                raise SolutionRegionError(f"line {number}: {END} without {BEGIN}")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise SolutionRegionError(f"line {inside[0]}: {BEGIN} is never closed by {END}")
    return "\n".join(out)


def _stub(before: list[str], indent: str, lab: str, number: int) -> list[str]:
    """The stub for a region at ``indent``: named after the nearest enclosing def or class."""
    for line in reversed(before):
        match = _DEFINITION.match(line)
        if match and len(match.group("indent")) < len(indent):
            name = match.group("name")
            if _KIND.match(line).group("kind") == "class":  # type: ignore[union-attr]
                return [f"pass  # Your code here: the body of {name} ({_label(lab)})."]
            return [
                "# Your code here: replace the next line.",
                f'raise NotImplementedError("{_label(lab)} not implemented yet: {name}")',
            ]
    raise SolutionRegionError(f"line {number}: a solution region must sit inside a def or class body")


def _label(lab: str) -> str:
    """``Lab 11.3``, ``The capstone``: how a stub names its lab (an id outside the registry reads ``Lab <id>``)."""
    try:
        return lab_registry.lab(lab).label
    except ValueError:
        return f"Lab {lab}"


def learner_notebook(solution: NotebookNode) -> NotebookNode:
    """The learner version of a solution notebook: regions stubbed, outputs cleared."""
    lab = solution.metadata["course"]["lab"]
    learner = copy.deepcopy(solution)
    for cell in learner.cells:
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, lab)
        cell.outputs = []
        cell.execution_count = None
    return learner


def solution_paths() -> list[Path]:
    """Every lab's solution notebook, in the registry's order."""
    return [ROOT / lab.folder / "solutions" / f"{lab.notebook}.ipynb" for lab in lab_registry.LABS.values()]


def learner_path(solution_path: Path) -> Path:
    return solution_path.parent.parent / solution_path.name


def main(arguments: list[str]) -> int:
    written = []
    for path in solution_paths():
        target = learner_path(path)
        nbformat.write(learner_notebook(nbformat.read(path, as_version=4)), target)
        written.append(target)
        print(f"wrote {target.relative_to(ROOT)}")
    if "--no-execute" in arguments or not written:
        return 0
    executor = ROOT / "scripts" / "execute_notebooks.py"
    return subprocess.call([sys.executable, str(executor), *map(str, written)])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
