"""Every link of every committed notebook, in both editions, works where the notebook sits (issue 45).

A notebook is opened from the repository's layout (JupyterLab, a hub's clone, GitHub), so a
relative link must name a file that exists from the notebook's own folder, and a Chinese
notebook's link leads to the Chinese copy of its target when there is one (``labs/zh/…``, not
the English lab). The site resolves the same links from each page's repository path
(book/_ext/editions.py); tests/browser/test_book_browser.py follows every link of both built
editions.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("translated_notebooks", ROOT / "scripts" / "translated_notebooks.py")
assert _spec and _spec.loader
editions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(editions)
NOTEBOOKS = sorted(p for folder in ("labs", "notebooks") for p in (ROOT / folder).rglob("*.ipynb"))


def _links(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    markdown = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]
    return [match.group("target") for text in markdown for match in editions.LINK_TARGET.finditer(text)]


def _relative(target: str) -> bool:
    return "://" not in target and not target.startswith(("/", "mailto:"))


def test_the_notebooks_hold_links_to_check() -> None:
    assert len(NOTEBOOKS) >= 20
    start_here = ROOT / "notebooks" / "zh" / "00_start_here.ipynb"
    assert len(_links(start_here)) >= 7, "the Chinese start page links no lab: nothing tested"  # every lab, the rules


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.relative_to(ROOT).as_posix() for n in NOTEBOOKS])
def test_every_relative_link_names_a_file_from_the_notebooks_folder(notebook: Path) -> None:
    language = next((part for part in notebook.relative_to(ROOT).parts if part in editions.TRANSLATED), None)
    broken, english = [], []
    for target in filter(_relative, _links(notebook)):
        file = (notebook.parent / target).resolve()
        if not file.is_file():
            broken.append(target)
        elif language and editions.own_copy(file, language) != file:
            english.append(target)  # the edition's own copy exists, and the link skips it
    assert broken == [], f"{notebook.relative_to(ROOT)}: links to no file"
    assert english == [], f"{notebook.relative_to(ROOT)}: links the English page where a {language} one exists"


def test_an_editions_link_is_written_from_its_folder_to_its_own_copy() -> None:
    labs = ROOT / "notebooks"
    assert editions.relinked("[Lab 11.1](../labs/lab_11_1_compaction_record.ipynb)", labs, "zh") == (
        "[Lab 11.1](../../labs/zh/lab_11_1_compaction_record.ipynb)"
    )
    assert editions.relinked("[capstone](02_lifecycle_capstone.ipynb#top)", labs, "zh") == (
        "[capstone](02_lifecycle_capstone.ipynb#top)"  # notebooks/zh/02_… sits beside it
    )
    assert editions.relinked("[grading](../docs/grading.md)", labs, "zh") == "[grading](../../docs/grading.md)"
    assert editions.relinked("[none](../labs/no_such_lab.ipynb)", labs, "zh") == "[none](../labs/no_such_lab.ipynb)"
