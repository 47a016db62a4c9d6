"""``course-grade``: the automated grader of Labs 11.1–11.5 and the capstone (see docs/grading.md).

The instructor's side of the course, kept apart from ``course_lib`` (what learners
import): it depends on ``course_lib`` and never the other way round
(``tests/test_layers.py``), and no sandbox ever sees it.

One idea per module: ``notebook`` (find the lab, the exercise cells, the lab's
setup), ``view`` (the sandbox's view of course_lib, the lab's reference
stubbed out), ``sandbox`` (a bubblewrap-isolated kernel with limits),
``course_lib.checklist.harness`` (the kernel side, which lives in the learner's
package: call the learner's functions, report data), ``generate`` (random
sessions for the hidden cases),
``hidden`` (a hidden case and its verdict), ``hidden_cases`` (the generated
cases of each lab), ``grade`` (one notebook, judged outside the kernel),
``results`` (records and Gradescope's format), ``batch`` (a folder to CSV),
``bundle`` (a Gradescope autograder), ``wheel`` (both packages as a wheel),
``upload`` (which uploaded notebook an autograder grades), ``learner_account``
and ``learner_kernel`` (Gradescope mode's kernel as an unused uid), ``course``
(the term's course file), ``roster`` (who a file belongs to: LMS names and the
roster), ``scoring`` (points, weights, late penalty), ``grades_csv`` (the CSV as a
format: write, read back, merge), ``shard`` (``--shard I/N``), ``gradebook``
(the Canvas and Moodle export), ``cli``.

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
# checker. Left alone when the process imported it already (tests/test_grader_start.py).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None blocks the import

_EXPORTS = {
    "ScoreRecord": "feedback", "render_page": "feedback", "write_feedback": "feedback", "read_records": "records",
    "write_records": "records", "build_report": "report", "read_grades": "report", "rules_cited": "citations",
    "discover": "batch", "find_submissions": "batch", "flag_duplicates": "batch", "grade_folder": "batch",
    "results_frame": "batch", "write_csv": "batch",
    "build_bundle": "bundle", "run_autograder": "bundle",
    "GradingError": "errors", "NotALabNotebook": "errors", "NotARegularFile": "errors", "SubmissionTooLarge": "errors",
    "TemplateNotFound": "errors",
    "GradeOptions": "grade", "grade_notebook": "grade", "grading_request": "grade",
    "HiddenTest": "hidden", "hidden_calls": "hidden_cases", "hidden_tests": "hidden_cases",
    "LAB_FUNCTIONS": "notebook", "find_template": "notebook", "identify": "notebook", "lab_of": "notebook",
    "read_regular_file": "notebook", "read_submission": "notebook", "student_id": "notebook",
    "submission_name": "notebook", "build_view": "view",
    "STATUSES": "results", "GradeResult": "results", "Status": "results", "TestResult": "results",
    "format_table": "results", "to_gradescope": "results", "write_atomically": "results",
    "CellRun": "sandbox", "Limits": "sandbox", "Sandbox": "sandbox",
    "Course": "course", "CourseFileError": "course", "load_course": "course",
    "Names": "roster", "Roster": "roster", "RosterError": "roster", "attribute": "roster", "load_roster": "roster",
    "Score": "scoring", "score": "scoring",
    "GradesCsvError": "grades_csv", "merge": "grades_csv", "read_frame": "grades_csv",
    "shard_of": "shard",
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
