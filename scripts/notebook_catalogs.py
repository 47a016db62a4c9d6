"""The notebooks' translation catalogs: one ``.po`` per text source and language (issue 32).

``course_lib/teaching/locale/<locale>/LC_MESSAGES/notebooks/<source stem>.po`` holds one message per markdown
cell of ``labs/sources/<stem>.py`` or ``notebooks/sources/<stem>.py``: its context
(``msgctxt``) is the cell's id, its ``msgid`` the cell's text exactly as jupytext reads
it from the source, its ``msgstr`` the translated cell. Code is never in a catalog: both
editions run the same code cells. What a code cell prints or tables in words is written
``tr("English sentence {field}")`` (``course_lib.teaching.i18n.notebook_messages``), and each such
sentence is one more message of the catalog, with no context, after the cells.

Usage: ``python scripts/notebook_catalogs.py [--language zh] [STEM ...]`` writes each
source's catalog afresh from the source (every source when no stem is given): a cell
whose text is unchanged keeps its translation; a cell whose English changed keeps
its old translation marked fuzzy, with the old English beside it (``#| msgid``), so
``make translations`` and the tests show it until someone revises it; a new cell gets
an empty translation; a removed cell leaves the catalog.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import sys
from collections.abc import Iterator
from pathlib import Path

import jupytext
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course_lib.teaching import i18n  # noqa: E402 - the languages the course ships

SOURCE_FOLDERS = (ROOT / "labs" / "sources", ROOT / "notebooks" / "sources")
TEXT_FORMAT = "py:percent"
LOCALE = i18n.LOCALE_FOLDER
"""The notebook catalogs ship with the package (``course_lib/teaching/locale``), found from it wherever a notebook runs."""
PROJECT = "chapter 11 course pack: notebooks"
HOLDER = "the chapter 11 course pack"
HEADER = (
    "# The notebooks' cells in another language: one message per markdown cell, keyed by the cell's id.\n"
    "# Written by scripts/notebook_catalogs.py; translate the msgstr lines only (docs/translating.md)."
)
FIXED_DATE = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC)
"""The header's dates: fixed, so writing a catalog again from the same source gives the same bytes."""


def sources() -> list[Path]:
    """Every notebook's text source."""
    return sorted(path for folder in SOURCE_FOLDERS for path in folder.glob("*.py"))


def source_of(stem: str) -> Path:
    for path in sources():
        if path.stem == stem:
            return path
    raise SystemExit(f"no notebook source named {stem!r} (known: {', '.join(p.stem for p in sources())})")


def markdown_cells(source: Path) -> Iterator[tuple[str, str]]:
    """``(cell id, text)`` of each markdown cell of ``source``, in order."""
    notebook = jupytext.read(source, fmt=TEXT_FORMAT)
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            yield str(cell.metadata.get("id", "")), str(cell.source)  # the source's id="…" (make_learner_labs)


TRANSLATOR = "tr"
"""The name a notebook's code gives its translator: ``tr = i18n.notebook_messages("<stem>")``."""


def code_messages(source: Path) -> Iterator[str]:
    """Each sentence ``source``'s code cells hand to ``tr("…")``, once, in order of first use.

    Only a literal string is a message: ``tr(f"…")`` or ``tr(name)`` is refused, naming the
    source and the line, since no catalog could hold what it will say."""
    notebook = jupytext.read(source, fmt=TEXT_FORMAT)
    seen: dict[str, None] = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        calls = [
            node
            for node in ast.walk(ast.parse(str(cell.source)))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == TRANSLATOR
        ]
        for node in sorted(calls, key=lambda call: (call.lineno, call.col_offset)):  # as the cell reads
            first = node.args[0] if node.args else None
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                cell_id = cell.metadata.get("id", "?")
                raise SystemExit(f"{source.name}, cell {cell_id}, line {node.lineno}: tr() takes a literal string")
            seen.setdefault(first.value)
    return iter(seen)


def messages(source: Path) -> Iterator[tuple[str | None, str]]:
    """Every message of ``source``'s catalog as ``(context, English)``: the markdown cells, then the code's sentences."""
    yield from markdown_cells(source)
    for text in code_messages(source):
        yield None, text


def catalog_path(stem: str, language: str) -> Path:
    locale = i18n.LOCALES[language]
    if locale is None:
        raise ValueError(f"{language!r} is the sources' own language: it has no catalog")
    return LOCALE / locale / "LC_MESSAGES" / "notebooks" / f"{stem}.po"


def read(stem: str, language: str) -> Catalog:
    path = catalog_path(stem, language)
    if not path.is_file():
        return Catalog(locale=i18n.LOCALES[language], project=PROJECT)
    with path.open("rb") as handle:
        return read_po(handle, locale=i18n.LOCALES[language])


def translated_cells(stem: str, language: str) -> dict[str, tuple[str, str]]:
    """Each translated (not fuzzy) markdown cell by cell id: the English it translates and its translation.

    The generator uses a translation only while the cell's English is still that text."""
    catalog = read(stem, language)
    return {
        str(message.context): (str(message.id), str(message.string))
        for message in catalog
        if message.id and message.context and message.string and not message.fuzzy
    }


def updated(source: Path, language: str) -> Catalog:
    """``source``'s catalog with its messages as the source holds them now (see the module docstring)."""
    old = read(source.stem, language)
    by_cell = {str(message.context): message for message in old if message.id and message.context}
    new = Catalog(
        locale=i18n.LOCALES[language], project=PROJECT, fuzzy=False, copyright_holder=HOLDER, header_comment=HEADER
    )
    said = {str(message.id): message for message in old if message.id and not message.context}
    for cell_id, text in markdown_cells(source):
        before = by_cell.get(cell_id)
        if before is None:
            new.add(text, "", context=cell_id)
        elif before.id == text:
            new.add(text, before.string, context=cell_id, flags=before.flags)
        else:
            new.add(text, before.string, context=cell_id, flags={"fuzzy"}, previous_id=before.id)
    for text in code_messages(source):  # keyed by their English: a changed sentence is a new message
        sentence = said.get(text)
        new.add(text, sentence.string if sentence else "", flags=sentence.flags if sentence else ())
    return new


def write(catalog: Catalog, path: Path) -> None:
    """``catalog`` at ``path``: cells in notebook order, no line numbers or dates, so a rewrite changes nothing for nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    with path.open("wb") as handle:
        write_po(
            handle, catalog, width=0, no_location=True, omit_header=False, sort_output=False, include_previous=True
        )


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Write each notebook source's catalog afresh from the source.")
    parser.add_argument("stems", nargs="*", help="source stems (default: every source)")
    parser.add_argument("--language", default="zh", choices=[lang for lang in i18n.LANGUAGES if i18n.LOCALES[lang]])
    options = parser.parse_args(arguments)
    chosen = [source_of(stem) for stem in options.stems] if options.stems else sources()
    for source in chosen:
        path = catalog_path(source.stem, options.language)
        write(updated(source, options.language), path)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
