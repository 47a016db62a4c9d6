"""How a notebook's kernel is confined (``SandboxSettings``): its limits, each lab's own, the sandbox, the views.

These are the sandbox stage's part of ``GradeOptions``: a new limit or a new
way to start the kernel is added here, and only the code that starts the
kernel (``judging/kernel_run.py``) and the batch's deadline read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from course_lib.teaching.lab_registry import Lab

from .kernel import Limits


@dataclass(frozen=True)
class SandboxSettings:
    limits: Limits = field(default_factory=Limits)
    lab_limits: tuple[tuple[str, Limits], ...] = ()
    """Limits of particular labs (the course file's ``[labs."11.3"]``), over ``limits``."""
    isolate: bool = True
    """False only where something else isolates the kernel (Gradescope's container) or by ``--no-sandbox``."""
    views: str | None = None
    """A folder holding each lab's package view (built once per batch); a private one when ``None``."""
    kernel_wrap: Callable[[list[str]], list[str]] | None = None
    """How a kernel without bubblewrap is started (Gradescope: as the learner's account, ``learner_account.py``)."""

    def for_lab(self, lab: Lab) -> SandboxSettings:
        """These settings with ``lab``'s own limits, once the lab is known."""
        limits = dict(self.lab_limits).get(lab.id)
        return replace(self, limits=limits) if limits is not None else self
