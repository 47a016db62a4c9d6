"""Why a submission lost its points, read from its notebook: the notes that make a zero explain itself.

The grader runs only the cells tagged ``exercise`` (docs/grading.md), each on
its own, and a cell that times out is interrupted. A learner who put a helper
in a new untagged cell, lost the tags, or wrote the definition where it never
runs sees ``NameError`` or "not defined" and nothing about why. These notes
say where the code is and what to do.

Everything here reads the notebook's sources (``code_cells``: with ``ast`` in
the grader's process, never run). The notes are said in the run's language
(``MESSAGES``; issue 32); names, code and cell numbers stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from nbformat import NotebookNode

from course_lib.teaching import i18n
from course_lib.teaching.i18n import message

from ..messages import MESSAGES
from ..sandbox.cell_run import CellRun
from .code_cells import BLOCKS, INSIDE_FUNCTION, MAX_SOURCE, CodeCell, Definition, code_cells, definitions, functions_of

__all__ = [
    "MAX_NAME_NOTES",
    "MAX_SOURCE",
    "HOW_TO_TAG",
    "CodeCell",
    "Definition",
    "code_cells",
    "definitions",
    "functions_of",
    "no_exercise_cells",
    "exercise_notes",
    "missing_names",
    "where_defined",
    "untagged_note",
    "stub_graded",
    "explain",
]

MAX_NAME_NOTES = 5
"""At most this many names are explained: the notes must stay short whatever the kernel reported."""
HOW_TO_TAG = message("View → Cell Toolbar → Tags in Jupyter Notebook, the property inspector in JupyterLab")
_NAME_ERROR = re.compile(r"NameError: name '([A-Za-z_]\w{0,99})' is not defined")


def no_exercise_cells(cells: Sequence[CodeCell], language: str = i18n.DEFAULT) -> str | None:
    if any(cell.exercise is not None for cell in cells):
        return None
    said = MESSAGES(
        "no cell is tagged `exercise`: the grader runs only cells tagged `exercise`, so none of your code ran; "
        "tag each cell holding your solution `exercise` ({how})",
        language,
    )
    return said.format(how=MESSAGES(HOW_TO_TAG, language))


def exercise_notes(
    exercises: Sequence[CellRun], after: CellRun | None, timeout: float, language: str = i18n.DEFAULT
) -> list[str]:
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
                said = MESSAGES(
                    "exercise cell {number} ran longer than {seconds} s and did not stop when "
                    "interrupted, so its kernel was stopped and nothing could be graded",
                    language,
                )
            else:
                said = MESSAGES(
                    "exercise cell {number} ran longer than {seconds} s and was interrupted; "
                    "the functions it had defined by then were graded",
                    language,
                )
            notes.append(said.format(number=number, seconds=f"{timeout:g}"))
        else:
            notes.append(MESSAGES("exercise cell {number}: {error}", language).format(number=number, error=cell.error))
    return notes


def missing_names(texts: Iterable[str]) -> list[str]:
    """Names a ``NameError`` in the exercise cells, checks or hidden calls reported, in order, each once."""
    found: list[str] = []
    for text in texts:
        for name in _NAME_ERROR.findall(text[:2000]):
            if name not in found:
                found.append(name)
    return found


def where_defined(
    names: Iterable[str], cells: Sequence[CodeCell], exercises: Sequence[CellRun], language: str = i18n.DEFAULT
) -> list[str]:
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
            note = _not_reached(name, tagged, exercises, language)
            if note:
                notes.append(note)
        elif found:
            untagged.setdefault(found[0][0].position, []).append(name)
    by_position = {cell.position: cell for cell in cells}
    notes += [
        untagged_note(by_position[position], defined, language=language) for position, defined in untagged.items()
    ]
    return notes


def untagged_note(
    cell: CodeCell, names: Sequence[str], graded: str = "", fix: str = "", language: str = i18n.DEFAULT
) -> str:
    """The note for code the grader never ran because its cell is not tagged ``exercise``, with the fix."""
    listed = MESSAGES(" and ", language).join(f"`{name}`" for name in names)
    fix = fix or MESSAGES("tag that cell `exercise` ({how}) or move the code into an exercise cell", language).format(
        how=MESSAGES(HOW_TO_TAG, language)
    )
    said = MESSAGES(
        message(
            "{names} is defined in an untagged cell {position} (`{line}`){graded}; the grader runs "
            "only cells tagged `exercise` — {fix}"
        )
        if len(names) == 1
        else message(
            "{names} are defined in an untagged cell {position} (`{line}`){graded}; the grader runs "
            "only cells tagged `exercise` — {fix}"
        ),
        language,
    )
    return said.format(names=listed, position=cell.position, line=cell.first_line, graded=graded, fix=fix)


def stub_graded(
    cells: Sequence[CodeCell], functions: Sequence[str], unimplemented: bool, language: str = i18n.DEFAULT
) -> list[str]:
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
        one = len(names) == 1
        fix = ""
        if position <= stub.position:
            fix = MESSAGES(
                message(
                    "move the code into exercise cell {exercise} in place of the stub (tagged where it is, "
                    "it would run before the stub and be replaced)"
                )
                if one
                else message(
                    "move the code into exercise cell {exercise} in place of the stubs (tagged where it is, "
                    "it would run before the stubs and be replaced)"
                ),
                language,
            ).format(exercise=stub.exercise)
        ran = MESSAGES(
            message(", but the grader ran only the stub in exercise cell {exercise} (cell {position})")
            if one
            else message(", but the grader ran only the stubs in exercise cell {exercise} (cell {position})"),
            language,
        ).format(exercise=stub.exercise, position=stub.position)
        notes.append(untagged_note(cell, names, ran, fix, language))
    return notes


def _not_reached(
    name: str, tagged: Sequence[tuple[CodeCell, Definition]], exercises: Sequence[CellRun], language: str
) -> str | None:
    cell, definition = next(((c, d) for c, d in tagged if d.inside is None), tagged[0])
    number = cell.exercise or 0
    run = exercises[number - 1] if 0 < number <= len(exercises) else None
    where = MESSAGES("line {line} of exercise cell {number}", language).format(line=definition.line, number=number)
    said = {"name": name, "where": where, "error": run.error if run is not None else ""}
    if run is not None and run.status == "error" and run.ename == "SyntaxError":
        return MESSAGES(
            "`{name}` is defined at {where}, but that cell has a syntax error, so none of it ran ({error})", language
        ).format_map(said)
    if run is not None and run.status not in ("ok", "skipped") and definition.inside is None:
        return MESSAGES(
            "`{name}` is defined at {where}, but that cell stopped before reaching it ({error})", language
        ).format_map(said)
    if definition.inside is not None:
        return MESSAGES(
            "`{name}` is defined inside {inside} at {where}, which did not define it when the cell ran; "
            "define it at the top level of the cell",
            language,
        ).format(inside=_inside(definition.inside, language), **said)
    return None


def _inside(block: str, language: str) -> str:
    """``Definition.inside`` said in ``language``: a block's kind, or the function it sits in (its name kept)."""
    if block in BLOCKS.values():
        return MESSAGES(block, language)
    prefix, _, suffix = INSIDE_FUNCTION.partition("{name}")
    return MESSAGES(INSIDE_FUNCTION, language).format(name=block.removeprefix(prefix).removesuffix(suffix))


def explain(
    notebook: NotebookNode | None,
    exercises: Sequence[CellRun],
    functions: Sequence[str],
    defined: Mapping[str, object],
    errors: Iterable[str],
    *,
    unimplemented: bool = False,
    language: str = i18n.DEFAULT,
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
    notes = [note for note in [no_exercise_cells(cells, language)] if note]
    missing = [name for name in functions if defined and defined.get(name) is not True]
    notes += where_defined([*missing, *missing_names(errors)], cells, exercises, language)
    if defined and all(defined.get(name) is True for name in functions):
        notes += stub_graded(cells, functions, unimplemented, language)
    return notes
