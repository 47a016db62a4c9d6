"""``python scripts/similarity_figures.py``: how alike honest work, copies and pastes are, as the grader measures it.

Per lab, with ``course_grader.similarity.similarity``'s own comparison (copydetect's
fingerprints, the lab's stub removed): each honest solution written apart (the
course's, and ``tests/similarity_variants.py``) against ``course_lib``'s
implementation and against each other; a paste of each withheld module
(its imports made absolute, as a cell needs them), as it is and with every name renamed; the solution against each of the lab's
mutants (``tests/mutants``: one learner's copy, one edit apart). A row reads
``share / other share, shared characters`` and whether it would be reported
(``THRESHOLD``, ``MIN_SHARED``). The figures are deterministic (no timing):
docs/grading.md quotes them.
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from mutants import MUTANTS  # noqa: E402 - imported once sys.path holds tests/
from similarity_variants import pasteable, renamed, variants  # noqa: E402 - imported once sys.path holds tests/

from course_grader.intake.cells import exercise_sources  # noqa: E402 - imported once sys.path holds tests/
from course_grader.similarity import similarity  # noqa: E402 - imported once sys.path holds tests/
from course_grader.similarity.similarity import MIN_SHARED, THRESHOLD  # noqa: E402 - imported once sys.path holds tests/
from course_lib.teaching import lab_registry  # noqa: E402 - imported once sys.path holds tests/


def closest(
    prints: similarity._Fingerprints, mine: tuple[str, ...], theirs: tuple[str, ...]
) -> tuple[int, float, float]:
    """The closest pair of cells (either side's share), as ``compare_lab`` keeps it."""
    found = [similarity._compared(prints.of(a), prints.of(b)) for a in mine for b in theirs]
    return max(found, key=lambda f: (similarity.reported(*f), max(f[1], f[2])), default=(0, 0.0, 0.0))


def row(what: str, figures: tuple[int, float, float], *, reference: bool = False) -> str:
    shared, share, other = figures
    flagged = shared >= MIN_SHARED and share >= THRESHOLD if reference else similarity.reported(*figures)
    return (
        f"  {what:<58} {100 * share:5.1f} % / {100 * other:5.1f} %  {shared:5d} chars  {'REPORTED' if flagged else '-'}"
    )


def main() -> int:
    print(f"threshold {100 * THRESHOLD:g} % of a cell's own code, at least {MIN_SHARED} shared normalised characters")
    for lab in lab_registry.LABS:
        prints = similarity._Fingerprints(similarity.stub_cells(lab_registry.LABS[lab]))
        honest = variants(lab)
        print(f"{lab_registry.LABS[lab].label}")
        for reference in similarity.reference_texts(lab_registry.LABS[lab]):
            module = (reference.source,)
            for name, cells in honest.items():
                print(row(f"{name} ~ {reference.name}", closest(prints, cells, module), reference=True))
            paste = pasteable(reference.source)
            print(row(f"paste of {reference.name}", closest(prints, (paste,), module), reference=True))
            renamed_paste = closest(prints, (renamed(paste),), module)
            print(row(f"renamed paste of {reference.name}", renamed_paste, reference=True))
        for (first, a), (second, b) in combinations(honest.items(), 2):
            print(row(f"{first} ~ {second}", closest(prints, a, b)))
        copies = [m for m in MUTANTS if m.lab == lab]
        if copies:
            solution = honest["solution"]
            figures = [closest(prints, solution, exercise_sources(m.notebook())) for m in copies]
            lowest = min(figures, key=lambda f: max(f[1], f[2]))
            reported = sum(similarity.reported(*f) for f in figures)
            print(row(f"solution ~ its {len(copies)} mutants (the least alike)", lowest) + f" ({reported} reported)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
