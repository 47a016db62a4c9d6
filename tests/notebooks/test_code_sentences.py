"""What the notebooks' own code cells say, in the reader's language (issue 32).

Both editions run the same code cells, so a line a cell prints or a table header it
writes is Chinese only through the notebook's catalog: the cell writes
``tr("English sentence {field}")`` (``course_lib.teaching.i18n.notebook_messages``) and
scripts/notebook_catalogs.py makes each such sentence a message of the catalog.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import jupytext
import pytest

from course_lib.teaching import i18n

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("notebook_catalogs", ROOT / "scripts" / "notebook_catalogs.py")
assert _spec and _spec.loader
catalogs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(catalogs)

SOURCES = catalogs.sources()
WORDS = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")
"""Two English words in a row: a sentence, not an identifier or a number."""


def _literal_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(part.value) for part in node.values if isinstance(part, ast.Constant))
    return None


@pytest.mark.parametrize("source", SOURCES, ids=[path.stem for path in SOURCES])
def test_no_code_cell_prints_an_english_sentence_past_the_catalog(source: Path) -> None:
    """A ``print`` of a literal sentence would stay English in the Chinese edition: it must go through ``tr``."""
    notebook = jupytext.read(source, fmt=catalogs.TEXT_FORMAT)
    untranslated = [
        f"cell {cell.metadata.get('id')}: {text!r}"
        for cell in notebook.cells
        if cell.cell_type == "code"
        for node in ast.walk(ast.parse(str(cell.source)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
        for argument in node.args
        if (text := _literal_text(argument)) and WORDS.search(text)
    ]
    assert not untranslated, f"{source.name} prints English past its catalog (write tr('…')): {untranslated}"


def test_the_catalog_holds_each_sentence_the_code_hands_to_tr(tmp_path: Path) -> None:
    source = tmp_path / "demo.py"
    source.write_text(
        '# %% id="a"\nprint(tr("{n} turns").format(n=3), tr("done"))\n\n# %% id="b"\nx = tr("done")\n', encoding="utf-8"
    )
    assert list(catalogs.code_messages(source)) == ["{n} turns", "done"]
    assert (None, "done") in list(catalogs.messages(source))


@pytest.mark.parametrize("call", ['tr(f"{n} turns")', "tr(name)", "tr()"])
def test_a_sentence_no_catalog_could_hold_is_refused_with_its_line(tmp_path: Path, call: str) -> None:
    source = tmp_path / "demo.py"
    source.write_text(f'# %% id="cell-7"\nname = "x"\nprint({call})\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"demo\.py, cell cell-7, line 2: tr\(\) takes a literal string"):
        list(catalogs.code_messages(source))


def test_a_notebook_finds_its_catalog_from_the_installed_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook saved to a folder of the learner's own (no ``locale`` anywhere above it) still speaks Chinese."""
    monkeypatch.chdir(tmp_path)
    tr = i18n.notebook_messages("02_lifecycle_capstone")
    assert tr("turns with a compaction: {turns}", "zh") == "发生压缩的轮次：{turns}"
    assert tr("{name} called {count} times", "en") == "{name} called {count} times"
    monkeypatch.setenv(i18n.ENVIRONMENT, "zh")
    assert tr("{name} called {count} times").format(name="find_cut_point", count=3) == "find_cut_point 被调用 3 次"
