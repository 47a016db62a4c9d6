"""``make mutants``: grade the learner-bug corpus under many seeds, and once with course-grade end to end.

Every mutant in ``tests/mutants`` (a plausible learner mistake, a small edit of
a solution notebook) is judged by the grader's own code in this process
(``grading_corpus.run_in_process``: the same checklist records, hidden cases,
``call_verdict`` and ``judge_record`` as for a kernel's replies) under
``--seeds`` seeds, since a grade must not depend on the seed ``course-grade``
draws. Each mutant's lab checklist also runs as the notebook's checklist cell
would, and the hidden tests' covering set alone, drawn from each seed, is tried
on it (the ``covering, every seed`` column). Then the whole corpus is graded
once more by ``course-grade`` in one sandboxed batch at ``--batch-seed``: the
end-to-end column. ``--lab`` keeps to some labs' mutants (``--lab 11.3 --lab
11.2 --no-batch`` is the quick run after changing those labs).

The table says, per lab, how many mutants each layer catches; the targets are
every mutant for the grader under every seed (no mutant keeps full marks under
any seed), every mutant for the covering set alone under every seed, and at
least 90 % for the inline checklist. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from mutants import INLINE_TARGET, MUTANTS, Mutant  # noqa: E402 - imported once sys.path holds tests/
from mutants.run import covering_failures, graded_under, inline, loses_marks  # noqa: E402 - imported once sys.path holds tests/

from course_grader import GradeOptions, JudgingSettings, grade_folder  # noqa: E402 - imported once sys.path holds tests/
from course_grader.judging.verdicts import GradeResult  # noqa: E402 - imported once sys.path holds tests/
from course_lib.teaching import lab_registry  # noqa: E402 - imported once sys.path holds tests/


@dataclass(frozen=True)
class Sweep:
    """One mutant judged in process: by the inline checklist, and by the grader under each seed."""

    name: str
    inline_caught: bool
    checklist_caught: bool
    """The grader's checklist tests (the same under every seed)."""
    covering_caught: bool
    """The hidden tests' covering set alone, without a drawn case, under every seed."""
    hidden_caught: dict[int, bool]
    full_marks: tuple[int, ...]
    """The seeds under which the mutant keeps full marks (the target is none)."""


def sweep(mutant: Mutant, seeds: Sequence[int]) -> Sweep:
    results = graded_under(mutant, seeds)
    checklist_caught = any(not t.passed for t in results[seeds[0]].tests if not t.hidden)
    return Sweep(
        name=mutant.name,
        inline_caught=not inline(mutant).all_passed,
        checklist_caught=checklist_caught,
        covering_caught=all(covering_failures(mutant, first_only=True, seed=seed) for seed in seeds),
        hidden_caught={seed: any(not t.passed for t in result.tests if t.hidden) for seed, result in results.items()},
        full_marks=tuple(seed for seed, result in results.items() if not loses_marks(result)),
    )


def _sweep_by_name(name: str, seeds: Sequence[int]) -> Sweep:
    return sweep(next(m for m in MUTANTS if m.name == name), seeds)


def sweep_all(mutants: Sequence[Mutant], seeds: Sequence[int], jobs: int) -> dict[str, Sweep]:
    """Every mutant under every seed, ``jobs`` processes at once (each keeps its labs' hidden cases cached)."""
    names = [m.name for m in mutants]
    if jobs <= 1:
        return {name: _sweep_by_name(name, seeds) for name in names}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        found = pool.map(_sweep_by_name, names, [seeds] * len(names), chunksize=4)
        return {result.name: result for result in found}


def grade_all(mutants: Sequence[Mutant], jobs: int, seed: int) -> dict[str, GradeResult]:
    """The corpus graded by course-grade in one sandboxed batch (the end-to-end column)."""
    with tempfile.TemporaryDirectory(prefix="course-mutants-") as folder:
        for mutant in mutants:
            mutant.write(Path(folder))
        results = grade_folder(
            folder, GradeOptions(judging=JudgingSettings(seed=seed)), jobs=jobs, progress=sys.stderr.isatty()
        )
    return {Path(result.submission).name: result for result in results}


COLUMNS = (
    "lab",
    "mutants",
    "inline",
    "checklist",
    "covering, every seed",
    "hidden, every seed",
    "grader, every seed",
    "course-grade",
)


def table(
    mutants: Sequence[Mutant], swept: dict[str, Sweep], batch: dict[str, GradeResult] | None, batch_seed: int
) -> list[str]:
    header = [*COLUMNS[:-1], f"{COLUMNS[-1]} (seed {batch_seed})"] if batch is not None else list(COLUMNS[:-1])
    widths = [max(6, len(name)) for name in header]
    lines = ["  ".join(name.rjust(width) for name, width in zip(header, widths))]
    for lab in [*(lab for lab in lab_registry.LABS if any(m.lab == lab for m in mutants)), None]:
        chosen = [m for m in mutants if lab is None or m.lab == lab]
        row = [
            lab or "all",
            len(chosen),
            sum(swept[m.name].inline_caught for m in chosen),
            sum(swept[m.name].checklist_caught for m in chosen),
            sum(swept[m.name].covering_caught for m in chosen),
            sum(all(swept[m.name].hidden_caught.values()) for m in chosen),
            sum(not swept[m.name].full_marks for m in chosen),
        ]
        if batch is not None:
            row.append(sum(loses_marks(batch.get(m.file_name)) for m in chosen))
        lines.append("  ".join(str(value).rjust(width) for value, width in zip(row, widths)))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds 0..N-1 judged in process (default 20)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="processes, and notebooks graded at once (default 2)")
    parser.add_argument(
        "--batch-seed", type=int, default=0, help="the seed of the sandboxed course-grade batch (default 0)"
    )
    parser.add_argument("--no-batch", action="store_true", help="leave out the sandboxed course-grade batch")
    parser.add_argument(
        "--lab", action="append", choices=lab_registry.LABS, help="only this lab's mutants (repeatable; default all)"
    )
    arguments = parser.parse_args(argv)
    if arguments.seeds < 1 or arguments.jobs < 1:
        parser.error("--seeds and --jobs must be at least 1")
    seeds = list(range(arguments.seeds))
    mutants = [m for m in MUTANTS if not arguments.lab or m.lab in arguments.lab]
    started = time.monotonic()
    swept = sweep_all(mutants, seeds, arguments.jobs)
    swept_seconds = time.monotonic() - started
    batch = None if arguments.no_batch else grade_all(mutants, arguments.jobs, arguments.batch_seed)
    print(
        f"{len(mutants)} mutants; in-process judging under seeds 0..{seeds[-1]}"
        + ("" if batch is None else f"; one sandboxed course-grade batch at seed {arguments.batch_seed}")
    )
    print("\n".join(table(mutants, swept, batch, arguments.batch_seed)))
    survivors = [m for m in mutants if swept[m.name].full_marks]
    for m in survivors:
        seeds_text = ", ".join(map(str, swept[m.name].full_marks))
        print(f"  full marks under seed(s) {seeds_text}: {m.name} ({m.rule}: {m.description})")
    uncovered = [m for m in mutants if not swept[m.name].covering_caught]
    for m in uncovered:
        print(f"  the covering set alone spares it under some seed: {m.name} ({m.rule}: {m.description})")
    missed_by_batch = [m for m in mutants if batch is not None and not loses_marks(batch.get(m.file_name))]
    for m in missed_by_batch:
        print(f"  full marks from course-grade (seed {arguments.batch_seed}): {m.name} ({m.rule}: {m.description})")
    missed_inline = [m for m in mutants if not swept[m.name].inline_caught]
    for m in missed_inline:
        print(f"  passing every inline check: {m.name} ({m.rule}: {m.description})")
    batch_text = "" if batch is None else f", the sandboxed batch {time.monotonic() - started - swept_seconds:.0f} s"
    print(f"{len(mutants)} mutants x {len(seeds)} seeds in {swept_seconds:.0f} s{batch_text}")
    inline_share = 1 - len(missed_inline) / max(1, len(mutants))
    failed = survivors or uncovered or missed_by_batch or inline_share < INLINE_TARGET
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
