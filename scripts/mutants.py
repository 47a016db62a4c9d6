"""``make mutants``: grade the learner-bug corpus with course-grade and the labs' own checklists.

Every mutant in ``tests/mutants`` (a plausible learner mistake, a small edit of
a solution notebook) is written to a temporary folder and graded there in one
``course-grade`` batch (sandboxed kernels, two workers). Each mutant's lab
checklist also runs against its functions in this process, as the notebook's
checklist cell would. The table says, per lab, how many mutants each layer
catches; the targets are every mutant for the grader and at least 90 % for the
inline checklist. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from mutants import INLINE_TARGET, MUTANTS, Mutant  # noqa: E402
from mutants.run import inline, loses_marks  # noqa: E402

from course_lib import labs  # noqa: E402
from course_lib.grading import GradeOptions, grade_folder  # noqa: E402
from course_lib.grading.results import GradeResult  # noqa: E402


def grade_all(mutants: tuple[Mutant, ...], jobs: int) -> dict[str, GradeResult]:
    with tempfile.TemporaryDirectory(prefix="course-mutants-") as folder:
        for mutant in mutants:
            mutant.write(Path(folder))
        results = grade_folder(folder, GradeOptions(), jobs=jobs, progress=sys.stderr.isatty())
    return {result.student: result for result in results}


def table(mutants: tuple[Mutant, ...], graded: dict[str, GradeResult], inline_caught: dict[str, bool]) -> list[str]:
    lines = [f"{'lab':<6} {'mutants':>8} {'caught by grader':>17} {'caught by inline':>17}"]
    for lab in [*(lab for lab in labs.LABS if any(m.lab == lab for m in mutants)), None]:
        chosen = [m for m in mutants if lab is None or m.lab == lab]
        by_grader = sum(loses_marks(graded.get(m.name)) for m in chosen)
        by_inline = sum(inline_caught[m.name] for m in chosen)
        lines.append(f"{lab or 'all':<6} {len(chosen):>8} {by_grader:>17} {by_inline:>17}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=2, help="notebooks graded at once (default 2)")
    arguments = parser.parse_args(argv)
    started = time.monotonic()
    graded = grade_all(MUTANTS, arguments.jobs)
    inline_caught = {m.name: not inline(m).all_passed for m in MUTANTS}
    print("\n".join(table(MUTANTS, graded, inline_caught)))
    missed_by_grader = [m for m in MUTANTS if not loses_marks(graded.get(m.name))]
    missed_inline = [m for m in MUTANTS if not inline_caught[m.name]]
    for what, missed in (("full marks from course-grade", missed_by_grader), ("passing every inline check", missed_inline)):
        for m in missed:
            print(f"  {what}: {m.name} ({m.rule}: {m.description})")
    print(f"{len(MUTANTS)} mutants in {time.monotonic() - started:.0f} s")
    inline_share = 1 - len(missed_inline) / len(MUTANTS)
    return 0 if not missed_by_grader and inline_share >= INLINE_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
