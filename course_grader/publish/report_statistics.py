"""The class report's numbers: per test its difficulty and discrimination, per student and rule the share passed.

A test's **difficulty** is the share of submissions passing it; its
**discrimination** is the corrected point-biserial correlation, i.e. Pearson's
r between the test's 0/1 score and the submission's score on the lab's
*other* tests (undefined when either does not vary). A rule's share counts the
tests citing it (``citations.rules_cited``), checklist and hidden tests alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from course_lib.teaching import lab_registry

from ..judging.citations import in_rule_order
from .report_grades import Grades, TestColumn, lab_scores, lab_tests


@dataclass(frozen=True)
class ItemStats:
    test: TestColumn
    submissions: int
    difficulty: float
    """Share of submissions passing the test (0–1)."""
    discrimination: float
    """Corrected point-biserial r (NaN when undefined)."""


def point_biserial(item: Sequence[float], rest: Sequence[float]) -> float:
    """Pearson's r of a 0/1 item and the rest score; NaN when either is constant (r is undefined)."""
    x, y = np.asarray(item, dtype=float), np.asarray(rest, dtype=float)
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def item_stats(grades: Grades) -> list[ItemStats]:
    found: list[ItemStats] = []
    for lab in lab_registry.LABS:
        scores = lab_scores(grades, lab)
        if scores.empty:
            continue
        total = scores.sum(axis=1)
        for test in lab_tests(grades, lab):
            item = scores[test.column]
            found.append(ItemStats(test, len(item), float(item.mean()), point_biserial(item, total - item)))
    return found


def rule_matrix(grades: Grades) -> pd.DataFrame:
    """Students × rules: the share of the tests citing the rule that the student passed (NaN: none handed in)."""
    passed: dict[tuple[str, str], list[float]] = {}
    for lab in lab_registry.LABS:
        scores = lab_scores(grades, lab)
        for test in lab_tests(grades, lab):
            for rule in test.rules:
                for student, score in zip(scores.index, scores[test.column]):
                    passed.setdefault((student, rule), []).append(float(score))
    students = sorted({student for student, _ in passed})
    rules = in_rule_order({rule for _, rule in passed})
    matrix = pd.DataFrame(np.nan, index=students, columns=rules)
    for (student, rule), values in passed.items():
        matrix.loc[student, rule] = sum(values) / len(values)
    return matrix


def rule_shares(grades: Grades) -> pd.Series:
    """The class's share passing, per rule: every (submission, test citing it) counts once."""
    totals: dict[str, list[float]] = {}
    for lab in lab_registry.LABS:
        scores = lab_scores(grades, lab)
        for test in lab_tests(grades, lab):
            for rule in test.rules:
                totals.setdefault(rule, []).extend(map(float, scores[test.column]))
    return pd.Series(
        {rule: sum(values) / len(values) for rule, values in totals.items() if values}, dtype=float
    ).sort_values(kind="stable")
