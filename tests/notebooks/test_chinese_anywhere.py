"""A Chinese lab speaks Chinese wherever it is opened: its catalogs come with the package (issue 45).

A notebook saved from the site or JupyterLab runs in a folder of the learner's own, with no ``locale``
folder anywhere above it. Each Chinese lab (Lab 11.2's own lines turned English there) is run in such a
folder, and nothing it prints (its comparisons, its checklist, its tables' headers) may be English prose
(tests/latin_prose.py says what may stay Latin; a table's rows are the sessions' own texts and the labs' ids).
"""

from __future__ import annotations

import html
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from latin_prose import english_sentences

from course_lib.teaching.glossary import TERMS

pytestmark = pytest.mark.slow  # starts a Jupyter kernel and runs a whole lab

ROOT = Path(__file__).resolve().parents[2]
HEADER = re.compile(r"<thead>(.*?)</thead>", re.DOTALL)
HEADER_CELL = re.compile(r"<th[^>]*>(.*?)</th>", re.DOTALL)
CODE_HEADERS = {"ok", "reason", "system", "messages", "total"} | {term.chinese for term in TERMS}
"""Headers that are code's names or words the chapter keeps in English: the ✅/❌ column the labs' helpers key on,
a result's fields and R22's wire keys, and the glossary's terms as the Chinese edition writes them (``entry``)."""
SESSION_TEXTS = {"lab11-5-06"}
"""Cells that print a session's own text (Lab 11.5's summary message: the course's fixed format, R18)."""
HAN = re.compile(r"[\u4e00-\u9fff]")
WORDS = re.compile(r"[a-z]+(?: [a-z]+)*")
"""A header in plain English words (a code name has an underscore, a dot, a digit or a capital inside)."""


def _run(notebook_path: Path, folder: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient
    from traitlets.config import Config

    copy = folder / notebook_path.name
    shutil.copyfile(notebook_path, copy)
    notebook = nbformat.read(copy, as_version=4)
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:
        config = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
        NotebookClient(
            notebook, config=config, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
        ).execute()
    return notebook


def _english(cell: nbformat.NotebookNode) -> list[str]:
    """The English a cell shows: prose in the lines it prints, and each table header in plain English words."""
    found = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            found += [run for line in output["text"].splitlines() for run in english_sentences(line)]
            continue
        data = output.get("data", {})
        for header in HEADER.findall(data.get("text/html", "")):
            texts = [html.unescape(text).strip() for text in HEADER_CELL.findall(header)]
            found += [text for text in texts if WORDS.fullmatch(text) and text not in CODE_HEADERS]
        if "text/html" not in data:
            found += [run for line in data.get("text/plain", "").splitlines() for run in english_sentences(line)]
    return found


@pytest.mark.parametrize("lab", sorted(path.name for path in (ROOT / "labs" / "zh" / "solutions").glob("*.ipynb")))
def test_a_chinese_lab_run_outside_the_repository_prints_no_english_line(tmp_path: Path, lab: str) -> None:
    assert not any(parent.joinpath("locale").exists() for parent in (tmp_path, *tmp_path.parents))
    notebook = _run(ROOT / "labs" / "zh" / "solutions" / lab, tmp_path)
    english = {
        cell.get("id"): found
        for cell in notebook.cells
        if cell.get("id") not in SESSION_TEXTS and (found := _english(cell))
    }
    assert not english, english


def test_an_english_lab_on_a_chinese_machine_prints_no_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other half of "a notebook never mixes languages": the kernel inherits a Chinese locale, and the English
    edition (no language cell) still says every line in English, the checklist's included."""
    monkeypatch.delenv("COURSE_LANG", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    notebook = _run(ROOT / "labs" / "solutions" / "lab_11_2_group_interactions.ipynb", tmp_path)
    printed = [
        text
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        for text in (output.get("text", ""), *output.get("data", {}).values())
        if isinstance(text, str)
    ]
    assert printed and not [text for text in printed if HAN.search(text)], [t for t in printed if HAN.search(t)]
