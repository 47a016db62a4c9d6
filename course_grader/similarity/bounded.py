"""The similarity pass where its memory is bounded: a child process of its own, so no notebook ends a batch (issue 43).

The batch's grades are made, and written (``cli/grade_batch.py``), before this
runs; the comparison then runs in a spawned child held to ``MEMORY_MB`` (a
cgroup of its own where the grader can make one, else ``RLIMIT_AS``), beside a
budget of what it compares (``budget.py``). If the child runs out of memory or
dies, the rows stay as they were graded and the command says so: a report,
never a lost batch.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import sys
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Literal

from ..batch.worker_pool import die_with
from ..intake.roster import Names
from ..judging.verdicts import GradeResult
from ..sandbox import cgroup

MEMORY_MB = 2048
"""What the comparison may hold at once, fingerprints and notebooks together."""


def noted_within(
    results: Sequence[GradeResult],
    root: str | os.PathLike[str],
    labs_dir: str | Path | None = None,
    *,
    rest_of: Names | Literal[False] | None = False,
    memory_mb: int = MEMORY_MB,
) -> list[GradeResult]:
    """``similarity.noted`` in a child held to ``memory_mb``; the rows unchanged, with a warning, if it fails."""
    try:
        group: cgroup.SandboxCgroup | None = cgroup.create(memory_mb, 64)
    except (cgroup.NoCgroup, OSError):
        group = None
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(
        target=_compare,
        args=(send, list(results), str(root), labs_dir, rest_of, memory_mb, group, os.getpid()),
        name="course-grade-similarity",
    )
    noted: object = None
    try:
        child.start()
        send.close()
        noted = receive.recv() if receive.poll(None) else None
    except (EOFError, OSError):
        noted = None
    finally:
        if child.is_alive() and noted is None:  # stopped while it compared (a signal): it goes too
            child.kill()
        child.join()
        receive.close()
        if group is not None:
            group.remove()
    if isinstance(noted, list):
        return noted
    why = noted if isinstance(noted, str) else f"its process ended ({_ended(child.exitcode)})"
    print(f"warning: similarity not compared: {why}; within {memory_mb} MB the grades are unchanged", file=sys.stderr)
    return list(results)


def _compare(
    send: Connection,
    results: list[GradeResult],
    root: str,
    labs_dir: str | Path | None,
    rest_of: Names | Literal[False] | None,
    memory_mb: int,
    group: cgroup.SandboxCgroup | None,
    parent: int,
) -> None:
    """The child: join the cgroup (else limit its address space), compare, send the rows back (or why not)."""
    die_with(parent)
    if group is not None:
        group.join()
    else:
        limit = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from .similarity import noted  # copydetect and numpy load here, inside the bound

    try:
        send.send(noted(results, root, labs_dir, rest_of=rest_of))
    except MemoryError:
        send.send(f"the comparison needed more than {memory_mb} MB")
    finally:
        send.close()


def _ended(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"signal {-exitcode}, the memory limit's likely"
    return f"exit status {exitcode}"
