"""Learner bugs: plausible wrong answers to the five labs and the capstone, each a small edit of a solution notebook.

The checklist and the grader are only as good as the wrong code they fail. Every
``Mutant`` here is one mistake a learner could make, written as text
replacements in the solution's exercise cells, with the rule it breaks. ``make
mutants`` grades them all with ``course-grade``; ``tests/lib/checklist/test_mutants.py``
asserts both layers catch them (every one loses marks in the grader, at least
90 % fail an inline check), and ``tests/notebooks/test_body_cells.py`` that no
lab's body cells contradict its checklist. The tests read each mutant's verdicts
from ``tests/corpus_verdicts.py``, which computes each once per test run.

Mutants that cannot change behaviour (equivalent mutants) are argued in a
comment in the lab's module and left out.
"""

from __future__ import annotations

import copy
import importlib
from dataclasses import dataclass
from pathlib import Path

import nbformat
from grading_corpus import solution, tagged
from nbformat import NotebookNode

from course_lib.teaching import lab_registry

INLINE_TARGET = 0.9
"""The share of mutants that must fail at least one inline check; course-grade must take marks from all of them."""


@dataclass(frozen=True)
class Mutant:
    """One learner bug: ``edits`` are ``(old, new)`` replacements, each of text found once in the exercise cells."""

    name: str
    lab: str
    rule: str
    description: str
    edits: tuple[tuple[str, str], ...]
    says: tuple[tuple[int, str, str], ...] = ()
    """What the checks must say of it, where it matters which cause they name (issue 45): ``(check, English,
    Chinese)``, each message's beginning in each language (tests/lib/checklist/test_languages.py)."""

    def notebook(self) -> NotebookNode:
        notebook = copy.deepcopy(solution(self.lab))
        cells = tagged(notebook, "exercise")
        for old, new in self.edits:
            holding = [cell for cell in cells if old in cell.source]
            assert len(holding) == 1 and holding[0].source.count(old) == 1, (
                f"mutant {self.name}: {old!r} must occur once in the exercise cells of Lab {self.lab}"
            )
            holding[0].source = holding[0].source.replace(old, new)
        return notebook

    @property
    def file_name(self) -> str:
        return f"{self.name}_lab_{self.lab.replace('.', '_')}.ipynb"

    def write(self, folder: Path) -> Path:
        path = folder / self.file_name
        path.write_text(nbformat.writes(self.notebook()), encoding="utf-8")
        return path


def mutant(
    lab: str,
    name: str,
    rule: str,
    description: str,
    *edits: tuple[str, str],
    says: tuple[tuple[int, str, str], ...] = (),
) -> Mutant:
    return Mutant(f"{lab.replace('.', '_')}_{name}", lab, rule, description, edits, says)


def reference(lab: str) -> Mutant:
    """The lab's solution itself, as a mutant with no edit (what every target is measured against)."""
    return Mutant(f"reference_{lab.replace('.', '_')}", lab, "", "the solution itself", ())


def all_mutants() -> tuple[Mutant, ...]:
    """Each lab's mutants (its module here, named after the lab: ``Lab.module``), in the registry's order, then the
    tricks that answer from a table (``tricks.py``)."""
    from . import tricks

    found = (
        *(
            mutant
            for lab in lab_registry.LABS.values()
            for mutant in importlib.import_module(f"{__name__}.{lab.module}").MUTANTS
        ),
        *tricks.MUTANTS,
    )
    names = [m.name for m in found]
    assert len(set(names)) == len(names), "mutant names must be unique"
    return found


MUTANTS = all_mutants()
