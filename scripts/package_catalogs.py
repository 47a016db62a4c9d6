"""A package's own catalogs, one per language: ``python scripts/package_catalogs.py [CATALOG ...]`` (issue 32).

``<package>/locale/<locale>/LC_MESSAGES/<package>.po`` holds every message the package's
Python sources say (``translations.KEYWORDS`` finds them: ``MESSAGES("…")``,
``message("…")``, ``say("…", …)``, each expectation's sentence). ``rules`` is
``course_lib``'s second domain, ``course_lib/teaching/locale/<locale>/LC_MESSAGES/rules.po``: each
rule's text and topic (``course_lib/teaching/rules.py``) and the rules page's prose
(``RULE_MESSAGES("…")``; ``translations.rules_domain``). Writing a catalog afresh keeps
the translation of every message whose English is unchanged, gives a new or changed
message an empty one, and drops what the sources no longer say; ``make translations`` and
the tests then show what is left to translate. The messages are sorted, with no line
numbers or dates, so a rewrite of unchanged sources changes no byte.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
from course_lib.teaching import i18n  # noqa: E402 - the languages the course ships

translations = importlib.import_module("translations")  # scripts/translations.py: the domains (each a Domain: Any here)
notebook_catalogs = importlib.import_module("notebook_catalogs")  # its write(): the same bytes for the same catalog

HEADERS = {
    "course_lib": "# course_lib's own messages in another language (its checklist, its rules, its commands).",
    "rules": "# The course's rules (course_lib/teaching/rules.py) and the rules page's prose (docs/rules.md) in another language.",
    "course_grader": "# The grader's messages in another language (its feedback pages, class report, score explanations, "
    "hidden tests' messages).",
    "course_live": "# The live lab server's messages in another language (the instructor's page, its picture, its command line, "
    "the refusals learners read).",
}
"""Each catalog this script writes, by domain name, and the first line of its header."""
HEADER = "# Written by scripts/package_catalogs.py; translate the msgstr lines only (docs/translating.md)."
TEMPLATE_FIELD = re.compile(r"%\(\w+\)s|%%")
"""A Jinja message's field or literal percent sign (its i18n extension formats every message with ``%``)."""


def domains() -> dict[str, Any]:
    """The domains this script writes, by name (``translations.PACKAGE_DOMAINS``)."""
    return {domain.name: domain for domain in translations.PACKAGE_DOMAINS}


def updated(domain: Any, language: str) -> Catalog:
    """``domain``'s catalog for ``language`` with the messages its sources hold now, translations kept."""
    old = translations.read_catalog(domain.catalog(language), language)
    kept = {translations.key_of(m.context, m.id): m.string for m in old if m.id and not m.fuzzy}
    new = Catalog(
        locale=i18n.LOCALES[language],
        project=f"chapter 11 course pack: {domain.name}",
        fuzzy=False,
        copyright_holder=notebook_catalogs.HOLDER,
        header_comment=f"{HEADERS[domain.name]}\n{HEADER}",
    )
    for context, text in domain.messages():
        new.add(text, kept.get((context, text), ""), context=context, flags=format_flags(text))
    return new


def format_flags(text: str) -> set[str]:
    """``python-format`` for a message with fields: ``{name}`` (Python's ``str.format``) or ``%(name)s`` (a template's)."""
    return {"python-format"} if "{" in text or TEMPLATE_FIELD.search(text) else set()


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Write each package catalog afresh from its sources.")
    parser.add_argument("catalogs", nargs="*", choices=[*HEADERS, []], help="catalogs (default: every one)")
    parser.add_argument("--language", default="zh", choices=[lang for lang in i18n.LANGUAGES if i18n.LOCALES[lang]])
    options = parser.parse_args(arguments)
    for name in options.catalogs or HEADERS:
        domain = domains()[name]
        path = domain.catalog(options.language)
        notebook_catalogs.write(updated(domain, options.language), path)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
