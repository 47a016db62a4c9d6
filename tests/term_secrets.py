"""Fixed secrets the tests draw hidden cases from (``course_grader/judging/secret.py``).

Strong enough for ``course-grade`` to take, and fixed, so a failure reproduces;
public, so never a real term's. ``beside`` writes ``TERM`` as the
``term.secret`` a course file names (the documented example's ``seed``).
"""

from __future__ import annotations

from pathlib import Path

TERM = "e87d6b976bb9a7eccdcb56e17ef3c70f675b510075a764ca4de8e0c0f5bd8611"
"""The term's secret in the tests' course files (``seed = "…"``, or ``term.secret`` beside them)."""
OTHER = "5d5327ca2de5fb945d800257cbea35c58310a0048a9fd203ba9c2e4fe53cbe3c"
"""Another run's secret: a regrade with ``--seed OTHER`` draws other cases than the term's."""


def beside(course_file: Path, secret: str = TERM) -> Path:
    """``term.secret`` written next to ``course_file`` (as ``course-grade secret term.secret`` would, with ``secret``)."""
    path = course_file.parent / "term.secret"
    path.write_text(secret + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path
