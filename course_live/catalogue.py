"""What the server knows of the course, from ``course_lib`` alone: the labs, their checks, the rules, the sentences.

A post names a lab, checks by number and rule ids; each is refused unless the
course has it (the registry, the checklist's catalogue, the rules table). The
instructor's page shows a rule with its statement from the rules table and the
sentence a learner reads when a check fails on it: the first expectation of that
check which cites the rule, said as the checklist says it (``expect.said``, in
``course_lib``'s catalog: ``COURSE_MESSAGES``), so the page quotes the pack's own
words, never a learner's output.
"""

from __future__ import annotations

from dataclasses import dataclass

from course_lib.checklist.cases import CASES
from course_lib.checklist.expect import said
from course_lib.checklist.runner import trusted_points
from course_lib.teaching import lab_registry
from course_lib.teaching.i18n import MESSAGES as COURSE_MESSAGES
from course_lib.teaching.i18n import RULE_MESSAGES
from course_lib.teaching.rules import BY_ID, RULES, cited


@dataclass(frozen=True)
class Check:
    number: int
    lab: str
    name: str
    rules: tuple[str, ...]


CHECKS: dict[str, tuple[Check, ...]] = {
    lab: tuple(Check(case.number, case.lab, case.name, tuple(cited(case.rules))) for case in CASES if case.lab == lab)
    for lab in lab_registry.LABS
}
"""Each lab's checks, in the checklist's order."""
RULE_ORDER = {rule.id: index for index, rule in enumerate(RULES)}
"""Ties between rules are broken by the table's order (R19 before R20)."""


def lab_id(text: str) -> str | None:
    """The registry's id of the lab ``text`` names exactly (``"11.3"``), else ``None``."""
    return text if text in lab_registry.LABS else None


def check(lab: str, number: int) -> Check | None:
    return next((found for found in CHECKS.get(lab, ()) if found.number == number), None)


def known_rule(rule: str) -> bool:
    return rule in BY_ID


def lab_label(lab: str, language: str) -> str:
    """``Lab 11.3 · build_context without compaction`` in ``language``."""
    entry = lab_registry.LABS[lab]
    return f"{entry.spoken_label(language)} · {COURSE_MESSAGES(entry.title, language)}"


def statement(rule: str, language: str) -> str:
    """The rule's text from the rules table, in ``language``."""
    return RULE_MESSAGES(BY_ID[rule].text, language)


def learner_message(number: int, rule: str, language: str) -> str | None:
    """What a learner reads when check ``number`` fails on ``rule``: its first expectation citing the rule.

    ``None`` when no expectation of the check cites it (a crash the check explains in its own words).
    """
    for point in trusted_points(number):
        if rule in cited(point.rule):
            return COURSE_MESSAGES("{rule}: {what}", language).format(
                rule=point.rule, what=said(point, point, language)
            )
    return None
