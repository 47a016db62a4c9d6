"""No lab contradicts itself: a mutant's notebook never shows ❌ above a checklist that passes.

Apart from tests/lib/checklist/test_mutants.py so that the two long runs over the corpus
(``make test`` distributes tests by file) go to different workers.
"""

from __future__ import annotations

import pytest
from mutants import MUTANTS, Mutant, reference
from mutants.run import run_notebook

from course_lib.teaching import lab_registry


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [*map(reference, lab_registry.LABS), *MUTANTS], ids=lambda m: m.name)
def test_no_lab_contradicts_itself(mutant: Mutant) -> None:
    """A ❌ (or ⚠️, or a crash) in a lab's body cells never sits above a checklist saying every check passed."""
    body = run_notebook(mutant)
    assert body.checklist is not None, "the notebook has no checklist cell"
    assert not (body.failures and body.checklist.all_passed), (
        f"{body.checklist.summary}, yet the body cells show: {body.failures[:3]}"
    )
    if not mutant.edits:
        assert not body.failures and body.checklist.all_passed, body.failures
