"""A glossary row: one term, or one command, of the chapter beside the course's (issue 32).

The chapter is written in Chinese with a TypeScript reference; the course is written in
English with Python. A row holds both sides and a meaning in each language, so the
English page and the Chinese one are generated from the same row and cannot list
different things.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """A section of the glossary, its heading in each language."""

    english: str
    chinese: str


@dataclass(frozen=True)
class Term:
    """One term: the course's English word, the chapter's Chinese one, the code names, a meaning in each language.

    ``python`` names are relative to ``course_lib`` (``lifecycle.should_compact()`` is
    ``course_lib.lifecycle.should_compact``): ``name()`` is a callable, ``Model.field`` a
    field or attribute, ``function(parameter=…)`` a parameter. ``wire`` holds the chapter's
    TypeScript names and the camelCase keys of the JSON on disk. Where the chapter keeps the
    English word (session, entry, …), ``chinese`` is that word.
    """

    topic: Topic
    english: str
    chinese: str
    python: tuple[str, ...]
    wire: tuple[str, ...]
    meaning_en: str
    meaning_zh: str

    def name(self, language: str) -> str:
        """The term as a reader of ``language`` looks it up."""
        return self.chinese if language == "zh" else self.english

    def meaning(self, language: str) -> str:
        return self.meaning_zh if language == "zh" else self.meaning_en


@dataclass(frozen=True)
class Command:
    """One command of the course, the chapter's command that does the same (``""`` when it has none)."""

    course: str
    chapter: str
    does_en: str
    does_zh: str

    def does(self, language: str) -> str:
        return self.does_zh if language == "zh" else self.does_en
