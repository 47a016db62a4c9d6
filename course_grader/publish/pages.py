"""The HTML pages the grader writes (feedback per student, the class report): Jinja2, autoescaped, in the run's language.

One environment per language, with ``autoescape=True``: whatever a template
prints is HTML-escaped unless the code made it ``Markup`` on purpose (an inline
SVG chart the grader drew, a rule's `code` spans after escaping). Undefined
names are errors, not empty strings. Pages are self-contained: styles inline,
pictures as inline SVG or ``data:`` URLs, no script, and a Content-Security-Policy
that would block any script or outside fetch that slipped in anyway.

The templates' text is English, marked for the catalog with Jinja's i18n
extension (``{{ _("…") }}``, values as ``%(name)s``, escaped when filled in); each
render names its language, and the environment of that language has the grader's
catalog installed (``messages.py``). The language is a run's, not the process's:
two runs of one process may render in two languages, each through its own
environment.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from course_lib.teaching import i18n

from ..messages import DOMAIN, LOCALE_FOLDER

CODE_SPAN = re.compile(r"`([^`]+)`")
EXTENSIONS = ("jinja2.ext.i18n",)
"""Jinja's gettext extension: ``_``, ``gettext``, ``{% trans %}`` (also what ``scripts/translations.py`` extracts with)."""


def code_spans(text: str) -> Markup:
    """Course text with Markdown `code` spans (rules.py) as ``<code>``; escaped first, so nothing else becomes markup."""
    return Markup(CODE_SPAN.sub(lambda match: f"<code>{match.group(1)}</code>", str(escape(text))))


def number(value: float) -> str:
    """A score as people write it: ``7``, ``7.5``, ``-1``."""
    return f"{value:g}"


def html_lang(language: str) -> str:
    """The ``<html lang>`` of a page in ``language``: its BCP 47 tag (``en``, ``zh-CN``)."""
    locale = i18n.LOCALES[language]
    return locale.replace("_", "-") if locale else language


@functools.cache
def environment(language: str) -> Environment:
    """The pages' environment speaking ``language`` (one per language, made on first use)."""
    env = Environment(
        loader=PackageLoader("course_grader.publish", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=list(EXTENSIONS),
    )
    env.install_gettext_translations(i18n.translations(LOCALE_FOLDER, DOMAIN, language), newstyle=True)  # type: ignore[attr-defined]
    env.filters["code_spans"] = code_spans
    env.filters["number"] = number
    env.globals["html_lang"] = html_lang(language)
    return env


def render(template: str, language: str, **context: Any) -> str:
    """``template`` filled with ``context``, its text in ``language`` (``en``, ``zh``)."""
    return environment(i18n.parse_language(language, "language")).get_template(template).render(**context)
