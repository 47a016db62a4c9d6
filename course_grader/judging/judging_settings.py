"""How a notebook's answers are judged (``JudgingSettings``): the seed of the hidden cases, the language verdicts are said in.

Judging's part of ``GradeOptions``: what the hidden calls are and how an
answer is scored read only this, so a new judging choice is added here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from course_lib.teaching import i18n

from .secret import Seed


@dataclass(frozen=True)
class JudgingSettings:
    seed: Seed = None
    """The run's secret, what the hidden cases are drawn from (``secret.py``, ``hidden_cases.hidden_tests``); ``None``
    is each lab's fixed seed."""
    language: str = i18n.DEFAULT
    """What the verdicts and notes are said in: the course file's ``language`` (issue 32), never the grader's locale;
    no score or status depends on it."""
    languages: tuple[tuple[str, str], ...] = ()
    """Students who speak another language than ``language`` (their section's, ``[sections."…"]``; issue 45), and
    that language; ``for_student`` picks a submission's once grading knows whose it is."""

    def for_student(self, student: str) -> JudgingSettings:
        """These settings as ``student``'s submission is judged: in their section's language."""
        language = dict(self.languages).get(student, self.language)
        return self if language == self.language else replace(self, language=language)
