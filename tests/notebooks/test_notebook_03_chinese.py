"""Notebook 03, section 4: what ``ceil(chars / 4)`` does to Chinese, measured in cells (issue 32).

The committed notebook shows the mixed sample counted three ways and the margin each rough
estimator needs; every figure is printed by a cell (and is the one the library computes now),
and the prose states none of them. A reader's own session is measured by its language: a
Chinese one beside the Chinese sample, never among the English samples (issue 45).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import nbformat
import pytest

from course_lib.estimators import CJK_TOKENS_PER_CHAR

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "03_your_own_session.ipynb"
SECTION = ("cjk-01", "cjk-02", "cjk-03", "cjk-04", "cjk-05", "cjk-06", "cjk-07", "cjk-08")


def _cells() -> dict[str, nbformat.NotebookNode]:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    return {cell.get("id"): cell for cell in notebook.cells}


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


def _shown(cell: nbformat.NotebookNode) -> str:
    return _printed(cell) + "".join(output["data"].get("text/plain", "") for output in cell.outputs if "data" in output)


def test_section_4_is_there_in_order() -> None:
    ids = [cell.get("id") for cell in nbformat.read(NOTEBOOK, as_version=4).cells]
    positions = [ids.index(cell_id) for cell_id in SECTION]
    assert positions == sorted(positions) and positions[-1] < ids.index("24998b9e")


def test_the_cells_print_the_calibration_the_library_computes() -> None:
    pytest.importorskip("tiktoken")
    from course_lib.importers.calibration import calibrate, totals

    printed = _printed(_cells()["cjk-02"])
    found = calibrate()
    assert f"pi-zh: {found.characters} CJK characters cost {found.tokens} BPE tokens" in printed
    assert f"charges a CJK character {float(CJK_TOKENS_PER_CHAR):.2f}" in printed
    table = _shown(_cells()["cjk-04"])
    whole = totals(found.source)
    row = next(line for line in table.splitlines() if "whole session" in line).split()
    assert row[row.index("session") + 1 :][:3] == [str(whole["chars/4"]), str(whole["cjk-aware"]), str(whole["bpe"])], (
        table
    )


def test_each_estimators_margin_and_the_english_one_are_printed() -> None:
    printed = _printed(_cells()["cjk-06"])
    margins = dict(re.findall(r"^(chars/4|cjk-aware): margin (\d+) tokens", printed, re.MULTILINE))
    assert set(margins) == {"chars/4", "cjk-aware"}, printed
    english = re.search(r"the English samples' margin \(section 3\): (\d+) tokens", printed)
    assert english and english.group(1) in _printed(_cells()["747ce86c"]), printed


def test_every_verdict_printed_is_its_rows_verdict() -> None:
    cell = _cells()["cjk-08"]
    lines = [line for line in _printed(cell).splitlines() if line.startswith(("chars/4,", "cjk-aware,"))]
    verdicts = re.findall(r"\b(True|False)\s*$", cell.outputs[-1]["data"]["text/plain"], re.MULTILINE)
    assert len(lines) == len(verdicts) == 4, (lines, verdicts)
    for line, fits in zip(lines, verdicts, strict=True):
        assert (" fits in " in line) == (fits == "True"), line


def test_the_prose_states_no_figure_the_cells_compute() -> None:
    """A number of three digits or more that section 4 shows appears in no markdown cell of the notebook."""
    cells = _cells()
    shown = {
        int(n)
        for cell_id in SECTION
        if cells[cell_id].cell_type == "code"
        for n in re.findall(r"\d{3,}", _shown(cells[cell_id]))
    }
    prose = "\n".join(cell.source for cell in cells.values() if cell.cell_type == "markdown")
    stated = {int(n) for n in re.findall(r"\d{3,}", prose)}
    assert not shown & stated, shown & stated


def test_the_english_costs_are_checked_unchanged_in_a_cell() -> None:
    printed = _printed(_cells()["cjk-04"])
    found = re.search(
        r"section 3's (\d+) messages: estimate_tokens_cjk gives ceil\(chars / 4\) on (\d+) of them", printed
    )
    assert found and found.group(1) == found.group(2) and int(found.group(1)) > 0, printed


@pytest.mark.slow
def test_a_readers_chinese_session_is_measured_beside_the_chinese_sample_only() -> None:
    """Notebook 03 run with ``SESSION_FILE`` set to a Chinese session: section 3's margin is the English samples'
    alone (the committed run's), section 4 measures the session, and no cell prints a raw table."""
    pytest.importorskip("tiktoken")
    from nbclient import NotebookClient
    from traitlets.config import Config

    from course_lib.importers import sample_path

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    setting = next(cell for cell in notebook.cells if cell.source.count("SESSION_FILE = None") == 1)
    setting.source = setting.source.replace(
        "SESSION_FILE = None", f"SESSION_FILE = {str(sample_path('pi', language='zh'))!r}"
    )
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:
        NotebookClient(
            notebook,
            config=Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}}),
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}},
        ).execute()
    ran = {cell.get("id"): cell for cell in notebook.cells}
    assert "your session holds " in _printed(ran["15d8bd33"]) and "section 4 measures it" in _printed(ran["15d8bd33"])
    assert "your session" not in _shown(ran["15d8bd33"]).replace("your session holds", "")
    assert _printed(ran["747ce86c"]) == _printed(_cells()["747ce86c"]), "section 3 counted the Chinese session"
    assert "your session: " in _printed(ran["cjk-02"])
    english = re.search(r"the English samples' margin \(section 3\): (\d+) tokens", _printed(ran["cjk-06"]))
    assert english and f"safety_margin = {english.group(1)}" in _printed(ran["747ce86c"])
    assert "No line was skipped." in _printed(ran["dbb088e4"])
    shown = {cell_id: _shown(cell) for cell_id, cell in ran.items() if cell.cell_type == "code"}
    assert [cell_id for cell_id, text in shown.items() if "Empty DataFrame" in text] == []
