"""The verb table: ``course-grade NAME …`` runs ``VERBS[NAME]`` on the rest of the line.

Data, not a chain of ifs: a new verb is a module with a ``main(argv) -> int``
and a line here. A first argument that is no verb is a notebook or a folder
to grade (``grade.py``, whose ``--help`` lists these).
"""

from __future__ import annotations

from collections.abc import Callable

from . import autograder, bundle, clean, dry_run, export, feedback, merge, report, rescore, secret

VERBS: dict[str, Callable[[list[str]], int]] = {
    "merge": merge.main,
    "rescore": rescore.main,
    "export": export.main,
    "report": report.main,
    "feedback": feedback.main,
    "bundle": bundle.main,
    "autograder": autograder.main,
    "secret": secret.main,
    "clean": clean.main,
    "dry-run": dry_run.main,
}
"""``course-grade NAME …``; anything else is a notebook or a folder to grade."""
