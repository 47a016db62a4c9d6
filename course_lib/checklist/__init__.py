"""The fifteen-test checklist (docs/rules.md), runnable against the reference or a learner's functions."""

from .cases import CASES
from .check import Case, Implementation
from .expect import NotRecording
from .grade_cell import UnknownCheckError, grade_cell
from .runner import LABS, ChecklistReport, CheckRecord, run, select

__all__ = [
    "CASES",
    "LABS",
    "Case",
    "CheckRecord",
    "ChecklistReport",
    "Implementation",
    "NotRecording",
    "UnknownCheckError",
    "grade_cell",
    "run",
    "select",
]
