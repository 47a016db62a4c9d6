"""A package's own messages' catalog, one per language: ``python scripts/package_catalogs.py [PACKAGE ...]`` (issue 32).

``<package>/locale/<locale>/LC_MESSAGES/<package>.po`` holds every message the package's
Python sources say (``translations.KEYWORDS`` finds them: ``MESSAGES("…")``,
``message("…")``, ``say("…", …)``, each expectation's sentence). Writing it afresh keeps
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
from course_lib import i18n  # noqa: E402 - the languages the course ships

translations = importlib.import_module("translations")  # scripts/translations.py: the domains and their messages
notebook_catalogs = importlib.import_module("notebook_catalogs")  # its write(): the same bytes for the same catalog

PACKAGES = ("course_lib", "course_grader")
HOLDS = {
    "course_lib": "its checklist, its rules, its commands",
    "course_grader": "its feedback pages, its class report, its score explanations and its hidden tests' messages",
}
HEADER = (
    "# {package}'s own messages in another language ({holds}).\n"
    "# Written by scripts/package_catalogs.py; translate the msgstr lines only (docs/translating.md)."
)


TEMPLATE_FIELD = re.compile(r"%\(\w+\)s|%%")
"""A Jinja message's field or literal percent sign (its i18n extension formats every message with ``%``)."""


def domain_of(package: str) -> Any:
    """The package's ``translations.Domain`` as ``DOMAINS`` lists it (the grader's with its templates)."""
    listed = {domain.name: domain for domain in translations.PACKAGE_DOMAINS}
    return listed.get(package) or translations.package_domain(package)


def updated(package: str, language: str) -> Catalog:
    domain = domain_of(package)
    old = translations.read_catalog(domain.catalog(language), language)
    kept = {translations.key_of(m.context, m.id): m.string for m in old if m.id and not m.fuzzy}
    new = Catalog(
        locale=i18n.LOCALES[language],
        project=f"chapter 11 course pack: {package}",
        fuzzy=False,
        copyright_holder=notebook_catalogs.HOLDER,
        header_comment=HEADER.format(package=package, holds=HOLDS[package]),
    )
    for context, text in domain.messages():
        new.add(text, kept.get((context, text), ""), context=context, flags=format_flags(text))
    return new


def format_flags(text: str) -> set[str]:
    """``python-format`` for a message with fields: ``{name}`` (Python's ``str.format``) or ``%(name)s`` (a template's)."""
    return {"python-format"} if "{" in text or TEMPLATE_FIELD.search(text) else set()


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Write each package's message catalog afresh from its sources.")
    parser.add_argument("packages", nargs="*", choices=[*PACKAGES, []], help="packages (default: every one)")
    parser.add_argument("--language", default="zh", choices=[lang for lang in i18n.LANGUAGES if i18n.LOCALES[lang]])
    options = parser.parse_args(arguments)
    for package in options.packages or PACKAGES:
        path = domain_of(package).catalog(options.language)
        notebook_catalogs.write(updated(package, options.language), path)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
