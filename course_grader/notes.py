"""A row's notes: written once in English, said on a page in the page's language (issue 45).

Why English first: a note is the instructor's record. It travels in the grades
CSV and the records through ``merge``, ``rescore`` and shards, and some are
read back (the similarity notes, ``similarity_notes.py``), so it must read the
same whatever language a section is taught in. A learner's page, the class
report and the LMS's comment files say it in their own language: each note is
written from a template made here (``NOTE("…")``, a catalog message with its
fields inside, so a sentence is translated whole), and ``said`` reads a note
back against those templates and says it again from the catalog's translation,
each field said the same way (a field may itself be a templated phrase: the
reason a duplicate counts). What matches no template (a note an older grader
wrote, a learner's own error text) is shown as written. Template fields are
plain text: ``{name}``, never a format spec, so a note read back can be
formatted again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from course_lib.teaching import i18n

from .errors import GradingError
from .messages import MESSAGES

FIELD = re.compile(r"\{(\w*)([^}]*)\}")
JOIN = "; "
"""How a row's note joins its parts (``duplicate: …; conflict: …; tie: …``): each part is said on its own."""


class NoteTemplateError(GradingError):
    """A note's template with a field that could not be read back (unnamed, or with a format spec)."""


@dataclass(frozen=True)
class Template:
    """One note's English template (a catalog message): writes a note, and reads one back."""

    text: str

    def __post_init__(self) -> None:
        for name, spec in FIELD.findall(self.text):
            if not name or spec:
                raise NoteTemplateError(
                    f"a note's fields are named and plain ({{name}}), not {{{name}{spec}}}: {self.text!r}"
                )

    def __call__(self, **fields: object) -> str:
        return self.text.format(**fields)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        parts, seen, at = [], set(), 0
        for found in FIELD.finditer(self.text):
            parts.append(re.escape(self.text[at : found.start()]))
            name = found.group(1)
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
            seen.add(name)
            at = found.end()
        parts.append(re.escape(self.text[at:]))
        return re.compile("".join(parts), re.S)


@dataclass
class Templates:
    """Every note template (``NOTE``); a note is read back by the most specific one that matches it whole."""

    made: list[Template] = field(default_factory=list)

    def __call__(self, text: str) -> Template:
        template = Template(text)
        self.made.append(template)
        return template

    def said(self, note: str, language: str = i18n.DEFAULT) -> str:
        """``note`` in ``language``: read back against the templates, said from the catalog; else as written."""
        if language == i18n.DEFAULT or not note:
            return note
        whole = self._whole(note, language)
        if whole is not None:
            return whole
        parts = note.split(JOIN)
        for end in range(len(parts) - 1, 0, -1):  # the longest first part a template says, then the rest
            head = self._whole(JOIN.join(parts[:end]), language)
            if head is not None:
                return head + MESSAGES(JOIN, language) + self.said(JOIN.join(parts[end:]), language)
        return note

    def _whole(self, text: str, language: str) -> str | None:
        """``text`` said by the most specific template that matches it whole (the most words of its own)."""
        for template in sorted(self.made, key=lambda t: -len(FIELD.sub("", t.text))):
            found = template.pattern.fullmatch(text)
            if found is not None and all(_one_field(text, *found.span(name)) for name in found.groupdict()):
                fields = {name: self.said(value, language) for name, value in found.groupdict().items()}
                return MESSAGES(template.text, language).format(**fields)
        return None


def _one_field(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, read back as a field, is one: it closes every bracket it opens, and holds no
    ``JOIN`` outside brackets (that joins two parts of a note, ``duplicate: …; tie: …``, never one field's words)."""
    depth, inner = 0, 0
    for at, character in enumerate(text[:end]):
        if at >= start and inner == 0 and text.startswith(JOIN, at) and depth == 0:
            return False
        opened = (character in "([") - (character in ")]")
        depth = max(depth + opened, 0)
        if at >= start:
            inner += opened
            if inner < 0:
                return False
    return inner == 0


NOTE = Templates()
"""``NOTE(message("…"))`` makes a note's template where the note is written; ``NOTE.said(note, language)`` says it."""
