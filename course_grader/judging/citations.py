"""Which rules a graded test cites, and where each rule is explained (docs/rules.md).

A ``TestResult`` names its lab, number and test; the rules come from the
test's own definition, never from its message: a checklist case cites them in
``course_lib.checklist.cases`` (``Case.rules``), a hidden test in its lab's
module in ``judging/labs/`` (``HiddenTest.rules``). Feedback pages link each
cited rule to its paragraph in docs/rules.md (``rules_page.anchor``:
``rules.md#r19``), and the class report groups tests by the rules they cite.
"""

from __future__ import annotations

import functools

from course_lib.checklist.rules_page import anchor
from course_lib.checklist.runner import select
from course_lib.teaching import i18n, lab_registry
from course_lib.teaching.i18n import RULE_MESSAGES
from course_lib.teaching.lab_registry import Lab
from course_lib.teaching.rules import BY_ID, RULES, cited

from .hidden_cases import hidden_tests

RULE_ORDER = {rule.id: index for index, rule in enumerate(RULES)}
"""Rules in the course's order (R1…R28, then L1…L6), for tables and charts."""


@functools.cache
def _lab_citations(lab: Lab) -> dict[str, tuple[str, ...]]:
    """A lab's tests and their rules: checklist cases by number (``"7"``), hidden tests by name.

    Hidden tests are keyed by name because their names, unlike the cases they
    draw, do not depend on the run's seed.
    """
    found = {str(case.number): tuple(cited(case.rules)) for case in select(lab.id)}
    found |= {test.name: tuple(cited(test.rules)) for test in hidden_tests(lab)}
    return found


def rules_cited(lab: str | None, number: str, name: str) -> tuple[str, ...]:
    """The rule ids a test cites, in its own order; ``()`` for a test the course does not define."""
    if lab not in lab_registry.LABS:
        return ()
    citations = _lab_citations(lab_registry.LABS[lab])  # a test's lab is its id (records, the CSV)
    key = name if number.startswith("H") else number
    return citations.get(key, ())


def rule_text(rule_id: str, language: str | None = None) -> str:
    """What the rule asks, as docs/rules.md (or docs/zh/rules.md, in ``language``) states it (Markdown: `code` spans)."""
    return RULE_MESSAGES(BY_ID[rule_id].text, language or i18n.DEFAULT)


def rule_href(rule_id: str, base: str) -> str:
    """The link to a rule's paragraph: ``base`` (a path or URL of docs/rules.md) and the rule's anchor."""
    return f"{base}#{anchor(rule_id)}"


def in_rule_order(rule_ids: set[str] | list[str] | tuple[str, ...]) -> list[str]:
    return sorted(set(rule_ids), key=lambda rule_id: RULE_ORDER.get(rule_id, len(RULE_ORDER)))
