"""The translation catalogs and whether each is whole: ``make translations`` (issue 32).

Every shipped language has one gettext ``.po`` catalog per domain (course_lib/teaching/i18n.py).
A catalog is whole when every message the English sources hold has a translation that
is not fuzzy, and the catalog holds nothing the sources no longer have. Each domain
says here, once, where its catalog lives and which messages its sources hold (a key is
``(msgctxt, msgid)``; ``msgctxt`` is ``None`` when the message has none), so the status
table and ``tests/test_translations.py`` read the same list.

Usage: ``python scripts/translations.py`` prints the table (exit status 1 unless every
catalog is whole).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
from course_lib.teaching import i18n  # noqa: E402 - the languages the course ships

notebook_catalogs = importlib.import_module("notebook_catalogs")  # scripts/notebook_catalogs.py, beside this file

Key = tuple[str | None, str]
"""A message's identity in a catalog: its context (gettext's ``msgctxt``, or None) and its English text."""


@dataclass(frozen=True)
class Domain:
    """One set of messages: where each language's catalog of it is, and the messages its sources hold now."""

    name: str
    catalog: Callable[[str], Path]
    """The catalog's path for a language (``zh``)."""
    messages: Callable[[], Iterable[Key]]
    """Every message the English sources hold today."""


@dataclass(frozen=True)
class CatalogStatus:
    """How whole one catalog is: counts of what it translates and lists of what it lacks or keeps for nothing."""

    path: Path
    messages: int
    translated: int
    fuzzy: tuple[Key, ...]
    untranslated: tuple[Key, ...]
    missing: tuple[Key, ...]
    """In the sources, not in the catalog (a new or changed English message)."""
    stale: tuple[Key, ...]
    """In the catalog, no longer in the sources (a changed or removed English message)."""

    @property
    def whole(self) -> bool:
        return not (self.fuzzy or self.untranslated or self.missing or self.stale)

    @property
    def percent(self) -> float:
        return 100.0 * self.translated / self.messages if self.messages else 100.0


def read_catalog(path: Path, language: str) -> Catalog:
    """The catalog at ``path`` (an empty one when the file does not exist yet)."""
    if not path.is_file():
        return Catalog(locale=i18n.LOCALES[language])
    with path.open("rb") as handle:
        return read_po(handle, locale=i18n.LOCALES[language])


def key_of(context: str | None, message_id: object) -> Key:
    """A catalog message's key (a plural message is keyed by its singular)."""
    singular = message_id[0] if isinstance(message_id, tuple | list) else message_id
    return (context or None, str(singular))


def status(domain: Domain, language: str) -> CatalogStatus:
    """``domain``'s catalog for ``language`` against the messages its sources hold now."""
    path = domain.catalog(language)
    catalog = read_catalog(path, language)
    entries = {key_of(m.context, m.id): m for m in catalog if m.id}
    expected = set(domain.messages())
    present = [entries[key] for key in sorted(expected, key=str) if key in entries]
    strings = [m.string if isinstance(m.string, str) else "".join(m.string or ()) for m in present]
    fuzzy = tuple(key_of(m.context, m.id) for m in present if m.fuzzy)
    untranslated = tuple(key_of(m.context, m.id) for m, s in zip(present, strings, strict=True) if not s.strip())
    return CatalogStatus(
        path=path,
        messages=len(expected),
        translated=len(present) - len(set(fuzzy) | set(untranslated)),
        fuzzy=fuzzy,
        untranslated=untranslated,
        missing=tuple(sorted(expected - entries.keys(), key=str)),
        stale=tuple(sorted(entries.keys() - expected, key=str)),
    )


SHIPPED = tuple(language for language in i18n.LANGUAGES if i18n.LOCALES[language] is not None)
"""The languages with catalogs (English is the sources' own text)."""


def notebook_domain(source: Path) -> Domain:
    """A notebook source's markdown cells, one message per cell keyed by its id, and its code's ``tr("…")``
    sentences (scripts/notebook_catalogs.py)."""
    return Domain(
        name=f"notebooks/{source.stem}",
        catalog=lambda language: notebook_catalogs.catalog_path(source.stem, language),
        messages=lambda: list(notebook_catalogs.messages(source)),
    )


def notebook_domains() -> tuple[Domain, ...]:
    """Every notebook source's cells: a source without a catalog misses every message (and the tests fail)."""
    return tuple(notebook_domain(source) for source in notebook_catalogs.sources())


KEYWORDS = {
    "MESSAGES": None,
    "message": None,
    "say": None,
    "diagnosis_template": None,
    "expect": (3,),
    "expect_equal": (4,),
    "observe": (3,),
    "expect_same": (4,),
    "expect_rejects": (2,),
    "expect_independent": (4,),
}
"""Where a package's sources hold a message: the translator, the markers, and each expectation's sentence.

``MESSAGES("…")`` and ``message("…")`` (i18n), ``say("…", …)`` and
``diagnosis_template("…")`` (course_lib/teaching/wording.py, checklist/expect.py) take it first;
each ``expect…``/``observe`` takes its sentence at the position given (gettext's
keyword spec: the argument's 1-based index).
"""


TEMPLATE_KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
"""Where a Jinja template holds a message: the names Jinja's i18n extension installs (``{% trans %}`` is ``gettext``)."""
TEMPLATES = ("**/templates/**.j2", "jinja2")
"""A package's Jinja templates and Babel's extractor for them (Jinja's own ``babel_extract``)."""
TEMPLATE_OPTIONS = {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}
"""The templates read as ``course_grader.publish.pages`` renders them (its environment's whitespace rules)."""


def package_messages(package: str, templates: bool = False) -> list[Key]:
    """Every message ``package``'s Python sources hold (Babel's extractor, with ``KEYWORDS``), and its templates'."""
    from babel.messages.extract import extract_from_dir

    folder = str(ROOT / package)
    found = list(extract_from_dir(folder, method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=()))
    if templates:
        found += extract_from_dir(
            folder,
            method_map=[TEMPLATES],
            options_map={TEMPLATES[0]: TEMPLATE_OPTIONS},
            keywords=TEMPLATE_KEYWORDS,
            comment_tags=(),
        )
    return sorted({key_of(context, message) for _file, _line, message, _comments, context in found}, key=str)


LOCALE_HOMES = {"course_lib": "course_lib/teaching", "course_grader": "course_grader", "course_live": "course_live"}
"""The folder whose ``locale/`` holds each package's catalogs (``course_lib``'s sit with its tooling, ``teaching``)."""


def catalog_of(package: str, domain: str) -> Callable[[str], Path]:
    """Where a domain shipped inside ``package`` keeps each language's catalog:
    ``<LOCALE_HOMES[package]>/locale/<locale>/LC_MESSAGES/<domain>.po``."""

    def catalog(language: str) -> Path:
        path = i18n.catalog_path(ROOT / LOCALE_HOMES[package] / "locale", domain, language)
        assert path is not None, language  # only shipped languages have catalogs
        return path

    return catalog


def package_domain(package: str, templates: bool = False) -> Domain:
    """A package's own messages (its checklist, its commands): ``<package>/locale/<locale>/LC_MESSAGES/<package>.po``.

    ``templates``: its Jinja templates' text too (the grader's pages).
    """
    return Domain(
        name=package, catalog=catalog_of(package, package), messages=lambda: package_messages(package, templates)
    )


RULE_TABLE = ROOT / "course_lib" / "teaching" / "rules.py"
RULE_TABLE_KEYWORDS = ({"Rule": (3,)}, {"Rule": (2,)})
"""Where ``course_lib/teaching/rules.py`` states a rule's text and its topic: ``Rule(id, topic, text)``'s 3rd and 2nd
arguments (one keyword spec each, as Babel takes one message per call and spec). The table imports nothing
(tests/test_layers.py), so the spec finds its messages where no marker could."""
RULE_KEYWORDS = {"RULE_MESSAGES": None}
"""The rules domain's translator (course_lib/teaching/i18n.py), wherever ``course_lib`` says a message of it: the rules
page's prose (course_lib/checklist/rules_page.py)."""


def rule_messages() -> list[Key]:
    """Every message of the rules domain, in the order a translator reads them: each topic before its rule's
    text, as the table states them, then what ``RULE_MESSAGES("…")`` says, file by file."""
    from babel.messages.extract import extract_from_dir, extract_from_file

    texts, topics = (
        [key_of(context, text) for _line, text, _notes, context in extract_from_file("python", RULE_TABLE, spec, ())]
        for spec in RULE_TABLE_KEYWORDS
    )
    table = [key for topic, text in zip(topics, texts, strict=True) for key in (topic, text)]  # a pair per Rule(…)
    said = extract_from_dir(
        str(ROOT / "course_lib"), method_map=[("**.py", "python")], keywords=RULE_KEYWORDS, comment_tags=()
    )
    keys = table + [key_of(context, message) for _file, _line, message, _comments, context in said]
    return list(dict.fromkeys(keys))


def rules_domain() -> Domain:
    """The rules and the rules page (``i18n.RULE_MESSAGES``): ``course_lib/teaching/locale/<locale>/LC_MESSAGES/rules.po``."""
    return Domain(name="rules", catalog=catalog_of("course_lib", "rules"), messages=rule_messages)


PACKAGE_DOMAINS: tuple[Domain, ...] = (
    package_domain("course_lib"),
    rules_domain(),
    package_domain("course_grader", templates=True),
    package_domain("course_live"),
)
"""The packages' own catalogs: course_lib's messages, the rules, the grader's pages, report and score explanations,
the live lab's page and command line."""

DOMAINS: tuple[Domain, ...] = (*PACKAGE_DOMAINS, *notebook_domains())
"""Every domain with a catalog; each part of the course adds its own here."""


def table(domains: Iterable[Domain] = DOMAINS, languages: Iterable[str] = SHIPPED) -> list[CatalogStatus]:
    return [status(domain, language) for domain in domains for language in languages]


def main() -> int:
    rows = table()
    print(f"{'catalog':<72} {'messages':>8} {'translated':>10} {'fuzzy':>6} {'missing':>8} {'stale':>6}")
    for row in rows:
        name = str(row.path.relative_to(ROOT))
        missing = len(row.missing) + len(row.untranslated)
        print(f"{name:<72} {row.messages:>8} {row.percent:>9.1f}% {len(row.fuzzy):>6} {missing:>8} {len(row.stale):>6}")
    return 0 if all(row.whole for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
