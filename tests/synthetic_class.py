"""A generated class of graded results, made without kernels: deterministic, for the feedback and report tests.

Every lab's real tests (checklist cases and hidden tests, their numbers and
names as the grader gives them), passed or failed by a student's ability
against a test's difficulty, drawn from a fixed seed. Failed tests get
messages shaped like the grader's (the rules first; a hidden test's
counterexample on its own lines), so pages and reports have something real
to show.
"""

from __future__ import annotations

import random

from course_grader.judging.hidden_cases import hidden_tests
from course_grader.judging.practice import COUNTEREXAMPLE
from course_grader.judging.verdicts import GradeResult, Status, TestResult
from course_lib.checklist.runner import select
from course_lib.teaching import lab_registry

MISTAKES = (
    "the first differing observation is item 2",
    "wrong keptEntryIds",
    "raised KeyError: 'u3'",
    "4 items where the rules give 5",
    "accepted the input; it must be rejected with a ValueError",
)


def lab_tests(lab: str) -> list[tuple[str, str, str, bool]]:
    """(number, name, rules, hidden) of each test of ``lab``, in the grader's order."""
    tests = [(str(case.number), case.name, case.rules, False) for case in select(lab)]
    tests += [
        (f"H{index}", test.name, test.rules, True)
        for index, test in enumerate(hidden_tests(lab_registry.LABS[lab]), start=1)
    ]
    return tests


def result(
    student: str,
    lab: str,
    passed: dict[str, bool],
    *,
    submission: str | None = None,
    status: Status = "ok",
    notes: tuple[str, ...] = (),
    counts: bool = True,
    seconds: float = 4.2,
) -> GradeResult:
    """A graded result of ``lab``; ``passed`` by test number (missing: passed)."""
    tests = []
    for number, name, rules, hidden in lab_tests(lab):
        ok = passed.get(number, True)
        if ok:
            output = "passed on 12 generated cases" if hidden else ""
        elif hidden:
            output = (
                f"{rules}: keep the rule. Failed on 3 of 17 generated cases; first: a generated session of "
                f"9 entries: {MISTAKES[len(name) % len(MISTAKES)]}\n{COUNTEREXAMPLE}: a generated session "
                "shrunk from 25 to 4 entries\n  path: u1(user, cost 5) a1(assistant, cost 3)\n"
                "  keptEntryIds[0]: expected 'u1', got 'a1'"
            )
        else:
            output = f"{rules.split()[0]}: {name.replace('_', ' ')}: {MISTAKES[int(number) % len(MISTAKES)]}"
        tests.append(TestResult(name=name, number=number, lab=lab, score=1 if ok else 0, output=output, hidden=hidden))
    return GradeResult(
        submission=submission or f"{student}/{lab_registry.lab(lab).notebook}.ipynb",
        student=student,
        student_source="folder",
        lab=lab,
        status=status,
        tests=tuple(tests),
        execution_time=seconds,
        budget=240,
        sandbox="bubblewrap",
        seed=1234,
        notes=notes,
        counts=counts,
    )


def generated_class(students: int = 48, seed: int = 17) -> list[GradeResult]:
    """``students`` learners, each handing in most labs; abilities and test difficulties drawn from ``seed``."""
    rng = random.Random(seed)
    difficulty = {(lab, number): rng.uniform(-1.0, 1.5) for lab in lab_registry.LABS for number, *_ in lab_tests(lab)}
    results = []
    for index in range(students):
        student = f"student{index:03d}"
        ability = rng.gauss(0.8, 1.0)
        for lab in lab_registry.LABS:
            if rng.random() < 0.12:
                continue  # did not hand this one in
            passed = {
                number: rng.random() < 1 / (1 + 2.718 ** -(2.2 * (ability - difficulty[(lab, number)])))
                for number, *_ in lab_tests(lab)
            }
            results.append(result(student, lab, passed, seconds=round(rng.uniform(2, 9), 1)))
    return results
