"""A learner's kernel in its own sandbox, with limits enforced from outside.

Every submission gets a fresh IPython kernel inside bubblewrap (``bwrap``):

- its own PID, network, IPC and UTS namespaces: it sees only its own
  processes, cannot signal the grader or another submission, and has no
  network (127.0.0.1 inside is not the host's);
- a read-only view of the Python environment, no other host files, the
  lab's view of ``course_lib`` (``withhold.py``) mounted over the package, one
  private writable folder (the kernel's home and working directory) and a
  small private ``/tmp``;
- a user id of its own (as root the kernel drops to an unused uid), so the
  process-count limit holds; an address-space limit; a file-size limit;
- ``--die-with-parent``: if the grader goes, the sandbox goes.

The kernel talks to the grader over Unix sockets in the private folder
(jupyter_client's IPC transport). Time is enforced from outside: a cell past
its limit is interrupted, and a kernel that does not answer is killed with the
whole sandbox; a hard wall-clock budget per submission kills it regardless.

``isolate=False`` (``--no-sandbox``, and Gradescope, whose container is the
sandbox) starts a plain kernel with the same limits and the same package view
first on its path, and gives up everything else in the list above.
"""

from __future__ import annotations

import logging
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from jupyter_client import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.v4 import new_code_cell, new_notebook

from .harness import MIME
from .withhold import PACKAGE

CellStatus = Literal["ok", "error", "timeout", "died", "skipped", "budget"]

_LOG = logging.getLogger("course_lib.grading.kernel")
_LOG.setLevel(logging.CRITICAL)  # the grader reports every failure itself; nbclient's log lines are noise

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; or run make grading-tools)"
GIVEN_UP = (
    "without a sandbox the submission's code runs as you, with your files, network and processes "
    "in reach; only the time and memory limits and the withheld reference remain"
)


@dataclass(frozen=True)
class Limits:
    """What one submission may use; every number must be > 0."""

    cell_timeout: float = 10.0
    """Seconds per exercise cell, per checklist check and per hidden call."""
    memory_mb: int = 2048
    startup_timeout: float = 60.0
    interrupt_grace: float = 5.0
    processes: int = 64
    """Processes and threads the sandbox may hold at once."""
    budget: float = 240.0
    """Hard wall-clock seconds for the whole submission, enforced by killing its sandbox."""
    file_mb: int = 64

    def problems(self) -> list[str]:
        return [f"{f.name} must be > 0, got {getattr(self, f.name)!r}" for f in fields(self)
                if not (isinstance(getattr(self, f.name), (int, float)) and getattr(self, f.name) > 0)]


@dataclass(frozen=True)
class CellRun:
    status: CellStatus
    ename: str = ""
    evalue: str = ""
    reply: Any = None
    """The harness's data, when the cell returned one (see ``harness.Reply``)."""

    @property
    def error(self) -> str:
        return f"{self.ename}: {self.evalue}".strip(": ") if self.ename else ""


def bubblewrap() -> str | None:
    return shutil.which("bwrap")


class _KernelManager(AsyncKernelManager):
    """jupyter_client's manager, starting the kernel through ``wrap`` and handing it its connection file."""

    wrap_command: Any = None
    owner: int | None = None

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        return self.wrap_command(command) if self.wrap_command else command

    def write_connection_file(self, **kwargs: Any) -> Any:
        result = super().write_connection_file(**kwargs)
        if self.owner is not None:
            os.chown(self.connection_file, self.owner, self.owner)
        return result


class Sandbox:
    """``with Sandbox(folder, limits, view) as box: box.run(code)`` — one submission's kernel."""

    def __init__(self, folder: str | Path, limits: Limits, view: Path, *, isolate: bool = True,
                 wrap: Callable[[list[str]], list[str]] | None = None) -> None:
        self.folder = Path(folder)
        self.limits = limits
        self.view = view
        self.isolate = isolate
        self.alive = False
        self.expired = False
        self.uid = random.SystemRandom().randrange(61000, 64000) if isolate and os.geteuid() == 0 else None
        self._stack = ExitStack()
        self._timer: threading.Timer | None = None
        self._started = 0.0
        manager = _KernelManager(kernel_name="python3", transport="ipc" if isolate else "tcp",
                                 **({"ip": str(self.folder / "kernel")} if isolate else {}))
        manager.connection_file = str(self.folder / "kernel.json")
        manager.kernel_spec.interrupt_mode = "message"  # a signal would reach bwrap, not the kernel
        if isolate:
            manager.wrap_command = self._bwrap
            manager.owner = self.uid
        elif wrap is not None:  # the plain kernel started through ``wrap`` (Gradescope: as the learner, learner_account.py)
            manager.wrap_command = wrap
        self._client = NotebookClient(
            new_notebook(), km=manager, kernel_name="python3",
            timeout=math.ceil(limits.cell_timeout), startup_timeout=math.ceil(limits.startup_timeout),
            allow_errors=False, interrupt_on_timeout=False, record_timing=False,
            shutdown_kernel="immediate", resources={"metadata": {"path": str(self.folder)}}, log=_LOG,
        )

    # --- start and stop ---------------------------------------------------------

    def __enter__(self) -> Sandbox:
        if self.isolate and bubblewrap() is None:
            raise RuntimeError(f"the grading sandbox needs bubblewrap (bwrap): {INSTALL_HINT}")
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.uid is not None:
            os.chown(self.folder, self.uid, self.uid)
        os.chmod(self.folder, 0o700)
        self._started = time.monotonic()
        self._timer = threading.Timer(self.limits.budget, self._expire)
        self._timer.daemon = True
        self._timer.start()
        try:
            self._stack.enter_context(self._client.setup_kernel(
                cwd=str(self.folder), env=self._environment(), preexec_fn=_apply_limits(self.limits),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))
        except BaseException:
            self._stop_timer()
            self._stack.close()
            raise
        self.alive = True
        if not self.isolate:
            self.run(_PLAIN_KERNEL_PATH.format(view=str(self.view.parent)), timeout=self.limits.startup_timeout)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.alive = False
        self._stop_timer()
        self.kill()
        try:
            self._stack.close()
        except Exception:  # noqa: BLE001 - a killed kernel may complain on shutdown; it is gone either way
            pass

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started if self._started else 0.0

    def kill(self) -> None:
        """SIGKILL the sandbox (bwrap's namespace init takes every process in it along)."""
        process = getattr(getattr(self._client.km, "provisioner", None), "process", None)
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                process.kill()

    def _expire(self) -> None:
        self.expired = True
        self.alive = False
        self.kill()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    # --- running cells ------------------------------------------------------------

    def run(self, source: str, timeout: float | None = None) -> CellRun:
        """Execute one cell; a timeout interrupts it, and a kernel that does not answer is killed."""
        if self.expired:
            return CellRun("budget", "TimeBudget", f"the submission's time budget of {self.limits.budget:g} s ran out")
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
            if self.expired:
                return CellRun("budget", "TimeBudget", f"the submission's time budget of {self.limits.budget:g} s ran out")
            return CellRun("died", "DeadKernel", "the kernel died (os._exit, a crash, or a limit)")
        except CellExecutionError as exc:
            return CellRun("error", *_error_name(exc.ename, exc.evalue))
        finally:
            notebook.cells.pop()  # a long batch must not keep every cell's output
        reply = next((output["data"][MIME] for output in cell.outputs
                      if output.get("output_type") == "execute_result" and MIME in output.get("data", {})), None)
        return CellRun("ok", reply=reply)

    def _recover(self) -> None:
        """Interrupt the cell that timed out; if the kernel does not answer a no-op soon, kill the sandbox."""
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
        self.kill()

    # --- the sandbox itself -------------------------------------------------------------

    def _environment(self) -> dict[str, str]:
        """A small, explicit environment: nothing of the grader's own variables reaches the learner."""
        env = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.folder), "USER": "learner", "LANG": "C.UTF-8", "TMPDIR": "/tmp",
            "MPLBACKEND": "Agg", "MALLOC_ARENA_MAX": "2",  # per-thread arenas reserve address space the limit counts
            "PYDEVD_DISABLE_FILE_VALIDATION": "1", "JUPYTER_PLATFORM_DIRS": "1", "PYTHONDONTWRITEBYTECODE": "1",
        }
        if not self.isolate:
            env["TMPDIR"] = str(self.folder)
        return env

    def _bwrap(self, command: list[str]) -> list[str]:
        mounts = _Mounts()
        mounts.system()
        for folder in python_folders():
            mounts.bind(folder, folder)
        mounts.bind(self.view, PACKAGE)  # the lab's view over the package, wherever it is installed
        mounts.bind(self.folder, self.folder, writable=True)
        args = [
            "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "grading",
            "--proc", "/proc", "--dev", "/dev",
            "--size", str(self.limits.file_mb * 2**20), "--perms", "1777", "--tmpfs", "/tmp",
            *mounts.args, "--chdir", str(self.folder), "--unsetenv", "JPY_PARENT_PID",  # the kernel's parent is bwrap's init here
        ]
        if self.uid is None:  # not root: a user namespace of our own; RLIMIT_NPROC counts inside it
            return [*args, "--unshare-user", "--disable-userns", "--", *command]
        drop = ["/usr/bin/setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--"]
        return [*args, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", *drop, *command]


class _Mounts:
    """bwrap mount arguments; parent folders are created world-traversable (bwrap's default is 0700)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._made: set[Path] = {Path("/"), Path("/tmp")}  # /tmp is the sandbox's own tmpfs, mounted first

    def system(self) -> None:
        self.args += ["--ro-bind", "/usr", "/usr"]
        self._made.add(Path("/usr"))
        for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
            host = Path("/") / name
            if host.is_symlink():
                self.args += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                self.args += ["--ro-bind", str(host), str(host)]

    def bind(self, source: Path, target: Path, *, writable: bool = False) -> None:
        for parent in reversed(target.parents):
            if parent not in self._made and not any(parent.is_relative_to(made) for made in (Path("/usr"),)):
                self.args += ["--perms", "0755", "--dir", str(parent)]
                self._made.add(parent)
        self.args += ["--bind" if writable else "--ro-bind", str(source), str(target)]


def python_folders() -> list[Path]:
    """The Python installation and environment the kernel needs, and nothing of the course's checkout."""
    candidates = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    candidates.add(Path(os.path.realpath(sys.executable)).parent.parent)
    folders = sorted({c.resolve() for c in candidates if c.is_dir() and not c.resolve().is_relative_to("/usr")})
    return [f for f in folders if not any(f != other and f.is_relative_to(other) for other in folders)]


def _apply_limits(limits: Limits) -> Any:
    def apply() -> None:  # runs in the sandbox's first process, between fork and exec; inherited by all
        import resource

        for kind, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, limits.processes),
                            (resource.RLIMIT_AS, limits.memory_mb * 2**20), (resource.RLIMIT_FSIZE, limits.file_mb * 2**20)):
            _soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value))

    return apply


_PLAIN_KERNEL_PATH = """\
import sys
sys.path.insert(0, {view!r})
sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in str(getattr(f, '__module__', '') or type(f).__module__)]
"""
"""Without a sandbox, the lab's view must win over an editable install's finder."""

_CELL_FILE = re.compile(r"\(\S+\.py, (line \d+)\)")


def _error_name(ename: str, evalue: str) -> tuple[str, str]:
    """The error's name and first line, as a learner knows them.

    Python 3.13 reports an unfinished statement in a cell as ``_IncompleteInputError``,
    a private subclass of ``SyntaxError``; IPython's random cell file name is dropped.
    """
    if ename == "_IncompleteInputError":
        ename = "SyntaxError"
    return ename, _CELL_FILE.sub(r"(\1)", (str(evalue).strip().splitlines() or [""])[0])
