"""Grade a folder of submissions in parallel and write one CSV row per submission.

Each submission runs in its own kernel; ``jobs`` worker processes grade
several at once. A submission that breaks its grading (or even its worker
process) becomes a row with status ``error``: one bad notebook never stops
the batch.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from .grade import GradeOptions, grade_notebook
from .notebook import student_id
from .results import GradeResult


def find_submissions(folder: str | Path) -> list[Path]:
    """Every ``.ipynb`` under ``folder`` (Jupyter's checkpoints excluded), in a stable order."""
    return sorted(
        path for path in Path(folder).rglob("*.ipynb")
        if ".ipynb_checkpoints" not in path.parts and path.is_file()
    )


def _grade_safely(path: Path, options: GradeOptions, student: str) -> GradeResult:
    try:
        return grade_notebook(path, options, student=student)
    except BaseException as exc:  # noqa: BLE001 - even a grader bug becomes one row, not a stopped batch
        return _crashed(path, student, f"{type(exc).__name__}: {exc}")


def _crashed(path: Path, student: str, why: str) -> GradeResult:
    return GradeResult(submission=path.name, student=student, lab=None, status="error", notes=(f"grading crashed: {why}",))


def grade_folder(
    folder: str | Path,
    options: GradeOptions = GradeOptions(),
    *,
    jobs: int = 1,
    progress: bool = True,
) -> list[GradeResult]:
    """Grade every submission under ``folder``; results in the order of ``find_submissions``."""
    paths = find_submissions(folder)
    students = [student_id(path, folder) for path in paths]
    bar = tqdm(total=len(paths), desc="grading", unit="notebook", disable=not progress)
    results: dict[int, GradeResult] = {}

    def done(index: int, result: GradeResult) -> None:
        results[index] = result
        bar.update()
        bar.set_postfix_str(f"{result.student}: {result.status}", refresh=False)

    with bar:
        if jobs <= 1:
            for index, path in enumerate(paths):
                done(index, _grade_safely(path, options, students[index]))
        else:
            pending = list(range(len(paths)))
            for _attempt in range(2):  # a worker that died takes its pool with it: retry the rest once
                pending = _in_pool(pending, paths, students, options, jobs, done)
                if not pending:
                    break
            for index in pending:
                done(index, _crashed(paths[index], students[index], "the grading worker died"))
    return [results[index] for index in range(len(paths))]


def _in_pool(
    indexes: Iterable[int], paths: list[Path], students: list[str], options: GradeOptions, jobs: int,
    done: Callable[[int, GradeResult], None],
) -> list[int]:
    """Grade ``indexes`` in a fresh pool; returns the ones lost to a broken pool."""
    lost: list[int] = []
    context = multiprocessing.get_context("spawn")  # no fork of a process that holds kernel threads
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures: dict[Future[GradeResult], int] = {
            pool.submit(_grade_safely, paths[i], options, students[i]): i for i in indexes
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
        row: dict[str, Any] = {"student": result.student, "file": result.submission, "lab": result.lab}
        for test in result.tests:
            column = f"{test.lab} {test.number} {test.name}"
            if column not in test_columns:
                test_columns.append(column)
            row[column] = test.score
        row |= {
            "total": result.score, "max_score": result.max_score, "percent": result.percent,
            "status": result.status, "seconds": round(result.execution_time, 1), "notes": " | ".join(result.notes),
        }
        rows.append(row)
    columns = ["student", "file", "lab", *test_columns, "total", "max_score", "percent", "status", "seconds", "notes"]
    return pd.DataFrame(rows, columns=columns)


def write_csv(results: Iterable[GradeResult], path: str | os.PathLike[str]) -> pd.DataFrame:
    frame = results_frame(results)
    frame.to_csv(path, index=False)
    return frame
