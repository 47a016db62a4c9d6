"""A Chinese lab speaks Chinese wherever it is opened: its catalogs come with the package (issue 45).

A notebook saved from the site or JupyterLab runs in a folder of the learner's own, with no ``locale``
folder anywhere above it. The Chinese Lab 11.2 (the lab whose own lines turned English there) is run
in such a folder, and nothing it prints (its tables, its comparisons, its checklist) may be English
prose (tests/latin_prose.py says what may stay Latin).
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

pytestmark = pytest.mark.slow  # starts a Jupyter kernel and runs a whole lab

ROOT = Path(__file__).resolve().parents[2]


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


HEADER = re.compile(r"<thead>(.*?)</thead>", re.DOTALL)
HEADER_CELL = re.compile(r"<th[^>]*>(.*?)</th>", re.DOTALL)


def _shown(cell: nbformat.NotebookNode) -> list[str]:
    """The lines a cell prints, and each table's headers (its rows are the sessions' own texts and the lab's ids)."""
    lines = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            lines.extend(output["text"].splitlines())
        elif "data" in output:
            for header in HEADER.findall(output["data"].get("text/html", "")):
                lines.extend(html.unescape(text) for text in HEADER_CELL.findall(header) if text)
            if "text/html" not in output["data"]:
                lines.extend(output["data"].get("text/plain", "").splitlines())
    return lines


def test_a_chinese_lab_run_outside_the_repository_prints_no_english_line(tmp_path: Path) -> None:
    assert not any(parent.joinpath("locale").exists() for parent in (tmp_path, *tmp_path.parents))
    notebook = _run(ROOT / "labs" / "zh" / "solutions" / "lab_11_2_group_interactions.ipynb", tmp_path)
    english = {
        line: found
        for cell in notebook.cells
        if cell.cell_type == "code"
        for line in _shown(cell)
        if (found := english_sentences(line))
    }
    assert not english, english
