"""``course-grade``: the automated grader of Labs 11.1–11.5 and the capstone (see docs/grading.md).

The instructor's side of the course, kept apart from ``course_lib`` (what learners
import): it depends on ``course_lib`` and never the other way round
(``tests/test_layers.py``), and no sandbox ever sees it.

The folder list is the pipeline, each stage importing only from the ones
before it (``tests/test_layers.py``): ``intake`` (what arrives and whose it is)
→ ``sandbox`` (a kernel with limits) → ``judging`` (one notebook's verdict) →
``course`` (the course file: its weights, deadlines and times files) →
``results`` (scores, records, the CSV) → ``batch`` (a folder graded by a pool of
workers) → ``similarity`` (alike cells, reported) → ``publish`` (feedback pages,
the report, the gradebook) → ``packaging`` (wheel, Gradescope bundle) → ``cli``.
Under them all: ``errors`` (one base class), ``safe_text`` and ``files``.

The names below are loaded on first use, so ``course-grade --help`` starts fast.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

# The grader reads notebooks with nbformat (and runs them with nbclient), which imports jsonschema,
# which imports rfc3987_syntax when it is installed (jupyter_events pulls it in, with jsonschema's
# format-nongpl extra) to check the "iri" string formats; importing it builds a Lark grammar, 3-4 s of
# CPU, most of what starting the grader took. nbformat's schemas use no "iri" format, so nothing here
# ever needs it. A None in sys.modules makes that one import fail with ImportError (the import
# system's documented way to block a module), which jsonschema expects: it then registers no "iri"
# checker. Left alone when the process imported it already (tests/grader/cli/test_grader_start.py).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None blocks the import

_EXPORTS = {
    "ScoreRecord": "publish.page_score", "render_page": "publish.feedback_page", "write_feedback": "publish.feedback", "read_records": "results.records",
    "write_records": "results.records", "build_report": "publish.report", "read_grades": "publish.report_grades", "rules_cited": "judging.citations",
    "discover": "intake.discovery", "find_submissions": "intake.discovery", "flag_duplicates": "batch.batch", "grade_folder": "batch.batch",
    "results_frame": "results.grades_frame", "write_csv": "results.grades_frame",
    "build_bundle": "packaging.bundle", "run_autograder": "packaging.bundle",
    "GradingError": "errors", "NotALabNotebook": "errors", "NotARegularFile": "errors", "SubmissionTooLarge": "errors",
    "TemplateNotFound": "errors",
    "GradeOptions": "judging.grade_options", "grade_notebook": "judging.grade", "JudgingSettings": "judging.judging_settings",
    "Identity": "intake.identity_settings", "SandboxSettings": "sandbox.settings",
    "HiddenTest": "judging.hidden", "hidden_calls": "judging.hidden_cases", "hidden_tests": "judging.hidden_cases",
    "LAB_FUNCTIONS": "intake.notebook", "find_template": "intake.lab_templates", "identify": "intake.identity", "lab_of": "intake.lab_names",
    "read_regular_file": "intake.regular_file", "read_submission": "intake.notebook", "student_id": "intake.identity",
    "submission_name": "intake.identity", "build_view": "sandbox.view",
    "STATUSES": "judging.verdicts", "GradeResult": "judging.verdicts", "Status": "judging.verdicts", "TestResult": "judging.verdicts",
    "format_table": "judging.verdicts", "to_gradescope": "results.gradescope", "write_atomically": "files",
    "CellRun": "sandbox.cell_run", "Limits": "sandbox.limits", "Sandbox": "sandbox.kernel",
    "Course": "course.course", "CourseFileError": "course.course_settings", "load_course": "course.course_file",
    "Names": "intake.roster", "Roster": "intake.roster", "RosterError": "intake.roster", "attribute": "intake.roster", "load_roster": "intake.roster",
    "Score": "results.scoring", "score": "results.scoring",
    "GradesCsvError": "results.grades_csv", "merge": "results.merge", "read_frame": "results.grades_csv",
    "shard_of": "intake.shard",
}  # fmt: skip

__all__ = sorted(_EXPORTS)  # noqa: PLE0605 - the lazy exports: their names are the keys of _EXPORTS


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
