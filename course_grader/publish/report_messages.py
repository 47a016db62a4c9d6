"""The class report's most common failure messages: one mistake is one row, whoever made it on whichever case.

Digits are folded (``3 of 17`` and ``5 of 17`` are one message) and a hidden
test's first failing case is left out (``without_case``), keeping the reason.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from course_lib.teaching import i18n, lab_registry
from course_lib.teaching.lab_registry import Lab

from ..judging.assemble import FIRST_CASE
from ..judging.hidden import described
from ..judging.hidden_cases import hidden_tests
from ..judging.secret import Seed
from ..judging.verdicts import GradeResult
from ..messages import MESSAGES
from ..safe_text import shown, valid

MESSAGES_SHOWN = 20
MESSAGE_LIMIT = 300
DIGITS = re.compile(r"(?<![A-Za-z_0-9])\d+")
"""A number in a message, not the digits of a rule id (R19), an entry id (u3) or a test (H1)."""


@dataclass(frozen=True)
class FailureMessage:
    lab: str
    test: str
    message: str
    count: int
    share: float
    """Of the lab's counted submissions."""


def folded(message: str, language: str = i18n.DEFAULT) -> str:
    """A message's first line with every run of digits as ``N``: the same mistake reads the same for everyone."""
    first = message.strip().splitlines()[0] if message.strip() else MESSAGES("(no message)", language)
    return DIGITS.sub("N", shown(first, MESSAGE_LIMIT))


@functools.cache
def _case_descriptions(lab: Lab, seed: Seed, test: str, language: str = i18n.DEFAULT) -> tuple[str, ...]:
    """What the hidden test's cases are called in the run of ``seed``, in ``language`` (the run's), longest first."""
    calls = next((t.calls for t in hidden_tests(lab, seed) if t.name == test), ())
    return tuple(sorted({described(call.description, language) for call in calls}, key=len, reverse=True))


def without_case(message: str, descriptions: Iterable[str], language: str = i18n.DEFAULT) -> str:
    """A hidden test's message without the case it first failed on, keeping the reason.

    ``R19 R20: hint. Failed on 3 of 55 generated cases; first: a session of 15 entries, …: wrong keptEntryIds``
    reads ``… generated cases; first failure: wrong keptEntryIds``: learners whose functions make one mistake
    meet it on different cases, and one row is what the class needs. The message was said in ``language``
    (the run's), so its frame (``assemble.FIRST_CASE``) is looked for as that language says it.
    """
    before, _, after = MESSAGES(FIRST_CASE, language).partition("{case}")
    between = after.partition("{reason}")[0]
    at = message.find(before)
    if at < 0:
        return message
    rest = message[at + len(before) :]
    for description in descriptions:
        if rest.startswith(f"{description}{between}"):
            reason = rest[len(description) + len(between) :]
            return message[:at] + MESSAGES("; first failure: {reason}", language).format(reason=reason)
    return message


def failure_messages(
    results: Iterable[GradeResult],
    limit: int = MESSAGES_SHOWN,
    *,
    counted_files: set[str] | None = None,
    language: str = i18n.DEFAULT,
) -> list[FailureMessage]:
    """The most common messages of failed tests, over the results that count (what the report adds in ``language``).

    ``counted_files`` (the CSV's counted rows, by ``file``) decides which
    count when given: after shards are merged the CSV has decided duplicates
    across all of them, while each shard's records only knew their own.
    """

    def counts(result: GradeResult) -> bool:
        return result.counts if counted_files is None else valid(result.submission) in counted_files

    counted = [result for result in results if counts(result) and result.lab in lab_registry.LABS]
    per_lab = Counter(result.lab for result in counted)
    found: Counter[tuple[str, str, str]] = Counter()
    for result in counted:
        assert result.lab is not None
        for test in result.tests:
            if not test.passed:
                message = test.output.strip().splitlines()[0] if test.output.strip() else ""
                if test.hidden:
                    descriptions = _case_descriptions(lab_registry.LABS[result.lab], result.seed, test.name, language)
                    message = without_case(message, descriptions, language)
                found[(result.lab, f"{test.number} {test.name}", folded(message, language))] += 1
    ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [FailureMessage(lab, test, message, count, count / per_lab[lab]) for (lab, test, message), count in ranked]
