"""The notebooks in another language: the English notebook, its prose from the catalog (issue 32).

A translated edition is generated from the same text source as the English one, so
the two cannot drift: every code cell is the English cell as it is (the checklist,
nbval and the grader treat both alike), and each markdown cell is replaced by its
translation from ``locale/<locale>/LC_MESSAGES/notebooks/<source stem>.po``
(scripts/notebook_catalogs.py). A source without a catalog in that language has no
edition in it; a catalog that lacks a cell, or has only a fuzzy translation of it, is
refused, naming the catalog and the cell: a Chinese notebook never shows English prose.

The edition lives in a ``<language>`` folder beside the English notebooks
(``labs/zh/lab_11_3_build_context.ipynb``, ``labs/zh/solutions/…``, ``notebooks/zh/…``)
and speaks its language from its first code cell: a generated cell, tagged
``course-language``, calls ``course_lib.teaching.i18n.use_language``, so the checklist's
verdicts in that kernel are in the notebook's language. The grader never runs it
(it runs only a submission's ``exercise`` cells, with the course's own setup), so a
submission cannot change its grade there; the notebook's ``course_language`` metadata
names the language for tools.

A link to a file of the repository (``[…](../labs/lab_11_1_….ipynb)``, ``[…](../docs/rules.md#r19)``,
as the English cell and its translation write it) is written, in an edition, from the edition's
folder and to that language's own copy of the file when there is one (``../../labs/zh/lab_11_1_….ipynb``,
``../../docs/zh/rules.md#r19``), else to the English file (``../../docs/grading.md``): so a link works
wherever the Chinese notebook is opened in the repository's layout (JupyterLab, GitHub) and leads a
Chinese reader to the Chinese page (issue 45); the site resolves the same links from each page's
repository path (book/_ext/editions.py). The anchors are the same on both rules pages
(tests/test_citations.py). Only a link's target changes: its text, its fragment, inline code and
links to other hosts stay as the catalog gives them.
"""

from __future__ import annotations

import copy
import importlib
import os
import re
import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
from course_lib.teaching import i18n  # noqa: E402 - the languages the course ships

notebook_catalogs = importlib.import_module("notebook_catalogs")  # scripts/notebook_catalogs.py, beside this file

LANGUAGE_TAG = "course-language"
LANGUAGE_CELL_ID = "course-language"
LANGUAGE_METADATA = "course_language"
TRANSLATED = tuple(language for language in i18n.LANGUAGES if i18n.LOCALES[language] is not None)
"""The languages with catalogs: each gets an edition of every notebook whose catalog exists."""


LINK_TARGET = re.compile(
    r"(?P<before>\]\(\s*<?|^\s{0,3}\[[^\]]+\]:\s*<?|\bhref=[\"'])(?P<target>[^\s)>\"'#]+)(?P<fragment>#[^\s)>\"']*)?",
    re.MULTILINE,
)
"""Where a Markdown cell names a link's target: an inline link ``[…](target)``, a reference definition
``[…]: target`` or an HTML ``href="target"``, then its ``#fragment`` if it has one (kept as it is)."""


def rules_page(language: str, root: Path = ROOT) -> Path:
    """``docs/rules.md`` in English, ``docs/zh/rules.md`` in Chinese (course_lib.checklist.rules_page.PAGES)."""
    return root / "docs" / "rules.md" if language == i18n.DEFAULT else root / "docs" / language / "rules.md"


def relinked(text: str, folder: Path, language: str, root: Path = ROOT) -> str:
    """``text`` (a markdown cell of a notebook in ``folder``) with each link to a file of the repository written
    from the edition's folder (``folder/<language>``), to ``language``'s own copy of the file when it has one.

    A target counts when it names an existing file from the English notebook's folder (as the English cell does
    and its translation copies) or from the edition's own folder; anything else is left as it is.
    """
    edition_folder = folder / language

    def replace(match: re.Match[str]) -> str:
        target = match.group("target")
        if "://" in target or target.startswith(("/", "mailto:")):
            return match.group()
        named = next(
            (found for base in (folder, edition_folder) if (found := (base / target).resolve()).is_file()), None
        )
        if named is None:
            return match.group()
        new_target = Path(os.path.relpath(own_copy(named, language, root), edition_folder.resolve())).as_posix()
        return match.group("before") + new_target + (match.group("fragment") or "")

    return LINK_TARGET.sub(replace, text)


def own_copy(file: Path, language: str, root: Path = ROOT) -> Path:
    """``language``'s copy of a repository file (``labs/x.ipynb`` → ``labs/zh/x.ipynb``) when it exists, else ``file``."""
    root = root.resolve()
    if (
        not file.is_relative_to(root)
        or len(file.relative_to(root).parts) < 2
        or language in file.relative_to(root).parts
    ):
        return file
    copy = edition_path(file, language, root)
    return copy if copy.is_file() else file


class TranslationMissingError(ValueError):
    """A notebook's catalog lacks a markdown cell's translation (or holds only a fuzzy one)."""


def edition_path(english: Path, language: str, root: Path = ROOT) -> Path:
    """``labs/solutions/x.ipynb`` → ``labs/zh/solutions/x.ipynb``; ``notebooks/x.ipynb`` → ``notebooks/zh/x.ipynb``."""
    relative = english.relative_to(root)
    return root / relative.parts[0] / language / Path(*relative.parts[1:])


def language_cell(language: str) -> NotebookNode:
    """The first code cell of an edition: the kernel speaks ``language`` from here on."""
    source = f'from course_lib.teaching.i18n import use_language\n\nuse_language("{language}")'
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [LANGUAGE_TAG]})
    cell.id = f"{LANGUAGE_CELL_ID}-{language}"
    return cell


def has_catalog(source: Path, language: str) -> bool:
    return bool(notebook_catalogs.catalog_path(source.stem, language).is_file())


def edition(english: NotebookNode, source: Path, language: str) -> NotebookNode:
    """``english`` with every markdown cell translated and the language cell before its first code cell."""
    translations = notebook_catalogs.translated_cells(source.stem, language)
    path = notebook_catalogs.catalog_path(source.stem, language)
    catalog = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    translated = copy.deepcopy(english)
    for cell in translated.cells:
        if cell.cell_type != "markdown":
            continue
        english_text, translation = translations.get(cell.id, (None, ""))
        if english_text != cell.source:
            problem = (
                "no translation (or only a fuzzy one)" if english_text is None else "a translation of older English"
            )
            raise TranslationMissingError(
                f"{catalog}: {problem} of cell {cell.id!r}; "
                f"run `python scripts/notebook_catalogs.py {source.stem}` and translate it"
            )
        cell.source = relinked(translation, source.parent.parent, language)
    first_code = next((i for i, cell in enumerate(translated.cells) if cell.cell_type == "code"), len(translated.cells))
    translated.cells.insert(first_code, language_cell(language))
    translated.metadata[LANGUAGE_METADATA] = language
    return translated
