"""Grade a folder of submissions in parallel and write one CSV row per submission.

Each submission runs in its own sandboxed kernel; ``jobs`` worker processes
grade several at once. Every notebook found gets a row, and so does every
folder that could not be read: one bad submission (or a grader bug) becomes a
row with status ``error``, never a stopped or silently shorter batch.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from .. import labs
from .grade import GradeOptions, grade_notebook, lab_view
from .notebook import student_id
from .results import GradeResult, write_atomically


def find_submissions(folder: str | Path, unreadable: list[Path] | None = None) -> list[Path]:
    """Every ``.ipynb`` under ``folder`` (Jupyter's checkpoints excluded), in a stable order.

    Folders that cannot be listed are added to ``unreadable`` (when given), so
    the batch can report them instead of silently grading fewer students.
    """
    found: list[Path] = []

    def refused(error: OSError) -> None:
        if unreadable is not None:
            unreadable.append(Path(error.filename or folder))

    for current, folders, files in os.walk(folder, onerror=refused):
        folders[:] = sorted(name for name in folders if name != ".ipynb_checkpoints")
        found.extend(Path(current) / name for name in files if name.endswith(".ipynb"))
    return sorted(found)


def _grade_safely(path: Path, options: GradeOptions, root: str) -> GradeResult:
    try:
        return grade_notebook(path, options, root=root)
    except BaseException as exc:  # noqa: BLE001 - even a grader bug becomes one row, not a stopped batch
        return _crashed(path, student_id(path, root), f"{type(exc).__name__}: {exc}")


def _crashed(path: Path, student: str, why: str) -> GradeResult:
    return GradeResult(submission=path.name, student=student, lab=None, status="error", notes=(f"grading crashed: {why}",))


def grade_folder(
    folder: str | Path,
    options: GradeOptions = GradeOptions(),
    *,
    jobs: int = 1,
    progress: bool = True,
) -> list[GradeResult]:
    """Grade every submission under ``folder``: the notebooks in ``find_submissions`` order, then a row per unreadable folder."""
    unreadable: list[Path] = []
    paths = find_submissions(folder, unreadable)
    students = [student_id(path, folder) for path in paths]
    with tempfile.TemporaryDirectory(prefix="course-grade-views-") as views:
        options = replace(options, views=options.views or views)
        for lab in labs.LABS:  # built once, before the workers start: they share one copy of each lab's view
            lab_view(lab, options.views)
        results = _grade_all(paths, students, str(folder), options, jobs, progress)
    return results + [_crashed(path, student_id(path, folder) if path != Path(folder) else path.name,
                               f"the folder {path} could not be read") for path in unreadable]


def _grade_all(paths: list[Path], students: list[str], root: str, options: GradeOptions, jobs: int,
               progress: bool) -> list[GradeResult]:
    bar = tqdm(total=len(paths), desc="grading", unit="notebook", disable=not progress)
    results: dict[int, GradeResult] = {}

    def done(index: int, result: GradeResult) -> None:
        results[index] = result
        bar.update()
        bar.set_postfix_str(f"{result.student}: {result.status}", refresh=False)

    with bar:
        if jobs <= 1:
            for index, path in enumerate(paths):
                done(index, _grade_safely(path, options, root))
        else:
            pending = list(range(len(paths)))
            for _attempt in range(2):  # a worker that died takes its pool with it: retry the rest once
                pending = _in_pool(pending, paths, root, options, jobs, done)
                if not pending:
                    break
            for index in pending:
                done(index, _crashed(paths[index], students[index], "the grading worker died"))
    return [results[index] for index in range(len(paths))]


def _in_pool(
    indexes: Iterable[int], paths: list[Path], root: str, options: GradeOptions, jobs: int,
    done: Callable[[int, GradeResult], None],
) -> list[int]:
    """Grade ``indexes`` in a fresh pool; returns the ones lost to a broken pool."""
    lost: list[int] = []
    context = multiprocessing.get_context("spawn")  # no fork of a process that holds kernel threads
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures: dict[Future[GradeResult], int] = {
            pool.submit(_grade_safely, paths[i], options, root): i for i in indexes
        }
        for future in as_completed(futures):
            index = futures[future]
            try:
                done(index, future.result())
            except BrokenProcessPool:
                lost.append(index)
    return lost


def results_frame(results: Iterable[GradeResult]) -> pd.DataFrame:
    """One row per submission: student, lab, a score column per test, total, percent, status, notes."""
    rows: list[dict[str, Any]] = []
    test_columns: list[str] = []
    for result in results:
        row: dict[str, Any] = {"student": result.student, "student_from": result.student_source,
                               "file": result.submission, "lab": result.lab}
        for test in result.tests:
            column = f"{test.lab} {test.number} {test.name}"
            if column not in test_columns:
                test_columns.append(column)
            row[column] = test.score
        row |= {
            "total": result.score, "max_score": result.max_score, "percent": result.percent,
            "status": result.status, "seconds": round(result.execution_time, 1), "budget": result.budget,
            "sandbox": result.sandbox, "seed": result.seed, "notes": " | ".join(result.notes),
        }
        rows.append(row)
    columns = ["student", "student_from", "file", "lab", *test_columns, "total", "max_score", "percent", "status",
               "seconds", "budget", "sandbox", "seed", "notes"]
    return pd.DataFrame(rows, columns=columns)


def write_csv(results: Iterable[GradeResult], path: str | os.PathLike[str]) -> pd.DataFrame:
    """The CSV, written whole or not at all (a temporary file renamed into place)."""
    frame = results_frame(results)
    write_atomically(Path(path), frame.to_csv(index=False))
    return frame
