"""A prediction's answer in the reader's words: 接受 is ``"accepted"``, 无 is ``"nothing"`` (issue 45).

A lab asks the learner to predict a value the code speaks in English (``"accepted"``,
``"trimmed"``, ``True``). A reader of the Chinese edition answers in Chinese, and is right
when the words mean the value: each value the labs ask for has its words in the catalog
(``ANSWER_WORDS``: the English message lists nothing but stands for the value; its
translation lists the reader's words, separated by ``/``), and ``canonical`` reads a
prediction in either language as the value it means. The code's own word is always taken,
in every edition. ``shown`` says an answer in the reader's words, the code's value beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .i18n import LANGUAGES, MESSAGES, message

ANSWER_WORDS: Mapping[str, tuple[Any, str]] = {
    "accepted": ("accepted", message("the answer accepted, in the reader's words")),
    "rejected": ("rejected", message("the answer rejected, in the reader's words")),
    "refused": ("refused", message("the answer refused, in the reader's words")),
    "nothing": ("nothing", message("the answer nothing (None), in the reader's words")),
    "within_budget": ("within_budget", message("the reason within_budget, in the reader's words")),
    "trimmed": ("trimmed", message("the reason trimmed, in the reader's words")),
    "single_group_overflow": (
        "single_group_overflow",
        message("the reason single_group_overflow, in the reader's words"),
    ),
    "true": (True, message("the answer True, in the reader's words")),
    "false": (False, message("the answer False, in the reader's words")),
}
"""Each value a prediction may take, by its code word (casefolded): the value and the message of its words."""


def words(value: Any, chosen: str | None = None) -> tuple[str, ...]:
    """The words ``chosen``'s reader may write for ``value`` (its code word first); ``()`` for a value with none."""
    found = ANSWER_WORDS.get(str(value).casefold())
    if found is None or found[0] != value:
        return ()
    said = MESSAGES(found[1], chosen)
    reader = () if said == found[1] else tuple(word.strip() for word in said.split("/") if word.strip())
    return (str(value), *reader)


def canonical(guess: Any, expected: Any = None) -> Any:
    """``guess`` as the value it means: a word of any language for a value the labs ask for is that value.

    A word two values share (拒绝 is ``rejected`` and ``refused``) means ``expected`` when it is one of them."""
    if not isinstance(guess, str):
        return guess
    said = guess.strip().casefold()
    for value, _message in (*([(expected, "")] if words(expected) else []), *ANSWER_WORDS.values()):
        if any(said == word.casefold() for language in LANGUAGES for word in words(value, language)):
            return value
    return guess


def shown(value: Any, chosen: str | None = None) -> str | None:
    """``value`` in the reader's words with the code's beside it (``接受 / accepted``); None when it has no words."""
    said = words(value, chosen)
    if len(said) < 2:
        return None
    return MESSAGES("{word} ({value})", chosen).format(word=said[1], value=said[0])
