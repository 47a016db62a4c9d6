"""The HTML pages the grader writes (feedback per student, the class report): Jinja2, autoescaped.

One environment for every page, with ``autoescape=True``: whatever a template
prints is HTML-escaped unless the code made it ``Markup`` on purpose (an inline
SVG chart the grader drew, a rule's `code` spans after escaping). Undefined
names are errors, not empty strings. Pages are self-contained: styles inline,
pictures as inline SVG or ``data:`` URLs, no script, and a Content-Security-Policy
that would block any script or outside fetch that slipped in anyway.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """Course text with Markdown `code` spans (rules.py) as ``<code>``; escaped first, so nothing else becomes markup."""
    return Markup(CODE_SPAN.sub(lambda match: f"<code>{match.group(1)}</code>", str(escape(text))))


def number(value: float) -> str:
    """A score as people write it: ``7``, ``7.5``, ``-1``."""
    return f"{value:g}"


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("course_grader.publish", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["code_spans"] = code_spans
    env.filters["number"] = number
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
