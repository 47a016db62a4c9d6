"""The learner-bug corpus against both layers.

``make mutants`` grades the corpus under 20 seeds in process and once with
``course-grade`` in sandboxed kernels; here the same checks and hidden cases
are judged in-process, once per test run (``corpus_verdicts``), which is what
the targets need. The seed-free test: the hidden tests' fixed covering set
alone takes marks from every mutant, whatever seed draws its ids and numbers,
so no seed's draw can spare one.
"""

from __future__ import annotations

from collections import Counter

import corpus_verdicts as verdicts
import pytest
from mutants import INLINE_TARGET, MUTANTS
from mutants.run import loses_marks

from course_lib.teaching import lab_registry


@pytest.mark.slow  # applies every mutant's edit to its solution notebook: make test, not make check
def test_corpus_covers_every_lab() -> None:
    per_lab = Counter(m.lab for m in MUTANTS)
    assert len(MUTANTS) >= 80 and set(per_lab) == set(lab_registry.LABS), per_lab
    assert all(m.rule and m.description for m in MUTANTS)
    for mutant in MUTANTS:  # every edit still applies to the solution as it is now
        mutant.notebook()


@pytest.mark.slow  # several seconds: make test, not make check
@pytest.mark.parametrize("seed", [None, 0, 1])
def test_the_covering_set_alone_takes_marks_from_every_mutant(seed: int | None) -> None:
    """No seed can spare a mutant: the hidden tests' fixed cases catch each one without any drawn case, under the
    lab's own seed and under others (which draw other ids, texts and numbers into the same shapes)."""
    spared = [m.name for m in MUTANTS if not verdicts.covering(m, seed)]
    assert not spared, f"the covering set drawn from seed {seed} gives full hidden marks to {spared}"


@pytest.mark.slow
@pytest.mark.parametrize("lab", lab_registry.LABS)
def test_every_mutant_loses_marks(lab: str) -> None:
    """Per lab, so a failure names the lab (the 90 % inline target is corpus-wide)."""
    full_marks = [m.name for m in MUTANTS if m.lab == lab and not loses_marks(verdicts.graded(m))]
    assert not full_marks, f"course-grade gives full marks to {full_marks}"


@pytest.mark.slow
def test_most_mutants_fail_an_inline_check() -> None:
    passing_inline = [m.name for m in MUTANTS if verdicts.inline(m).all_passed]
    assert 1 - len(passing_inline) / len(MUTANTS) >= INLINE_TARGET, f"every inline check passes for {passing_inline}"
