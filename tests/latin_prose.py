"""English prose in a Chinese text: what a Chinese reader should never meet without the course saying why (issue 45).

A Chinese line may hold Latin script only where it is not a sentence: code (a ```code``` span, a name such as
``find_cut_point`` or ``CompactionSummary``), an id (``compact-1``, ``u2``), a rule id (``R16``), a value (anything
quoted, a number, ``True``/``None``) or the message of an error the code raised, after its type's name. What is left after those are taken
out is prose when three or more English words follow one another; ``english_sentences`` returns each such run.
"""

from __future__ import annotations

import re

from course_lib.teaching.i18n import LANGUAGES, MESSAGES

QUOTED = re.compile(r"`[^`\n]*`|'[^'\n…]*…|'[^'\n]*'|\"[^\"\n]*\"|“[^”\n]*”|‘[^’\n]*’|「[^」\n]*」|'[^'\n]*$")
"""A code span or a quoted value (the learner's own text, an id, a repr), or a quoted value cut short (``…``, or at
the end of the text)."""
RAISED = re.compile(r"\b[A-Z]\w*(?:Error|Exception): [^）\n]*")
"""The message of an error the code raised, after its type's name, to the end of its (full-width) parenthesis: a
value the check reports, in the language the raising code wrote it (docs/translating.md)."""
REJECTED = re.compile(
    "|".join(
        re.escape(MESSAGES("rejected: {error}", language).split("{error}")[0]) + r"[^|\n]*" for language in LANGUAGES
    )
)
"""An error a lab's function raised, as ``lab_helpers.Attempt.shown`` says it (``被拒绝：<its message>``): its own
words, to the end of the table cell or line."""
WORD = r"[A-Za-z][a-z]+"
SENTENCE = re.compile(rf"(?<![\w.\-/]){WORD}(?:[ ,]+{WORD}){{2,}}(?![\w\-/(])")
"""Three or more plain English words in a row (a code name has an underscore, a digit or a capital inside)."""


def english_sentences(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """Each run of English prose in ``text`` once code spans, quoted values and ``allowed`` texts are taken out."""
    for exception in allowed:
        text = text.replace(exception, " ")
    text = QUOTED.sub(" ", RAISED.sub(" ", REJECTED.sub(" ", text)))
    return [match.group() for match in SENTENCE.finditer(text)]
