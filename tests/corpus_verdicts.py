"""The mutant corpus's verdicts, each computed once per test run and read by every test that asserts on it (issue 42).

What the tests assert about a mutant of ``tests/mutants`` (or a lab's solution, ``mutants.reference``) comes from
four verdicts:

- ``inline``: what its lab's checklist cell shows (``checklist.run`` on the functions its exercise cells define);
- ``graded``: the grader's verdict under the lab's own seed, judged in this process as ``course-grade`` judges a
  kernel's replies (``mutants.run.graded_with_records``), and ``records``, what the kernel side recorded of each
  check; without the practice counterexamples, which never change a score and which no test of the corpus reads;
- ``covering``: the hidden tests the covering set alone fails under a seed (the first one is enough);
- ``body``: what the notebook's body cells and its checklist cell show (``mutants.run.run_body``).

Each is computed by the first test that asks for it, in whichever pytest worker runs that test, and kept in the
run's folder (``RUN_FOLDER``: conftest.py makes it before pytest-xdist starts its workers, which inherit it). A test
in the other worker asking for a verdict that is being computed does the corpus's next verdict of the same kind
that nobody has started (the tests that read one kind ask for the whole corpus in the same order), then reads the
one it asked for. So ``make test`` grades the corpus once however many test files read it, and a file run alone
computes only what it asserts.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mutants import Mutant
    from mutants.run import Body

    from course_grader.judging.verdicts import GradeResult
    from course_lib.checklist.runner import ChecklistReport

RUN_FOLDER = "COURSE_TEST_RUN_FOLDER"
"""The environment variable naming the folder every pytest worker of one run shares."""

_SEEN: dict[str, Any] = {}
"""The verdicts this process has read, by key."""


def inline(mutant: Mutant) -> ChecklistReport:
    """What the mutant's checklist cell shows."""
    return _verdict("inline", mutant)


def graded(mutant: Mutant) -> GradeResult:
    """The grader's verdict on the mutant, its hidden tests drawn from the lab's own seed."""
    return _verdict("graded", mutant)[0]


def records(mutant: Mutant) -> dict[int, Any]:
    """What the grader's run of each check recorded in the kernel, as the grader received it (through JSON)."""
    return _verdict("graded", mutant)[1]


def covering(mutant: Mutant, seed: int | None = None) -> list[str]:
    """The hidden tests the covering set drawn from ``seed`` fails, without a drawn case (the first one found)."""
    return _verdict("covering", mutant, seed)


def body(mutant: Mutant) -> Body:
    """What the mutant's notebook shows, cell by cell, when every code cell runs in order."""
    return _verdict("body", mutant)


def _compute(kind: str, mutant: Mutant, seed: int | None) -> Any:
    from mutants import run

    if kind == "inline":
        return run.inline(mutant)
    if kind == "graded":
        return run.graded_with_records(mutant)
    if kind == "covering":
        return run.covering_failures(mutant, first_only=True, seed=seed)
    assert kind == "body", kind
    return run.run_body(mutant.notebook(), mutant.name)


@cache
def _order() -> tuple[Mutant, ...]:
    """The order the tests ask for the corpus in: the labs' solutions, then the mutants."""
    from mutants import MUTANTS, reference

    from course_lib.teaching import lab_registry

    return (*map(reference, lab_registry.LABS), *MUTANTS)


def _verdict(kind: str, mutant: Mutant, seed: int | None = None) -> Any:
    key = _key(kind, mutant, seed)
    if key not in _SEEN:
        stored = _folder() / f"{key}.pickle"
        while not stored.exists():
            with _locked(stored, wait=False) as mine:
                if mine:
                    if not stored.exists():
                        _store(stored, _compute(kind, mutant, seed))
                    break
            if not _meanwhile(kind, mutant, seed):  # the other worker is on it, and nothing else is left to do
                with _locked(stored, wait=True):
                    pass
        _SEEN[key] = pickle.loads(stored.read_bytes())
    return _SEEN[key]


def _meanwhile(kind: str, asked: Mutant, seed: int | None) -> bool:
    """Compute the next verdict of ``kind`` after ``asked``'s that nobody has started; False when there is none."""
    order = _order()
    start = next((i + 1 for i, mutant in enumerate(order) if mutant.name == asked.name), len(order))
    for mutant in order[start:]:
        stored = _folder() / f"{_key(kind, mutant, seed)}.pickle"
        if stored.exists():
            continue
        with _locked(stored, wait=False) as mine:
            if mine and not stored.exists():
                _store(stored, _compute(kind, mutant, seed))
                return True
    return False


def _key(kind: str, mutant: Mutant, seed: int | None) -> str:
    return f"{kind}-{seed}-{mutant.name}" if kind == "covering" else f"{kind}-{mutant.name}"


def _store(path: Path, value: Any) -> None:
    partial = path.with_suffix(f".{os.getpid()}.partial")
    partial.write_bytes(pickle.dumps(value))
    partial.replace(path)  # whole, or not there: a reader never sees half a verdict


@contextlib.contextmanager
def _locked(stored: Path, *, wait: bool) -> Iterator[bool]:
    """Hold the verdict's lock (waiting for it when ``wait``); yields whether this process holds it."""
    with stored.with_suffix(".lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@cache
def _folder() -> Path:
    shared = os.environ.get(RUN_FOLDER) or share_run_folder(atexit.register)
    folder = Path(shared) / "corpus-verdicts"
    folder.mkdir(exist_ok=True)
    return folder


def share_run_folder(on_exit: Callable[..., Any]) -> str:
    """Make the run's shared folder, named in the environment the pytest workers inherit; removed when this process ends.

    A process that finds one already named (a worker of the run) uses it.
    """
    if os.environ.get(RUN_FOLDER):
        return os.environ[RUN_FOLDER]
    folder = tempfile.mkdtemp(prefix="course-test-run-")
    os.environ[RUN_FOLDER] = folder
    on_exit(shutil.rmtree, folder, ignore_errors=True)
    return folder
