"""The course's helpers a lab asks learners to call are shown with their signatures where they are first used (issue 45).

Lab 11.2's solution raises ``tool_facts.unknown_call(…)``, ``tool_facts.unanswered(…)``, …: a learner writing it needs
each helper's parameters, so a markdown cell before the first code cell that calls a helper states the call as
``tool_facts.name(parameter, …)``, with the parameters ``inspect.signature`` gives, in both editions.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import nbformat
import pytest

from course_lib import tool_facts

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted(
    [*(ROOT / "labs" / "solutions").glob("*.ipynb"), *(ROOT / "labs" / "zh" / "solutions").glob("*.ipynb")]
)
HELPERS = {"tool_facts": tool_facts}
"""The modules of helpers a lab's solution calls by their module's name."""
CALL = re.compile(rf"\b(?P<module>{'|'.join(HELPERS)})\.(?P<name>\w+)\(")


def _signature(module: str, name: str) -> str:
    parameters = inspect.signature(getattr(HELPERS[module], name)).parameters
    return f"`{module}.{name}({', '.join(parameters)})`"


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_helper_a_solution_calls_is_shown_with_its_signature_before(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    shown = ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            shown += cell.source
            continue
        for call in CALL.finditer(cell.source):
            signature = _signature(call["module"], call["name"])
            assert signature in shown, f"{path.name}, cell {cell.get('id')}: {signature} is not shown before its use"
