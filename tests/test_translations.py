"""Every shipped language's catalogs are whole: nothing untranslated, fuzzy, missing or stale (issue 32).

The domains and their sources are listed once, in scripts/translations.py; the same
table is what ``make translations`` prints.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("translations", ROOT / "scripts" / "translations.py")
assert _spec is not None and _spec.loader is not None
translations = importlib.util.module_from_spec(_spec)
sys.modules["translations"] = translations  # dataclasses look their module up by name
_spec.loader.exec_module(translations)

CASES = [(domain, language) for domain in translations.DOMAINS for language in translations.SHIPPED]


@pytest.mark.parametrize(("domain", "language"), CASES, ids=[f"{d.name}-{lang}" for d, lang in CASES])
def test_every_catalog_is_whole(domain: object, language: str) -> None:
    row = translations.status(domain, language)
    assert row.whole, (
        f"{row.path}: {len(row.missing)} missing {row.missing[:3]}, {len(row.untranslated)} untranslated "
        f"{row.untranslated[:3]}, {len(row.fuzzy)} fuzzy {row.fuzzy[:3]}, {len(row.stale)} stale {row.stale[:3]} "
        "(update the catalog: make translations)"
    )


FIELDS = re.compile(r"\{\w+\}|%\(\w+\)s|%%")
"""A message's fields: ``{name}`` (Python's ``str.format``), ``%(name)s`` and ``%%`` (a Jinja template's, newstyle)."""
PACKAGE_CASES = [(domain, language) for domain in translations.PACKAGE_DOMAINS for language in translations.SHIPPED]


@pytest.mark.parametrize(("domain", "language"), PACKAGE_CASES, ids=[f"{d.name}-{lang}" for d, lang in PACKAGE_CASES])
def test_a_translation_keeps_every_field_of_its_message(domain: object, language: str) -> None:
    """A field lost or renamed would fail (or show a raw ``%(name)s``) only when that message is said."""
    catalog = translations.read_catalog(domain.catalog(language), language)  # type: ignore[attr-defined]
    wrong = [
        (message.id, message.string)
        for message in catalog
        if message.id
        and message.string
        and Counter(FIELDS.findall(message.id)) != Counter(FIELDS.findall(message.string))
    ]
    assert not wrong, wrong


CATALOG = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "kept"
msgstr "保留"

#, fuzzy
msgid "changed"
msgstr "改变"

msgid "empty"
msgstr ""

msgctxt "cell-1"
msgid "gone"
msgstr "已删"
"""


def test_the_status_sees_each_kind_of_gap(tmp_path: Path) -> None:
    path = tmp_path / "demo.po"
    path.write_text(CATALOG, encoding="utf-8")
    expected = [(None, "kept"), (None, "changed"), (None, "empty"), (None, "new")]
    row = translations.status(translations.Domain("demo", lambda _language: path, lambda: expected), "zh")
    assert (row.messages, row.translated) == (4, 1)
    assert row.fuzzy == ((None, "changed"),)
    assert row.untranslated == ((None, "empty"),)
    assert row.missing == ((None, "new"),)
    assert row.stale == (("cell-1", "gone"),)
    assert not row.whole
    assert row.percent == 25.0


def test_a_whole_catalog_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "demo.po"
    path.write_text(CATALOG, encoding="utf-8")
    row = translations.status(translations.Domain("demo", lambda _language: path, lambda: [(None, "kept")]), "zh")
    assert row.messages == 1 and row.whole is False  # the catalog still holds three messages the sources lost
    assert len(row.stale) == 3


def test_a_catalog_not_written_yet_misses_everything(tmp_path: Path) -> None:
    domain = translations.Domain("demo", lambda _language: tmp_path / "absent.po", lambda: [(None, "kept")])
    row = translations.status(domain, "zh")
    assert row.missing == ((None, "kept"),) and row.percent == 0.0


def _templates(point: object) -> set[str]:
    """The sentences a trusted point says: its wording's template and each nested one's, else its text."""
    wording = getattr(point, "wording", None)
    if not isinstance(wording, dict):
        return {str(getattr(point, "what", ""))}
    found: set[str] = set()
    pending = [wording]
    while pending:
        data = pending.pop()
        found.add(data["template"])
        pending.extend(value for value in data["fields"].values() if isinstance(value, dict))
    return found


def test_every_sentence_a_check_says_is_a_catalog_message() -> None:
    """Each check's every observation, as the reference states it, can be said in every shipped language.

    A sentence written as an f-string reaches the judge filled in, and no catalog
    has it: write it with ``say`` (course_lib/teaching/wording.py).
    """
    from course_lib.checklist.cases import CASES as CHECKS
    from course_lib.checklist.runner import trusted_points

    said = {text for case in CHECKS for point in trusted_points(case.number) for text in _templates(point)}
    known = {message for _context, message in translations.package_messages("course_lib")}
    assert sorted(said - known) == []


def test_the_rules_domain_holds_every_rule_and_topic() -> None:
    """The extractor reads course_lib/teaching/rules.py by a keyword spec (``Rule``'s text and topic arguments): a rule it
    missed would read in English on the Chinese rules page while its catalog still looked whole."""
    from course_lib.teaching.rules import RULES

    found = translations.rule_messages()
    assert {(None, rule.text) for rule in RULES} | {(None, rule.topic) for rule in RULES} <= set(found)
    assert found[:3] == [(None, RULES[0].topic), (None, RULES[0].text), (None, RULES[1].text)]  # the table's order
