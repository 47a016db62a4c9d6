"""What a notebook is and whose it is (``Identity``): the roster's names, the lab expected, the labs' notebooks.

These are intake's part of ``GradeOptions``: attributing a file to a learner
(``roster.attribute``), checking the lab it names (``notebook.read_submission``)
and finding that lab's course notebook (``lab_templates.find_template``) read
them, so a new way to tell who or what a file is changes only this.
"""

from __future__ import annotations

from dataclasses import dataclass

from course_lib.teaching.lab_registry import Lab

from .roster import Names


@dataclass(frozen=True)
class Identity:
    names: Names | None = None
    """How LMS download names and the roster decide who a file belongs to (``roster.attribute``); ``None``: ``identify``."""
    expected_lab: Lab | None = None
    """The lab an autograder is for: used when the notebook names none, refused when it names another."""
    labs_dir: str | None = None
    """Where the course's lab notebooks are (their setup cells); ``None``: ``lab_templates.template_dirs``' own places."""
