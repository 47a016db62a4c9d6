"""One feedback page: every test of a graded notebook, its message and counterexample, the rules, the score.

A page is meant to be handed to its learner: self-contained (no outside
files, no script), safe to open (everything taken from the submission is
escaped and bounded, ``safe_text``), and it shows hidden tests, so it is for
after grades are published. It never shows the hidden cases' seed: a term that
keeps one seed would otherwise give away the cases of labs still to come.
"""

from __future__ import annotations

from dataclasses import dataclass

from course_lib.teaching import i18n, lab_registry
from course_lib.teaching.i18n import message

from ..batch import batch  # noqa: F401 - the notes' templates (``notes.NOTE``) of the modules writing notes
from ..course import course_file, submission_times, times_matching  # noqa: F401
from ..intake import identity, regular_file, roster  # noqa: F401
from ..judging.citations import in_rule_order, rule_href, rule_text, rules_cited
from ..judging.practice import COUNTEREXAMPLE
from ..judging.verdicts import GradeResult, TestResult
from ..messages import MESSAGES
from ..notes import NOTE
from ..results import duplicates  # noqa: F401 - its notes' templates
from ..safe_text import shown
from ..sandbox import limit_notes  # noqa: F401
from ..similarity.similarity_notes import is_similarity_note
from .page_score import ScoreRecord, points_per_test
from .pages import render

MESSAGE_LIMIT = 4_000
"""Characters of a test's message shown (a learner's exception may quote megabytes)."""
COUNTEREXAMPLE_LIMIT = 6_000
NOTE_LIMIT = 2_000
NAME_LIMIT = 200
"""Characters of a student id or a file name shown."""

STATUS_MEANING = {
    "ok": message("your functions were found and every test ran"),
    "timeout": message("a cell or a test ran out of time; see the notes"),
    "error": message("the notebook could not be graded normally; see the notes"),
    "missing-function": message("your cells ran, but a function the lab asks for is not defined; see the notes"),
}
"""What a submission's status means, in the learner's words (the instructor's table: docs/grading.md); said in the
run's language (``MESSAGES``), the status itself never translated."""


@dataclass(frozen=True)
class RuleView:
    id: str
    href: str
    text: str


@dataclass(frozen=True)
class TestView:
    __test__ = False  # not a pytest class

    number: str
    name: str
    hidden: bool
    passed: bool
    score: float
    max_score: float
    message: str
    counterexample: str
    rules: tuple[RuleView, ...]


def split_output(output: str, language: str = i18n.DEFAULT) -> tuple[str, str]:
    """A test's output as (message, counterexample): a hidden test's counterexample follows on its own line."""
    marker = f"\n{MESSAGES(COUNTEREXAMPLE, language)}"
    at = output.find(marker)
    return (output, "") if at < 0 else (output[:at], output[at + 1 :])


def _rule(rule_id: str, rules_base: str, language: str = i18n.DEFAULT) -> RuleView:
    return RuleView(rule_id, rule_href(rule_id, rules_base), rule_text(rule_id, language))


def view_of_test(test: TestResult, rules_base: str, language: str = i18n.DEFAULT) -> TestView:
    message, counterexample = split_output(test.output, language)
    return TestView(
        number=shown(test.number, 20),
        name=shown(test.name, NAME_LIMIT),
        hidden=test.hidden,
        passed=test.passed,
        score=test.score,
        max_score=test.max_score,
        message=shown(message, MESSAGE_LIMIT),
        counterexample=shown(counterexample, COUNTEREXAMPLE_LIMIT),
        rules=tuple(_rule(rule_id, rules_base, language) for rule_id in rules_cited(test.lab, test.number, test.name)),
    )


def lab_heading(lab: str | None, language: str = i18n.DEFAULT) -> str:
    """``Lab 11.3 · build_context without compaction``: the lab as ``language`` names it, its title as the course does."""
    if lab in lab_registry.LABS:
        entry = lab_registry.lab(lab)
        return f"{entry.spoken_label(language)} · {i18n.MESSAGES(entry.title, language)}"
    return MESSAGES("not a lab notebook", language)


def render_page(
    result: GradeResult,
    *,
    score: ScoreRecord | None = None,
    rules_base: str = "rules.md",
    language: str = i18n.DEFAULT,
) -> str:
    """The feedback page of one graded submission, as a complete HTML document in ``language`` (the run's)."""
    tests = [view_of_test(test, rules_base, language) for test in result.tests]
    cited = in_rule_order([rule.id for test in tests for rule in test.rules])
    meaning = STATUS_MEANING.get(result.status)
    return render(
        "feedback.html.j2",
        language,
        student=shown(result.student, NAME_LIMIT),
        submission=shown(result.submission, NAME_LIMIT),
        lab=lab_heading(result.lab, language),
        status=result.status,
        status_meaning=MESSAGES(meaning, language) if meaning else "",
        notes=[  # a similarity note names others: the CSV's
            shown(NOTE.said(note, language), NOTE_LIMIT) for note in result.notes if not is_similarity_note(note)
        ],
        checklist=[test for test in tests if not test.hidden],
        hidden=[test for test in tests if test.hidden],
        passed=sum(test.passed for test in tests),
        score=score or points_per_test(result, language),
        rules=[_rule(rule_id, rules_base, language) for rule_id in cited],
        seconds=result.execution_time,
    )
