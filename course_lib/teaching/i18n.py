"""The reader's language: English by default, Chinese (``zh``) on request, through gettext catalogs.

Every text a reader reads is written once, in English, where it is used; a language's
catalog gives its translation. A catalog is a gettext ``.po`` file,
``<package>/locale/<locale>/LC_MESSAGES/<domain>.po`` (``course_lib/teaching/locale/zh_CN/LC_MESSAGES/course_lib.po``),
read with Babel and handed to the standard library's ``gettext``: the ``.po`` file is the
only copy, so there is no compiled ``.mo`` file to go stale. A message with no
translation, or only a fuzzy one, reads in English (gettext's own fallback); the
catalog tests fail on either, so a shipped language is always whole.

The language is chosen, in this order, by ``COURSE_LANG`` (``en`` or ``zh``; ``zh_CN``,
``zh-Hans`` and the like mean ``zh``), then by the locale (``LC_ALL``, ``LC_MESSAGES``,
``LANG``: a Chinese locale means ``zh``), else English. A Chinese notebook sets
``COURSE_LANG`` itself (``use_language``); in a notebook's kernel the locale is not asked, so an
English notebook stays English on a Chinese machine: a notebook never mixes languages. Code, rule ids (R1…, L1…), wire field names,
identifiers and numbers are never translated: they are not messages.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from ..errors import CourseError

ENVIRONMENT = "COURSE_LANG"
DEFAULT = "en"
LOCALES: Mapping[str, str | None] = {"en": None, "zh": "zh_CN"}
"""Each language the course speaks and its gettext locale folder (English is the source text: no catalog)."""
LANGUAGES = tuple(LOCALES)
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""The POSIX locale variables, in gettext's order of precedence (``LANGUAGE`` is GNU's list, not a locale)."""


class UnknownLanguageError(CourseError, ValueError):
    """A language the course does not speak was asked for by name (``COURSE_LANG``, ``language = …``)."""

    def __init__(self, value: str, source: str) -> None:
        super().__init__(f"{source}: unknown language {value!r}; the course speaks {', '.join(LANGUAGES)}")
        self.value = value
        self.source = source


def parse_language(value: str, source: str = ENVIRONMENT) -> str:
    """``value`` as one of ``LANGUAGES``: ``zh``, ``zh_CN``, ``zh-Hans``, ``zh_CN.UTF-8`` → ``zh``; refused otherwise."""
    code = value.strip().split(".")[0].replace("-", "_").lower()
    base = code.split("_")[0]
    if base in LOCALES:
        return base
    raise UnknownLanguageError(value, source)


def language(requested: str | None = None) -> str:
    """The language to speak: ``requested`` if given, else ``COURSE_LANG``, else the locale, else English."""
    if requested:
        return parse_language(requested, "language")
    chosen = os.environ.get(ENVIRONMENT, "").strip()
    if chosen:
        return parse_language(chosen)
    if "ipykernel" in sys.modules:  # a notebook speaks its own edition's language, never the server's locale
        return DEFAULT
    for variable in LOCALE_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:  # the first set variable decides, as in the C library; "C" and "POSIX" are English
            try:
                return parse_language(value, variable)
            except UnknownLanguageError:
                return DEFAULT
    return DEFAULT


def use_language(chosen: str) -> str:
    """Speak ``chosen`` from now on in this process and the processes it starts (a notebook's first cell)."""
    os.environ[ENVIRONMENT] = parse_language(chosen, "language")
    return os.environ[ENVIRONMENT]


def catalog_path(folder: Path, domain: str, chosen: str) -> Path | None:
    """Where ``domain``'s catalog for ``chosen`` lives under ``folder`` (None for English, the source text)."""
    locale = LOCALES[chosen]
    return None if locale is None else folder / locale / "LC_MESSAGES" / f"{domain}.po"


@functools.cache
def translations(folder: Path, domain: str, chosen: str) -> gettext.NullTranslations:
    """``domain``'s messages in ``chosen``, read once per process from the ``.po`` catalog (fuzzy ones left out)."""
    path = catalog_path(folder, domain, chosen)
    if path is None or not path.is_file():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo  # only a translated run pays for Babel
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        catalog = read_po(handle, locale=LOCALES[chosen], domain=domain)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


class Messages:
    """One domain's translator: ``MESSAGES("English text")`` is that text in the reader's language.

    A message with placeholders is translated first and formatted after
    (``MESSAGES("{passed}/{total} passed").format(...)``), so a catalog
    translates the sentence, never one filled in with today's numbers.
    """

    def __init__(self, domain: str, folder: Path) -> None:
        self.domain = domain
        self.folder = folder

    def __call__(self, message: str, chosen: str | None = None) -> str:
        return translations(self.folder, self.domain, language(chosen)).gettext(message)

    def plural(self, singular: str, plural: str, count: int, chosen: str | None = None) -> str:
        """``singular`` or ``plural`` by ``count``, as the language counts (Chinese has one form)."""
        return translations(self.folder, self.domain, language(chosen)).ngettext(singular, plural, count)

    def context(self, context: str, message: str, chosen: str | None = None) -> str:
        """``message`` in ``context`` (gettext's ``msgctxt``): the same English word, two translations."""
        return translations(self.folder, self.domain, language(chosen)).pgettext(context, message)


def message(text: str) -> str:
    """Mark ``text`` as a message for the catalogs and return it unchanged (gettext's ``N_``).

    For a sentence written once as a constant and translated where it is said
    (``MESSAGES(TEMPLATE)``): the catalog's extractor finds it here.
    """
    return text


def notebook_messages(stem: str) -> Messages:
    """A notebook's own sentences (its code cells' ``tr("…")``) in the reader's language.

    They live in the notebook's catalog beside its prose, which ships with this package
    (``course_lib/teaching/locale/<locale>/LC_MESSAGES/notebooks/<stem>.po``, scripts/notebook_catalogs.py)
    and is found from it, never from the folder the notebook runs in: a Chinese notebook saved from
    the site, kept in the learner's home folder or uploaded to a hub or an LMS speaks Chinese there
    too (issue 45). Both editions run the same code, so a Chinese notebook's tables and lines are
    Chinese only through this catalog; the notebook names its language in its first code cell
    (``use_language``) and its ``course_language`` metadata (scripts/translated_notebooks.py).
    """
    return Messages(f"notebooks/{stem}", LOCALE_FOLDER)


LOCALE_FOLDER = Path(__file__).resolve().parent / "locale"
MESSAGES = Messages("course_lib", LOCALE_FOLDER)
"""``course_lib``'s own messages (the checklist, the rules, the learner-facing commands)."""

RULE_MESSAGES = Messages("rules", LOCALE_FOLDER)
"""The rules' own text (``course_lib/teaching/rules.py``: each rule and topic) and the rules page's prose.

A domain of its own (``course_lib/teaching/locale/<locale>/LC_MESSAGES/rules.po``): the rules are
the course's contract, translated and reviewed as one text. ``course_lib.teaching.rules`` imports
nothing (tests/test_layers.py), so its texts are found where the table states them
(scripts/translations.py reads each ``Rule(…)`` call) and translated where they are shown:
``RULE_MESSAGES(rule.text, "zh")``.
"""
