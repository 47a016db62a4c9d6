"""One lab in one place (issue 42): every part of a lab is found from its registry entry, and nothing else.

``course_lib.teaching.lab_registry`` names each lab's functions and their
references, and ``Lab.module`` names its parts: its checks
(``course_lib/checklist/labs/``), its hidden cases
(``course_grader/judging/labs/``) and its mutants (``tests/mutants/``). No table
lists them again, so a part named otherwise would be silently left out: this
holds every such module to a lab, and every lab to its three modules.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from course_lib.checklist.check import REFERENCES, Implementation
from course_lib.teaching.lab_registry import LABS

ROOT = Path(__file__).resolve().parent.parent
PARTS = {
    "checks": (ROOT / "course_lib" / "checklist" / "labs", {"shared"}),
    "hidden cases": (ROOT / "course_grader" / "judging" / "labs", {"build_context"}),
    "mutants": (ROOT / "tests" / "mutants", {"run", "tricks"}),
}
"""Each part's folder, and the modules in it that several labs share (named for what they share)."""


def test_every_lab_has_each_part_and_every_part_a_lab() -> None:
    wrong = []
    for part, (folder, shared) in PARTS.items():
        modules = {path.stem for path in folder.glob("*.py")} - {"__init__"} - shared
        wrong += [f"{lab.label} has no {part} module {folder.name}/{lab.module}.py" for lab in LABS.values()
                  if lab.module not in modules]  # fmt: skip
        wrong += [f"{folder.relative_to(ROOT)}/{name}.py belongs to no lab" for name in sorted(modules)
                  if name not in {lab.module for lab in LABS.values()}]  # fmt: skip
    assert not wrong, "\n".join(wrong)


def test_each_reference_is_the_function_it_names() -> None:
    for lab in LABS.values():
        for name, dotted in zip(lab.functions, lab.references, strict=True):
            reference = REFERENCES[name]
            assert inspect.isfunction(reference) and reference.__name__ == name, dotted
            assert f"{reference.__module__}.{name}" == dotted, (dotted, reference.__module__)


def test_an_implementation_is_the_references_but_what_the_learner_passed() -> None:
    mine = lambda *args, **kwargs: None  # noqa: E731 - a stand-in learner function
    implementation = Implementation(build_context=mine)
    assert implementation.build_context is mine
    assert implementation.group_interactions is REFERENCES["group_interactions"]
    with pytest.raises(TypeError, match="build_contxt"):
        Implementation(build_contxt=mine)
