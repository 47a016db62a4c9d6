"""A submission's code cells and the names each binds, read from its sources with ``ast``, never run.

What ``diagnose`` explains a zero by: which cell defines a name, inside which
block, and whether a function is only the lab's stub. Sources are the
submission's, so each is bounded (``MAX_SOURCE``) and any failure to parse one
only means nothing read from it. A block's kind is kept in English, marked for
the catalog (``BLOCKS``), and said in the run's language where a note names it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from nbformat import NotebookNode

from course_lib.teaching.i18n import message

from ..intake.cells import CHECKLIST_TAG, EXERCISE_TAG, tags
from ..safe_text import valid

MAX_SOURCE = 200_000
"""Characters of one cell that are parsed; a longer cell gives no note."""
_MAGIC = re.compile(r"^\s*[%!].*$", re.MULTILINE)


@dataclass(frozen=True)
class Definition:
    """A name a cell binds at module level: where, and inside which block (``None``: the cell's top level)."""

    name: str
    line: int
    inside: str | None = None


@dataclass(frozen=True)
class CodeCell:
    """A code cell of the submission: its place in the notebook, counted from 1 with every cell."""

    position: int
    source: str
    exercise: int | None
    """Its number among the exercise cells (as the grader's notes count them), ``None`` when untagged."""

    @property
    def first_line(self) -> str:
        line = next((text.strip() for text in self.source.splitlines() if text.strip()), "")
        return line if len(line) <= 60 else line[:59] + "…"

    def definitions(self) -> tuple[Definition, ...]:
        return definitions(self.source)


def code_cells(notebook: NotebookNode) -> list[CodeCell]:
    """The submission's code cells, checklist cells left out, numbered as a learner and the grader's notes count them."""
    cells: list[CodeCell] = []
    exercise = 0
    for position, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "code" or CHECKLIST_TAG in tags(cell):
            continue
        source = cell.get("source", "")
        source = source if isinstance(source, str) else "".join(map(str, source))
        if EXERCISE_TAG in tags(cell):
            exercise += 1
            cells.append(CodeCell(position, source, exercise))
        else:
            cells.append(CodeCell(position, source, None))
    return cells


def definitions(source: str) -> tuple[Definition, ...]:
    """Every name the cell binds outside a function body: defs, classes, assignments, imports."""
    if len(source) > MAX_SOURCE:
        return ()
    try:
        tree = ast.parse(_MAGIC.sub("", valid(source)))  # a lone surrogate (JSON allows it) must not hide the cell
    except SyntaxError:
        return _top_level_lines(source)
    except (ValueError, RecursionError, MemoryError):
        return ()
    return tuple(_walk(tree.body, None))


_TOP_LEVEL = re.compile(r"^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")


def _top_level_lines(source: str) -> tuple[Definition, ...]:
    """A cell that does not parse: its ``def`` and ``class`` lines at column 0, so a syntax error can say what it hid."""
    return tuple(
        Definition(match.group(1), number)
        for number, line in enumerate(source.splitlines(), start=1)
        if (match := _TOP_LEVEL.match(line))
    )


BLOCKS: dict[type[ast.stmt], str] = {
    ast.If: message("an `if` block"),
    ast.For: message("a `for` loop"),
    ast.AsyncFor: message("a `for` loop"),
    ast.While: message("a `while` loop"),
    ast.With: message("a `with` block"),
    ast.AsyncWith: message("a `with` block"),
    ast.Try: message("a `try` block"),
    ast.Match: message("a `match` block"),
}
"""The blocks a definition may sit in, said in a note (``Definition.inside``: the English, translated when said)."""
INSIDE_FUNCTION = message("the function `{name}`")


def _walk(body: Iterable[ast.stmt], inside: str | None) -> Iterator[Definition]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield Definition(node.name, node.lineno, inside)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from (
                    Definition(d.name, d.line, INSIDE_FUNCTION.format(name=node.name))
                    for d in _walk(node.body, None)
                    if d.inside is None
                )
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    yield Definition((alias.asname or alias.name).split(".")[0], node.lineno, inside)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield Definition(name.id, node.lineno, inside)
        else:
            block = next((label for kind, label in BLOCKS.items() if isinstance(node, kind)), None)
            if block is None:
                continue
            if isinstance(node, ast.Match):
                children = [statement for case in node.cases for statement in case.body]
            else:
                children = [
                    *getattr(node, "body", []),
                    *getattr(node, "orelse", []),
                    *getattr(node, "finalbody", []),
                    *(statement for handler in getattr(node, "handlers", []) for statement in handler.body),
                ]
            yield from _walk(children, inside or block)


def functions_of(source: str) -> dict[str, bool]:
    """The functions a cell defines at its top level, each with whether it is only a stub (the last definition wins).

    A stub's body does nothing but raise ``NotImplementedError`` (or pass): the
    lab's own ``raise NotImplementedError("Lab 11.3 not implemented yet: …")``,
    a docstring and comments aside.
    """
    if len(source) > MAX_SOURCE:
        return {}
    try:
        tree = ast.parse(_MAGIC.sub("", valid(source)))  # a lone surrogate (JSON allows it) must not hide the cell
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return {
        node.name: all(map(_does_nothing, node.body))
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _does_nothing(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
    ):
        return True
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False
