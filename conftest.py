"""The whole test run (tests, notebooks, labs) keeps the session indexes it writes (``course_lib.reader.index``) in a
folder of its own, so no test reads or fills the user's cache; notebooks run by nbval
inherit it through the environment.

It makes the folder the run's pytest workers share (``corpus_verdicts``: the mutant corpus is graded once per run).
It also imports ``course_grader`` before any test module does: importing it keeps nbformat's
jsonschema from building a grammar nothing uses (3-4 s of every pytest worker's start, issue 31).
The package itself is lazy, so that import costs a few milliseconds. And a test module whose
every test the ``-m`` expression deselects is not imported at all (``pytest_ignore_collect``)."""

from __future__ import annotations

import ast
import atexit
import itertools
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression  # how pytest itself reads -m (no public name for it)
from corpus_verdicts import share_run_folder

import course_grader  # noqa: F401 - first, so that no test's nbformat builds rfc3987_syntax's grammar (see its __init__)
from course_lib.reader import CACHE_ENV

_INDEXES = tempfile.mkdtemp(prefix="course-lib-test-indexes-")
os.environ[CACHE_ENV] = _INDEXES
atexit.register(shutil.rmtree, _INDEXES, ignore_errors=True)

# The folder every pytest worker of this run shares (made here, before pytest-xdist starts the workers, which inherit
# it): the mutant corpus's verdicts are computed once in it (tests/corpus_verdicts.py).
share_run_folder(atexit.register)


# --- collecting only what the chosen marks can run --------------------------------------------

_WORDS = re.compile(r"[A-Za-z_][\w.]*")


def _module_marks(path: Path) -> set[str] | None:
    """The marks a test module's ``pytestmark = ...`` gives every test in it, read without importing it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return {
                value.attr
                for value in values
                if isinstance(value, ast.Attribute) and ast.unparse(value.value) == "pytest.mark"
            }
    return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave unimported a test module whose every test the ``-m`` expression deselects.

    Why: make check runs ``-m "not slow and not sandboxed"``, and every pytest worker imports
    every test module it collects before the marks deselect its tests; the sandboxed modules
    import the grader's kernel machinery, pandas and the like, for nothing. A module is left out
    only when its ``pytestmark`` marks, with any others a test in it adds, can never match the
    expression, so the tests that run are exactly the ones that would have run.
    """
    expression = config.option.markexpr
    if not expression or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    marks = _module_marks(collection_path)
    if not marks:
        return None
    compiled = Expression.compile(expression)
    free = sorted({word for word in _WORDS.findall(expression) if word not in {"and", "or", "not"}} - marks)
    for extra in itertools.chain.from_iterable(itertools.combinations(free, n) for n in range(len(free) + 1)):
        present = marks | set(extra)
        if compiled.evaluate(lambda name, /, present=present, **_: name in present):
            return None  # a test with these marks would run
    return True


# --- nbval: a translated edition's cells only where its code is its own ----------------------------------------


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave to the English notebook what a translated edition runs exactly as it does.

    An edition (``labs/zh/…``, ``notebooks/zh/…``; scripts/translated_notebooks.py) is its English notebook's cells
    with the prose from its catalog: ``tests/notebooks/test_translated_notebooks.py`` regenerates it from the English
    source and the catalog and compares every cell. Its code cells are the English ones, which nbval runs in the
    English notebook; nbval runs in an edition only the code cells that differ from the English notebook's (its
    first code cell, which sets the kernel's language), and the cells before them.
    """
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        if type(item).__name__ == "IPyNbCell" and "cell" in vars(item):
            by_file.setdefault(Path(item.path), []).append(item)
    deselected = [item for path, cells in by_file.items() for item in _english_cells(path, cells)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        dropped = set(map(id, deselected))
        items[:] = [item for item in items if id(item) not in dropped]


def _english_cells(edition: Path, cells: list[pytest.Item]) -> list[pytest.Item]:
    """The nbval items of ``edition`` after its last code cell that is not its English notebook's (none if it is no
    edition)."""
    import nbformat  # only when nbval collected a notebook

    language = nbformat.read(edition, as_version=4).metadata.get("course_language")
    parts = edition.resolve().relative_to(Path(__file__).resolve().parent).parts
    if not language or len(parts) < 3 or parts[1] != language:
        return []
    english = nbformat.read(Path(__file__).resolve().parent.joinpath(parts[0], *parts[2:]), as_version=4)
    theirs = {cell.get("id"): cell.source for cell in english.cells if cell.cell_type == "code"}
    own = [i for i, item in enumerate(cells) if theirs.get(vars(item)["cell"].get("id")) != vars(item)["cell"].source]
    return cells[own[-1] + 1 :] if own else cells
