"""How one notebook is graded (``GradeOptions``): its sandbox, who and what it is, how it is judged.

Running the notebook in the kernel (``kernel_run.py``), assembling its result
(``assemble.py``) and grading it end to end (``grade.py``) all read these, so
they sit apart from every one of them: a batch makes them once and hands the
same options to each submission, each lab then taking its own limits. Each
concern is its stage's own settings (``sandbox/settings.py``,
``intake/identity_settings.py``, ``judging_settings.py``): a new one touches
its stage only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from course_lib.teaching.lab_registry import Lab

from ..intake.identity_settings import Identity
from ..sandbox.settings import SandboxSettings
from .judging_settings import JudgingSettings


@dataclass(frozen=True)
class GradeOptions:
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    identity: Identity = field(default_factory=Identity)
    judging: JudgingSettings = field(default_factory=JudgingSettings)

    def for_lab(self, lab: Lab) -> GradeOptions:
        """These options with ``lab``'s own limits, once the lab is known."""
        return replace(self, sandbox=self.sandbox.for_lab(lab))

    def for_student(self, student: str) -> GradeOptions:
        """These options judging in ``student``'s language, once who the file belongs to is known."""
        return replace(self, judging=self.judging.for_student(student))
