"""The checklist's catalogue: every lab's checks, in order (docs/rules.md lists what each cites).

The chapter's fifteen (Labs 11.1–11.5, checks 1–15), then the capstone's four
(16–19, not counted in the fifteen). Each lab's checks are one module of
``course_lib/checklist/labs/`` (``lab_11_3.py`` …), listed by its ``LabChecks``;
adding a lab's checks is that module and one line in ``LAB_CHECKS``. What a
check is (``Implementation``, ``Case``) is ``check.py``'s.
"""

from __future__ import annotations

from .check import Case, Implementation, LabChecks
from .labs import capstone, lab_11_1, lab_11_2, lab_11_3, lab_11_4, lab_11_5

__all__ = ["CASES", "LAB_CHECKS", "Case", "Implementation"]

LAB_CHECKS: tuple[LabChecks, ...] = (
    lab_11_1.CHECKS,
    lab_11_2.CHECKS,
    lab_11_3.CHECKS,
    lab_11_4.CHECKS,
    lab_11_5.CHECKS,
    capstone.CHECKS,
)
"""Every lab's checks, in lab order: the order the checklist runs and numbers them."""

CASES: list[Case] = [case for checks in LAB_CHECKS for case in checks.cases]
"""Every check: the chapter's fifteen (Labs 11.1–11.5), then the capstone's (``labs.capstone``)."""
