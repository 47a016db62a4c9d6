"""The reader's language (course_lib/teaching/i18n.py): how it is chosen, and messages read from a .po catalog."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from course_lib.errors import CourseError
from course_lib.teaching import i18n

CATALOG = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=1; plural=0;\\n"

msgid "passed"
msgstr "通过"

#, fuzzy
msgid "failed"
msgstr "失败"

msgid "untranslated"
msgstr ""

msgctxt "status"
msgid "error"
msgstr "错误"

msgid "one check"
msgid_plural "{count} checks"
msgstr[0] "{count} 项检查"
"""


@pytest.fixture
def messages(tmp_path: Path) -> i18n.Messages:
    folder = tmp_path / "locale"
    (folder / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    (folder / "zh_CN" / "LC_MESSAGES" / "demo.po").write_text(CATALOG, encoding="utf-8")
    return i18n.Messages("demo", folder)


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for variable in (i18n.ENVIRONMENT, *i18n.LOCALE_VARIABLES):
        monkeypatch.setenv(variable, "")  # recorded, so the test's own setting (use_language) is undone after it
        monkeypatch.delenv(variable)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)  # outside a notebook's kernel, whatever was imported
    return monkeypatch


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("zh", "zh"),
        ("zh_CN", "zh"),
        ("zh-Hans", "zh"),
        ("zh_CN.UTF-8", "zh"),
        ("ZH", "zh"),
        ("en", "en"),
        ("en_GB", "en"),
    ],
)
def test_language_names_are_normalised(value: str, expected: str) -> None:
    assert i18n.parse_language(value) == expected


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(i18n.UnknownLanguageError, match=r"COURSE_LANG: unknown language 'fr'.*en, zh") as caught:
        i18n.parse_language("fr")
    assert isinstance(caught.value, CourseError)
    assert caught.value.value == "fr"


def test_english_is_the_default(clean_environment: pytest.MonkeyPatch) -> None:
    assert i18n.language() == "en"


def test_course_lang_comes_before_the_locale(clean_environment: pytest.MonkeyPatch) -> None:
    clean_environment.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language() == "zh"
    clean_environment.setenv(i18n.ENVIRONMENT, "en")
    assert i18n.language() == "en"
    assert i18n.language("zh") == "zh"  # an explicit request (a course file's language) comes first


def test_a_notebook_kernel_speaks_its_edition_not_the_locale(clean_environment: pytest.MonkeyPatch) -> None:
    """An English notebook on a Chinese machine stays English (a Chinese one sets COURSE_LANG): never mixed."""
    clean_environment.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language() == "zh"  # a shell's command follows the locale
    clean_environment.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert i18n.language() == "en"
    clean_environment.setenv("COURSE_LANG", "zh")  # what a Chinese notebook's first cell sets
    assert i18n.language() == "zh"


def test_the_first_set_locale_variable_decides(clean_environment: pytest.MonkeyPatch) -> None:
    clean_environment.setenv("LANG", "zh_CN.UTF-8")
    clean_environment.setenv("LC_ALL", "C.UTF-8")
    assert i18n.language() == "en"  # LC_ALL overrides LANG, and "C" is English, not an error


def test_a_bad_course_lang_is_refused_not_ignored(clean_environment: pytest.MonkeyPatch) -> None:
    clean_environment.setenv(i18n.ENVIRONMENT, "klingon")
    with pytest.raises(i18n.UnknownLanguageError, match="COURSE_LANG"):
        i18n.language()


def test_use_language_sets_it_for_child_processes(clean_environment: pytest.MonkeyPatch) -> None:
    assert i18n.use_language("zh_CN") == "zh"
    assert os.environ[i18n.ENVIRONMENT] == "zh"
    assert i18n.language() == "zh"


def test_messages_read_in_the_chosen_language(messages: i18n.Messages) -> None:
    assert messages("passed", "zh") == "通过"
    assert messages("passed", "en") == "passed"
    assert messages.context("status", "error", "zh") == "错误"
    assert messages.plural("one check", "{count} checks", 3, "zh") == "{count} 项检查"
    assert messages.plural("one check", "{count} checks", 1, "en") == "one check"


def test_fuzzy_and_missing_translations_fall_back_to_english(messages: i18n.Messages) -> None:
    assert messages("failed", "zh") == "failed"
    assert messages("untranslated", "zh") == "untranslated"
    assert messages("never in the catalog", "zh") == "never in the catalog"


def test_a_language_without_a_catalog_file_reads_english(tmp_path: Path) -> None:
    assert i18n.Messages("absent", tmp_path)("passed", "zh") == "passed"


def test_english_needs_no_catalog() -> None:
    assert i18n.catalog_path(Path("x"), "demo", "en") is None
    assert i18n.catalog_path(Path("x"), "demo", "zh") == Path("x/zh_CN/LC_MESSAGES/demo.po")
