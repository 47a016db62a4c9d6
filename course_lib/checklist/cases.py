"""The checklist's catalogue: every lab's checks, in order (docs/rules.md lists what each cites).

The chapter's fifteen (Labs 11.1–11.5, checks 1–15), then the capstone's four
(16–19, not counted in the fifteen). Each lab's checks are one module of
``course_lib/checklist/labs/`` named after the lab (``Lab.module``: ``lab_11_3.py``
…) with its ``LabChecks``, found from the registry: adding a lab's checks is
that module. What a check is (``Implementation``, ``Case``) is ``check.py``'s.
"""

from __future__ import annotations

import importlib

from ..teaching.lab_registry import LABS
from .check import Case, Implementation, LabChecks

__all__ = ["CASES", "LAB_CHECKS", "Case", "Implementation"]

LAB_CHECKS: tuple[LabChecks, ...] = tuple(
    importlib.import_module(f"{__package__}.labs.{lab.module}").CHECKS for lab in LABS.values()
)
"""Every lab's checks, in the registry's order: the order the checklist runs and numbers them."""

CASES: list[Case] = [case for checks in LAB_CHECKS for case in checks.cases]
"""Every check: the chapter's fifteen (Labs 11.1–11.5), then the capstone's (``labs.capstone``)."""
