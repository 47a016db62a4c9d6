"""How one notebook is graded (``GradeOptions``): its limits, its sandbox, its seed, who it belongs to.

Running the notebook in the kernel (``kernel_run.py``), assembling its result
(``assemble.py``) and grading it end to end (``grade.py``) all read these, so
they sit apart from every one of them: a batch makes them once and hands the
same options to each submission, each lab then taking its own limits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..intake.roster import Names
from ..sandbox.limits import Limits


@dataclass(frozen=True)
class GradeOptions:
    limits: Limits = field(default_factory=Limits)
    labs_dir: str | None = None
    expected_lab: str | None = None
    """The lab an autograder is for: used when the notebook names none, refused when it names another."""
    sandbox: bool = True
    """False only where something else isolates the kernel (Gradescope's container) or by ``--no-sandbox``."""
    views: str | None = None
    """A folder holding each lab's package view (built once per batch); a private one when ``None``."""
    seed: int | None = None
    """The hidden cases' seed (``hidden_cases.hidden_tests``); ``None`` is each lab's fixed one."""
    kernel_wrap: Callable[[list[str]], list[str]] | None = None
    """How a kernel without bubblewrap is started (Gradescope: as the learner's account, ``learner_account.py``)."""
    names: Names | None = None
    """How LMS download names and the roster decide who a file belongs to (``roster.attribute``); ``None``: ``identify``."""
    lab_limits: tuple[tuple[str, Limits], ...] = ()
    """Limits of particular labs (the course file's ``[labs."11.3"]``), over ``limits``."""

    def for_lab(self, lab: str) -> GradeOptions:
        """These options with ``lab``'s own limits, once the lab is known."""
        limits = dict(self.lab_limits).get(lab)
        return replace(self, limits=limits) if limits is not None else self
