"""The fifteen-test checklist (docs/rules.md), runnable against the reference or a learner's functions."""

from .cases import CASES
from .check import Case, Implementation
from .expect import NotRecording
from .runner import LABS, ChecklistReport, CheckRecord, run, select

__all__ = ["CASES", "LABS", "Case", "CheckRecord", "ChecklistReport", "Implementation", "NotRecording", "run", "select"]
