"""Why a submission lost its points, read from its notebook: the notes that make a zero explain itself.

The grader runs only the cells tagged ``exercise`` (docs/grading.md), each on
its own, and a cell that times out is interrupted. A learner who put a helper
in a new untagged cell, lost the tags, or wrote the definition where it never
runs sees ``NameError`` or "not defined" and nothing about why. These notes
say where the code is and what to do.

Everything here reads the notebook's sources with ``ast`` in the grader's
process, never runs them. Sources are the submission's, so each is bounded
(``MAX_SOURCE``) and any failure to parse one only means no note from it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from nbformat import NotebookNode

from ..intake.cells import CHECKLIST_TAG, EXERCISE_TAG, tags
from ..safe_text import valid
from ..sandbox.cell_run import CellRun

MAX_SOURCE = 200_000
"""Characters of one cell that are parsed; a longer cell gives no note."""
MAX_NAME_NOTES = 5
"""At most this many names are explained: the notes must stay short whatever the kernel reported."""
HOW_TO_TAG = "View → Cell Toolbar → Tags in Jupyter Notebook, the property inspector in JupyterLab"
_NAME_ERROR = re.compile(r"NameError: name '([A-Za-z_]\w{0,99})' is not defined")
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


_BLOCKS: dict[type[ast.stmt], str] = {
    ast.If: "an `if` block",
    ast.For: "a `for` loop",
    ast.AsyncFor: "a `for` loop",
    ast.While: "a `while` loop",
    ast.With: "a `with` block",
    ast.AsyncWith: "a `with` block",
    ast.Try: "a `try` block",
    ast.Match: "a `match` block",
}


def _walk(body: Iterable[ast.stmt], inside: str | None) -> Iterator[Definition]:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield Definition(node.name, node.lineno, inside)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from (
                    Definition(d.name, d.line, f"the function `{node.name}`")
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
            block = next((label for kind, label in _BLOCKS.items() if isinstance(node, kind)), None)
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


# --- the notes ---------------------------------------------------------------------


def no_exercise_cells(cells: Sequence[CodeCell]) -> str | None:
    if any(cell.exercise is not None for cell in cells):
        return None
    return (
        f"no cell is tagged `exercise`: the grader runs only cells tagged `exercise`, so none of your code ran; "
        f"tag each cell holding your solution `exercise` ({HOW_TO_TAG})"
    )


def exercise_notes(exercises: Sequence[CellRun], after: CellRun | None, timeout: float) -> list[str]:
    """One note per exercise cell that did not end normally.

    A cell over the time limit is interrupted and grading goes on: what it had
    defined by then is graded (docs/grading.md). A cell that ignored the
    interrupt took its kernel with it, and the note says that nothing was graded.
    """
    notes: list[str] = []
    for number, cell in enumerate(exercises, start=1):
        if cell.status == "ok" or cell.status == "skipped":
            continue
        if cell.status == "timeout":
            following = exercises[number] if number < len(exercises) else after
            if following is not None and following.status == "skipped":
                notes.append(
                    f"exercise cell {number} ran longer than {timeout:g} s and did not stop when "
                    f"interrupted, so its kernel was stopped and nothing could be graded"
                )
            else:
                notes.append(
                    f"exercise cell {number} ran longer than {timeout:g} s and was interrupted; "
                    f"the functions it had defined by then were graded"
                )
        else:
            notes.append(f"exercise cell {number}: {cell.error}")
    return notes


def missing_names(texts: Iterable[str]) -> list[str]:
    """Names a ``NameError`` in the exercise cells, checks or hidden calls reported, in order, each once."""
    found: list[str] = []
    for text in texts:
        for name in _NAME_ERROR.findall(text[:2000]):
            if name not in found:
                found.append(name)
    return found


def where_defined(names: Iterable[str], cells: Sequence[CodeCell], exercises: Sequence[CellRun]) -> list[str]:
    """For each name the grader found undefined: where the notebook does define it, and why that never ran.

    In an untagged cell (not run at all), inside a block that did not run, or
    after the point where its exercise cell stopped. A name the notebook does
    not define anywhere gets no note here (the test output says it is missing).
    """
    parsed = [(cell, cell.definitions()) for cell in cells]
    untagged: dict[int, list[str]] = {}
    notes: list[str] = []
    for name in list(dict.fromkeys(names))[:MAX_NAME_NOTES]:
        found = [(cell, d) for cell, ds in parsed for d in ds if d.name == name]
        tagged = [(cell, d) for cell, d in found if cell.exercise is not None]
        if tagged:
            note = _not_reached(name, tagged, exercises)
            if note:
                notes.append(note)
        elif found:
            untagged.setdefault(found[0][0].position, []).append(name)
    by_position = {cell.position: cell for cell in cells}
    notes += [untagged_note(by_position[position], defined) for position, defined in untagged.items()]
    return notes


def untagged_note(cell: CodeCell, names: Sequence[str], graded: str = "", fix: str = "") -> str:
    """The note for code the grader never ran because its cell is not tagged ``exercise``, with the fix."""
    listed = " and ".join(f"`{name}`" for name in names)
    verb = "is" if len(names) == 1 else "are"
    fix = fix or f"tag that cell `exercise` ({HOW_TO_TAG}) or move the code into an exercise cell"
    return (
        f"{listed} {verb} defined in an untagged cell {cell.position} (`{cell.first_line}`){graded}; the grader runs "
        f"only cells tagged `exercise` — {fix}"
    )


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


def stub_graded(cells: Sequence[CodeCell], functions: Sequence[str], unimplemented: bool) -> list[str]:
    """A function whose exercise cell holds only its stub, while an untagged cell defines it for real.

    The learner's own notebook ran that untagged cell after the stub, so its
    checklist passed; the grader runs only exercise cells, so it graded the stub.
    A stub is read from the source (``functions_of``), or, for the lab's functions, from
    the run (``unimplemented``: a check or call raised ``NotImplementedError``).
    """
    graded: dict[str, CodeCell] = {}
    stubbed: set[str] = set()
    for cell in cells:
        if cell.exercise is None:
            continue
        for name in {d.name for d in cell.definitions() if d.inside is None}:
            graded[name] = cell
            stubbed.discard(name)
        stubbed |= {name for name, stub in functions_of(cell.source).items() if stub}
    if unimplemented:
        stubbed |= {name for name in functions if name in graded}
    untagged: dict[int, list[str]] = {}
    for name in sorted(stubbed, key=lambda n: (n not in functions, n)):
        real = [cell for cell in cells if cell.exercise is None and functions_of(cell.source).get(name) is False]
        if real:
            untagged.setdefault(real[-1].position, []).append(name)  # the last one: what the learner's run kept
    by_position = {cell.position: cell for cell in cells}
    notes = []
    for position, names in untagged.items():
        cell, stub = by_position[position], graded[names[0]]
        what = "the stub" if len(names) == 1 else "the stubs"
        fix = (
            ""
            if position > stub.position
            else f"move the code into exercise cell {stub.exercise} in place of {what} (tagged where it is, "
            f"it would run before {what} and be replaced)"
        )
        notes.append(
            untagged_note(
                cell,
                names,
                f", but the grader ran only {what} in exercise cell {stub.exercise} (cell {stub.position})",
                fix,
            )
        )
    return notes


def _not_reached(name: str, tagged: Sequence[tuple[CodeCell, Definition]], exercises: Sequence[CellRun]) -> str | None:
    cell, definition = next(((c, d) for c, d in tagged if d.inside is None), tagged[0])
    number = cell.exercise or 0
    run = exercises[number - 1] if 0 < number <= len(exercises) else None
    where = f"line {definition.line} of exercise cell {number}"
    if run is not None and run.status == "error" and run.ename == "SyntaxError":
        return f"`{name}` is defined at {where}, but that cell has a syntax error, so none of it ran ({run.error})"
    if run is not None and run.status not in ("ok", "skipped") and definition.inside is None:
        return f"`{name}` is defined at {where}, but that cell stopped before reaching it ({run.error})"
    if definition.inside is not None:
        return (
            f"`{name}` is defined inside {definition.inside} at {where}, which did not define it when the cell ran; "
            f"define it at the top level of the cell"
        )
    return None


def explain(
    notebook: NotebookNode | None,
    exercises: Sequence[CellRun],
    functions: Sequence[str],
    defined: Mapping[str, object],
    errors: Iterable[str],
    *,
    unimplemented: bool = False,
) -> list[str]:
    """The notes for one graded submission: no exercise cell, where each missing name sits, a stub graded.

    ``defined`` is the kernel's answer to which of the lab's ``functions``
    exist after the exercise cells (``{}`` when it gave none); ``errors`` are
    the messages of the exercise cells, checks and hidden calls, read for ``NameError``;
    ``unimplemented``: a check or call of the lab's function raised ``NotImplementedError``.
    """
    if notebook is None:
        return []
    cells = code_cells(notebook)
    notes = [note for note in [no_exercise_cells(cells)] if note]
    missing = [name for name in functions if defined and defined.get(name) is not True]
    notes += where_defined([*missing, *missing_names(errors)], cells, exercises)
    if defined and all(defined.get(name) is True for name in functions):
        notes += stub_graded(cells, functions, unimplemented)
    return notes
