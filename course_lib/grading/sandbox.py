"""Run untrusted notebook code in a fresh kernel with a time limit per cell and a memory limit.

A learner's cell may loop forever, call ``sys.exit`` or ``os._exit``, or fill
the memory. None of that may stop the grader: every cell comes back as a
``CellRun`` saying what happened, and a kernel that cannot be brought back is
reported as such instead of hanging the batch.

The memory limit is an address-space limit (``RLIMIT_AS``) set in the kernel
process before Python starts, so a memory bomb raises ``MemoryError`` inside
the kernel rather than waking the machine's OOM killer.
"""

from __future__ import annotations

import logging
import math
import os
import resource
import re
import subprocess
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.v4 import new_code_cell, new_notebook

CellStatus = Literal["ok", "error", "timeout", "died", "skipped"]

_LOG = logging.getLogger("course_lib.grading.kernel")
_LOG.setLevel(logging.CRITICAL)  # the grader reports every failure itself; nbclient's log lines are noise


@dataclass(frozen=True)
class Limits:
    """What one submission may use. ``cell_timeout`` also bounds each check (see harness)."""

    cell_timeout: float = 10.0
    memory_mb: int | None = 2048
    startup_timeout: float = 60.0
    interrupt_grace: float = 5.0


@dataclass(frozen=True)
class CellRun:
    status: CellStatus
    ename: str = ""
    evalue: str = ""

    @property
    def error(self) -> str:
        return f"{self.ename}: {self.evalue}".strip(": ") if self.ename else ""


def _limit_memory(megabytes: int | None) -> Any:
    def apply() -> None:  # runs in the kernel process, between fork and exec
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if megabytes:
            limit = megabytes * 2**20
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


class Sandbox:
    """A fresh ``python3`` kernel in ``workdir``: ``with Sandbox(d, limits) as box: box.run(code)``."""

    def __init__(self, workdir: str | Path, limits: Limits = Limits()) -> None:
        self.workdir = Path(workdir)
        self.limits = limits
        self.alive = False
        self._stack = ExitStack()
        self._client = NotebookClient(
            new_notebook(),
            kernel_name="python3",
            timeout=math.ceil(limits.cell_timeout),
            startup_timeout=math.ceil(limits.startup_timeout),
            allow_errors=False,
            interrupt_on_timeout=False,
            record_timing=False,
            shutdown_kernel="immediate",  # a grading kernel has nothing to save; a stuck one must not delay the next
            resources={"metadata": {"path": str(self.workdir)}},
            log=_LOG,
        )

    def __enter__(self) -> Sandbox:
        env = {
            **os.environ,
            "MALLOC_ARENA_MAX": "2",  # per-thread malloc arenas reserve address space the memory limit counts
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            "MPLBACKEND": "Agg",
            "JUPYTER_PLATFORM_DIRS": "1",
        }
        try:
            self._stack.enter_context(
                self._client.setup_kernel(
                    cwd=str(self.workdir), env=env, preexec_fn=_limit_memory(self.limits.memory_mb),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )
        except BaseException:
            self._stack.close()
            raise
        self.alive = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.alive = False
        self._stack.close()

    def run(self, source: str, timeout: float | None = None) -> CellRun:
        """Execute one cell; a timeout interrupts it and checks the kernel still answers."""
        if not self.alive:
            return CellRun("skipped", "NotRun", "the kernel had already stopped")
        outcome = self._execute(source, timeout or self.limits.cell_timeout)
        if outcome.status == "timeout":
            self._recover()
        return outcome

    def _execute(self, source: str, timeout: float) -> CellRun:
        cell = new_code_cell(source)
        notebook = self._client.nb
        notebook.cells.append(cell)
        self._client.timeout = max(1, math.ceil(timeout))
        try:
            self._client.execute_cell(cell, len(notebook.cells) - 1)
        except CellTimeoutError:
            return CellRun("timeout", "TimeoutError", f"the cell ran longer than {timeout:g} s")
        except DeadKernelError:
            self.alive = False
            return CellRun("died", "DeadKernel", "the kernel died (os._exit, a crash, or the memory limit)")
        except CellExecutionError as exc:
            return CellRun("error", exc.ename, _first_line(exc.evalue))
        return CellRun("ok")

    def _recover(self) -> None:
        """Interrupt the cell that timed out; if the kernel does not answer a no-op soon, give it up.

        The no-op goes straight to the shell channel: only its reply matters, and
        nbclient's own cell machinery would also wait for output that the
        interrupted cell may already have taken.
        """
        client = self._client
        try:
            run_sync(client.km.interrupt_kernel)()  # type: ignore[union-attr]
            msg_id = client.kc.execute("pass", store_history=False)  # type: ignore[union-attr]
            deadline = time.monotonic() + self.limits.interrupt_grace
            while (left := deadline - time.monotonic()) > 0:
                reply = run_sync(client.kc.shell_channel.get_msg)(timeout=left)  # type: ignore[union-attr]
                if reply["parent_header"].get("msg_id") == msg_id:
                    return
        except Exception:  # noqa: BLE001 - queue.Empty on time-out, or a kernel that is gone
            pass
        self.alive = False


_CELL_FILE = re.compile(r"\(\S+\.py, (line \d+)\)")


def _first_line(text: str) -> str:
    """The error's first line, without IPython's random cell file name (``(123456.py, line 3)``)."""
    return _CELL_FILE.sub(r"(\1)", (str(text).strip().splitlines() or [""])[0])
