"""The notebooks' editions in other languages (scripts/translated_notebooks.py, issue 32).

Each edition is its source plus its catalog: the same code cells as the English
notebook (so the checklist, nbval and the grader treat both alike), the prose from
the catalog, and a first code cell that makes its kernel speak the language.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course_grader.intake.cells import exercise_sources

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("make_learner_labs", ROOT / "scripts" / "make_learner_labs.py")
assert _spec and _spec.loader
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)
editions = generator.translated_notebooks
catalogs = editions.notebook_catalogs

EDITIONS = [
    (source, english_path, english, language)
    for source, english_path, english in generator.english_notebooks()
    for language in editions.TRANSLATED
    if editions.has_catalog(source, language)
]
IDS = [f"{editions.edition_path(path, language).relative_to(ROOT)}" for _, path, _, language in EDITIONS]


def _code(notebook: Any) -> list[tuple[str, str, list[str]]]:
    return [
        (cell.id, cell.source, list(cell.metadata.get("tags", [])))
        for cell in notebook.cells
        if cell.cell_type == "code" and editions.LANGUAGE_TAG not in cell.metadata.get("tags", [])
    ]


def test_some_notebook_has_an_edition() -> None:
    assert EDITIONS, "no notebook has a translation catalog: the editions' tests would test nothing"


@pytest.mark.parametrize(("source", "english_path", "english", "language"), EDITIONS, ids=IDS)
def test_each_edition_is_its_source_and_catalog(source: Path, english_path: Path, english: Any, language: str) -> None:
    """The committed edition is what the generator gives (outputs aside), and it runs the English code."""
    target = editions.edition_path(english_path, language)
    committed = nbformat.read(target, as_version=4)
    assert generator.comparable(committed) == generator.comparable(editions.edition(english, source, language)), (
        f"{target.relative_to(ROOT)} is out of date with its source or catalog: run `make learner-labs`"
    )
    assert _code(committed) == _code(english), "an edition's code cells are the English cells as they are"
    assert exercise_sources(committed) == exercise_sources(english), "the grader reads the same exercises"
    first_code = next(cell for cell in committed.cells if cell.cell_type == "code")
    assert first_code.metadata["tags"] == [editions.LANGUAGE_TAG] and f'use_language("{language}")' in first_code.source
    assert committed.metadata[editions.LANGUAGE_METADATA] == language
    translated = catalogs.translated_cells(source.stem, language)
    folder = source.parent.parent  # where the English notebook's links start from
    assert [c.source for c in committed.cells if c.cell_type == "markdown"] == [
        editions.relinked(translated[c.id][1], folder, language) for c in english.cells if c.cell_type == "markdown"
    ]


def test_an_edition_links_its_own_rules_page(tmp_path: Path) -> None:
    """A link's target to docs/rules.md becomes docs/zh/rules.md, fragment kept, relative to the edition's folder."""
    cell = (
        "Stated in [docs/rules.md](../docs/rules.md); see [R19](../docs/rules.md#r19) and "
        '<a href="../docs/rules.md#l3">L3</a>.\n'
        "[rules]: ../docs/rules.md#r2\n"
        "Not [the guide](../docs/notebooks.md), not `docs/rules.md`, not [a copy](https://example.org/docs/rules.md)."
    )
    assert editions.relinked(cell, ROOT / "notebooks", "zh") == (
        "Stated in [docs/rules.md](../../docs/zh/rules.md); see [R19](../../docs/zh/rules.md#r19) and "
        '<a href="../../docs/zh/rules.md#l3">L3</a>.\n'
        "[rules]: ../../docs/zh/rules.md#r2\n"
        "Not [the guide](../../docs/notebooks.md), not `docs/rules.md`, not [a copy](https://example.org/docs/rules.md)."
    )  # docs/notebooks.md has no Chinese copy: the English page, from the edition's folder
    assert editions.relinked("[R1](../docs/rules.md#r1)", ROOT / "labs", "zh") == "[R1](../../docs/zh/rules.md#r1)"
    assert editions.relinked("[R1](../../docs/rules.md#r1)", ROOT / "labs", "zh") == "[R1](../../docs/zh/rules.md#r1)"
    assert editions.relinked("[R1](../docs/rules.md)", tmp_path, "zh") == "[R1](../docs/rules.md)"  # elsewhere


def test_each_editions_rules_page_is_the_one_make_rules_writes() -> None:
    from course_lib.checklist import rules_page

    for language, page in rules_page.PAGES.items():
        assert editions.rules_page(language) == ROOT / page


def test_the_rules_links_of_every_edition_land_on_a_rule_of_its_page() -> None:
    """Generated from the sources and catalogs (the committed notebooks may wait for `make learner-labs`)."""
    checked = 0
    for source, english_path, english, language in EDITIONS:
        notebook = editions.edition(english, source, language)
        learner_folder = editions.edition_path(source.parent.parent / "x.ipynb", language).parent
        page = editions.rules_page(language)
        anchors = set(re.findall(r'<a id="([^"]+)"></a>', page.read_text(encoding="utf-8")))
        for cell in (c for c in notebook.cells if c.cell_type == "markdown"):
            for match in editions.LINK_TARGET.finditer(cell.source):
                target = (learner_folder / match.group("target")).resolve()
                assert target != editions.rules_page("en").resolve(), f"{english_path.name}: links the English page"
                if target == page.resolve():
                    fragment = match.group("fragment")
                    assert fragment is None or fragment[1:] in anchors, f"{english_path.name}: {fragment} is no rule"
                    checked += 1
    assert checked, "no edition links its rules page: this test would test nothing"


def test_the_editions_sit_in_a_language_folder() -> None:
    assert editions.edition_path(ROOT / "labs" / "solutions" / "x.ipynb", "zh") == ROOT / "labs/zh/solutions/x.ipynb"
    assert editions.edition_path(ROOT / "notebooks" / "x.ipynb", "zh") == ROOT / "notebooks/zh/x.ipynb"


@pytest.fixture
def scratch_catalogs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The catalogs in a scratch copy, so a test can break one."""
    locale = tmp_path / "locale"
    shutil.copytree(catalogs.LOCALE, locale)
    monkeypatch.setattr(catalogs, "LOCALE", locale)
    return locale


def test_a_cell_without_a_translation_is_refused(scratch_catalogs: Path) -> None:
    source, _, english, language = EDITIONS[0]
    catalog = catalogs.read(source.stem, language)
    first = next(message for message in catalog if message.id)
    first.string = ""
    catalogs.write(catalog, catalogs.catalog_path(source.stem, language))
    with pytest.raises(editions.TranslationMissingError, match=rf"{source.stem}\.po: .*cell '{first.context}'"):
        editions.edition(english, source, language)


def test_a_changed_english_cell_is_refused_until_it_is_translated_again(scratch_catalogs: Path, tmp_path: Path) -> None:
    """After the English changes, the catalog's update marks the cell fuzzy: the edition is refused, not stale."""
    source, _, english, language = EDITIONS[0]
    changed = tmp_path / "sources" / source.name
    changed.parent.mkdir()
    text = source.read_text(encoding="utf-8")
    first_markdown = next(cell for cell in english.cells if cell.cell_type == "markdown")
    first_line = first_markdown.source.splitlines()[0]
    changed.write_text(text.replace(f"# {first_line}", f"# {first_line} (revised)", 1), encoding="utf-8")
    catalogs.write(catalogs.updated(changed, language), catalogs.catalog_path(source.stem, language))
    message = catalogs.read(source.stem, language).get(first_markdown.source + "", context=first_markdown.id)
    assert message is None  # the old English is gone from the catalog ...
    revised = [m for m in catalogs.read(source.stem, language) if m.context == first_markdown.id]
    assert revised and revised[0].fuzzy  # ... its translation kept, marked fuzzy, until someone revises it
    with pytest.raises(editions.TranslationMissingError, match=first_markdown.id):
        editions.edition(english, source, language)


def test_a_translation_of_older_english_is_refused_even_before_the_catalog_is_updated() -> None:
    """Editing the English source and regenerating without updating the catalog must not ship the old translation."""
    source, _, english, language = EDITIONS[0]
    edited = nbformat.from_dict(english)
    cell = next(c for c in edited.cells if c.cell_type == "markdown")
    cell.source += "\n\nA new sentence."
    with pytest.raises(editions.TranslationMissingError, match=rf"older English of cell '{cell.id}'"):
        editions.edition(edited, source, language)
