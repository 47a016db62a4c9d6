"""A learner's kernel in its own sandbox, with limits enforced from outside.

Every submission gets a fresh IPython kernel inside bubblewrap (``bwrap``):

- its own PID, network, IPC and UTS namespaces: it sees only its own
  processes, cannot signal the grader or another submission, and has no
  network (127.0.0.1 inside is not the host's);
- a read-only view of the Python environment, no other host files, a private
  copy of the lab's view of ``course_lib`` (``view.py``) mounted over the
  package (a copy: file locks on it are the sandbox's own), and a home folder
  and a ``/tmp`` that are size-limited tmpfs mounts: nothing the kernel writes
  reaches the host's disk;
- a cgroup of its own (``cgroup.py``): memory, process count and a fair share
  of the CPUs for the whole sandbox; where none can be made, per-process limits
  only, and every result says so;
- a user id of its own (as root the kernel drops to an unused uid), so the
  process-count limit holds; an address-space limit per process as a second
  line; a file-size limit;
- ``--die-with-parent``: if the grader goes, the sandbox goes.

The kernel talks to the grader over Unix sockets in a grader-owned folder
(jupyter_client's IPC transport) that the kernel may write to only while it
starts: once it answers, the folder is the grader's again (as root). Every
message it sends is bounded before it is parsed; the grader reads only the
harness's reply to each cell, which comes back on the shell channel, apart from
anything the cell prints or displays, and keeps replies within a budget per
submission (``replies.py``). Time is enforced from outside: a cell past
its limit is interrupted, and a kernel that does not answer is killed with the
whole sandbox; a hard budget per submission kills it regardless. Every time
limit is charged in the sandbox's own time (``cpu_clock.py``: what it ran or
slept, not what it waited for a CPU), with a wall-clock backstop.
When the sandbox ends, its cgroup and its folders are removed.

``isolate=False`` (``--no-sandbox``, and Gradescope, whose container is the
sandbox) starts a plain kernel with the same limits and the same package view
first on its path, and gives up everything else in the list above.
"""

from __future__ import annotations

import json
import logging
import math
import os
import queue
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
from jupyter_client.asynchronous import AsyncKernelClient
from nbclient import NotebookClient
from nbclient.util import run_sync
from nbformat.v4 import new_notebook
from traitlets import default

from course_lib.checklist.harness import COLLECT

from ..errors import SandboxError
from . import cgroup, cpu_clock, relay
from .replies import (
    MAX_FRAMES,
    MAX_MESSAGE_MB,
    QUEUED,
    REPLY,
    BoundedContext,
    BoundedSession,
    ReplyBudget,
    ReplyTooLarge,
    harness_reply,
    refused_frame,
    relay_stopped,
)
from .view import PACKAGE

CellStatus = Literal["ok", "error", "timeout", "died", "skipped", "budget"]

_LOG = logging.getLogger("course_grader.kernel")
_LOG.setLevel(logging.CRITICAL)  # the grader reports every failure itself; nbclient's log lines are noise

_POLL = 0.5
"""Seconds between checks of a cell's time and of the kernel's life while the grader waits for the cell's reply."""

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
    """Processes and threads the sandbox may hold at once (its cgroup's ``pids.max``: the relay's few threads count)."""
    budget: float = 240.0
    """Hard seconds for the whole submission, enforced by killing its sandbox.

    Like every time limit here, charged in the sandbox's own time (``cpu_clock.charged``), and also
    reached after ``cpu_clock.BACKSTOP`` times as much wall-clock time."""
    file_mb: int = 64
    """Largest single file the kernel may write."""
    home_mb: int = 128
    """Size of the kernel's home folder (a tmpfs; it counts towards the sandbox's memory)."""
    tmp_mb: int = 128
    """Size of the kernel's ``/tmp`` (a tmpfs; it counts towards the sandbox's memory)."""

    def problems(self) -> list[str]:
        return [
            f"{f.name} must be > 0, got {getattr(self, f.name)!r}"
            for f in fields(self)
            if not (isinstance(getattr(self, f.name), (int, float)) and getattr(self, f.name) > 0)
        ]


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


HOME = Path("/home/learner")
"""The kernel's home and working folder inside the sandbox (a tmpfs)."""


class _BoundedClient(AsyncKernelClient):
    """The kernel client, without the channels the grader never reads (stdin, heartbeat): nothing queues there."""

    def start_channels(
        self, shell: bool = True, iopub: bool = True, stdin: bool = True, hb: bool = True, control: bool = True
    ) -> None:
        super().start_channels(shell=shell, iopub=iopub, stdin=False, hb=False, control=control)


class _KernelManager(AsyncKernelManager):
    """jupyter_client's manager, starting the kernel through ``wrap`` and handing it its connection file.

    Its sockets and session are the bounded ones of ``replies.py``, and so are its client's.
    """

    wrap_command: Any = None
    owner: int | None = None
    on_launched: Any = None
    """Called once the kernel is launched; returns where the grader's sockets connect (the relay's prefix)."""

    async def _async_post_start_kernel(self, **kw: Any) -> None:
        if self.on_launched is not None:
            self.ip = self.on_launched()
        await super()._async_post_start_kernel(**kw)

    @default("context")
    def _bounded_context(self) -> BoundedContext:
        self._created_context = True
        return BoundedContext()

    @default("session")
    def _bounded_session(self) -> BoundedSession:
        return BoundedSession(parent=self)

    def client(self, **kwargs: Any) -> Any:
        info = {
            **self.get_connection_info(session=True),
            "connection_file": self.connection_file,
            "parent": self,
            "context": self.context,
            **kwargs,
        }
        return _BoundedClient(**info)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        return self.wrap_command(command) if self.wrap_command else command

    def write_connection_file(self, **kwargs: Any) -> Any:
        result = super().write_connection_file(**kwargs)
        if self.owner is not None:
            os.chown(self.connection_file, self.owner, self.owner)
        return result


class Sandbox:
    """``with Sandbox(folder, limits, view) as box: box.run(code)`` — one submission's kernel.

    ``folder`` is the grader's private folder for this sandbox (created here, removed on exit);
    ``notes`` and ``failure`` say what the sandbox itself went through (its limits, a memory
    limit reached, a refused message), for the submission's results.
    """

    def __init__(
        self,
        folder: str | Path,
        limits: Limits,
        view: Path,
        *,
        isolate: bool = True,
        wrap: Callable[[list[str]], list[str]] | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.limits = limits
        self.view = view
        self.isolate = isolate
        self.alive = False
        self.expired = False
        self.failure: str | None = None
        """Why the sandbox did not finish normally, beyond a time limit: the memory limit, a refused message."""
        self.notes: list[str] = []
        self.peak_memory: int | None = None
        """Bytes the whole sandbox held at most (from its cgroup), when it had one."""
        self.cgroup: cgroup.SandboxCgroup | None = None
        self._relay: subprocess.Popen[bytes] | None = None
        self._relay_failure: str | None = None
        self._relay_judged = threading.Event()
        self._replies = ReplyBudget()
        """What the grader keeps of this submission's replies, in total (``replies.py``)."""
        self.uid = random.SystemRandom().randrange(61000, 64000) if isolate and os.geteuid() == 0 else None
        self._stack = ExitStack()
        self._watch: cpu_clock.Watch | None = None
        self._meter = cpu_clock.Meter(None)
        self._started = 0.0
        self._ipc = self.folder / "ipc"
        manager = _KernelManager(
            kernel_name="python3",
            transport="ipc" if isolate else "tcp",
            **({"ip": str(self._ipc / "kernel")} if isolate else {}),
        )
        manager.connection_file = str(self.folder / "kernel.json")
        spec = manager.kernel_spec
        if spec is None:  # jupyter_client gives none for an empty kernel name
            raise SandboxError("the grader found no python3 kernel spec: install ipykernel next to the grader")
        spec.interrupt_mode = "message"  # a signal would reach bwrap, not the kernel
        if isolate:
            manager.wrap_command = self._bwrap
            manager.owner = self.uid
            manager.on_launched = self._start_relay
        elif (
            wrap is not None
        ):  # the plain kernel started through ``wrap`` (Gradescope: as the learner, learner_account.py)
            manager.wrap_command = wrap
        self._client = NotebookClient(
            new_notebook(),
            km=manager,
            kernel_name="python3",
            timeout=math.ceil(limits.cell_timeout),
            startup_timeout=math.ceil(cpu_clock.BACKSTOP * limits.startup_timeout),  # no learner code runs yet
            allow_errors=False,
            interrupt_on_timeout=False,
            record_timing=False,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": str(self.folder)}},
            log=_LOG,
            store_widget_state=False,
        )

    # --- start and stop ---------------------------------------------------------

    def __enter__(self) -> Sandbox:
        if self.isolate and bubblewrap() is None:
            raise SandboxError(f"the grading sandbox needs bubblewrap (bwrap): {INSTALL_HINT}")
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        try:
            self._prepare()
            self._started = time.monotonic()
            self._watch = cpu_clock.Watch(self._meter, self.limits.budget, self._expire)
            self._stack.enter_context(
                self._client.setup_kernel(
                    cwd=str(self.folder),
                    env=self._environment(),
                    preexec_fn=_apply_limits(self.limits, self.cgroup),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            self._seal()
            self._stop_reading_output()
        except BaseException:
            self._stop_timer()
            self.kill()
            self._stack.close()
            self._clean_up()
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
        except Exception:  # noqa: BLE001, S110 - a killed kernel may complain on shutdown; it is gone either way
            pass
        self._clean_up()

    def _prepare(self) -> None:
        """The sandbox's cgroup, its private copy of the view, and the folder for the kernel's sockets."""
        try:
            self.cgroup = cgroup.create(self.limits.memory_mb, self.limits.processes)
        except cgroup.NoCgroup as exc:
            self.notes.append(cgroup.fallback_note(str(exc)))
        else:
            if self.cgroup.cpu_note is not None:
                self.notes.append(self.cgroup.cpu_note)
        self._meter = cpu_clock.Meter(self.cgroup)
        if not self.isolate:
            return
        private_view = self.folder / "view" / PACKAGE.name
        shutil.copytree(self.view, private_view, symlinks=False)
        self.view = private_view
        self._ipc.mkdir(mode=0o700)
        if self.uid is not None:
            os.chown(self._ipc, self.uid, self.uid)  # the kernel binds its sockets here while it starts

    def _seal(self) -> None:
        """The kernel has bound its sockets: from now on it cannot add a file to the host folder (as root)."""
        if self.isolate and self.uid is not None:
            os.chown(self._ipc, 0, 0)
            os.chmod(self._ipc, 0o755)

    def _stop_reading_output(self) -> None:
        """Close the grader's IOPub socket once the kernel is ready: no output of the kernel reaches the grader.

        The kernel (or its relay) keeps publishing to nobody: printing costs the
        submission only its own time, and the grader neither buffers nor parses it.
        """
        kc = self._client.kc
        if kc is not None:
            kc.iopub_channel.close()

    def _clean_up(self) -> None:
        """What the limits saw, then nothing left: the cgroup (killing any straggler first) and the folders."""
        self.notes += [note for note in self._meter.notes() if note not in self.notes]
        try:
            if self.cgroup is not None:
                self.peak_memory = self.cgroup.peak_bytes()
                if self.cgroup.oom_killed():
                    self.failure = self.failure or cgroup.memory_note(self.limits.memory_mb)
                    self.notes.append(cgroup.memory_note(self.limits.memory_mb))
                self.cgroup.remove()
                self.cgroup = None
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started if self._started else 0.0

    def kill(self) -> None:
        """SIGKILL the sandbox (bwrap's namespace init takes every process in it along) and its relay."""
        process = getattr(getattr(self._client.km, "provisioner", None), "process", None)
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                process.kill()
        if self._relay is not None and self._relay.poll() is None:
            self._relay.kill()

    def _start_relay(self) -> str:
        """The relay that reads the kernel's sockets inside the sandbox's cgroup (``relay.py``); returns its prefix."""
        km = self._client.km
        assert km is not None
        front = self.folder / "relay"
        front.mkdir(mode=0o700)
        prefix = str(front / "kernel")
        connection = json.loads(Path(km.connection_file).read_text())
        group, memory = self.cgroup, self.limits.memory_mb * 2**20

        def limits() -> None:  # the submission's memory pays for what its kernel makes the relay buffer
            import resource

            if group is not None:
                group.join()
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

        self._relay = subprocess.Popen(
            [
                sys.executable,
                "-I",
                relay.__file__,
                km.connection_file,
                prefix,
                str(MAX_MESSAGE_MB * 2**20),
                str(MAX_FRAMES),
                str(QUEUED),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=limits,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.limits.startup_timeout
        while not relay.front_ready(prefix, connection):
            if self._relay.poll() is not None or time.monotonic() > deadline:
                raise SandboxError(f"the grader's relay to the kernel did not start (exit status {self._relay.poll()})")
            time.sleep(0.005)
        threading.Thread(target=self._watch_relay, daemon=True).start()
        return prefix

    def _watch_relay(self) -> None:
        """When the relay stops while the kernel runs, the kernel said too much: say why, stop the sandbox."""
        assert self._relay is not None
        code = self._relay.wait()
        try:
            if code == relay.DROPPED:
                time.sleep(0.5)  # a kernel that died closed its sockets too: that is not a refused message
            if self.alive and self._running():
                self._relay_failure = relay_stopped(code) or (
                    f"the kernel sent a message larger than its sandbox's memory limit of {self.limits.memory_mb} MB "
                    "could hold; its sandbox was stopped"
                )
                self.kill()
        finally:
            self._relay_judged.set()

    def _expire(self) -> None:
        self.expired = True
        self.alive = False
        self.kill()

    def _stop_timer(self) -> None:
        if self._watch is not None:
            self._watch.stop()

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
        try:
            message = run_sync(self._reply_to)(source, timeout)
        except ReplyTooLarge as exc:
            return self._refuse(str(exc))
        if (why := self._connection_broken()) is not None:
            return self._refuse(why)
        if message is None and self._running() and not self.expired:
            return CellRun("timeout", "TimeoutError", f"the cell ran longer than {timeout:g} s")
        if message is None:
            self.alive = False
            if self.expired:
                return CellRun(
                    "budget", "TimeBudget", f"the submission's time budget of {self.limits.budget:g} s ran out"
                )
            return CellRun("died", "DeadKernel", "the kernel died (os._exit, a crash, or a limit)")
        content = message.get("content") or {}
        if content.get("status") != "ok":
            return CellRun("error", *_error_name(str(content.get("ename", "")), str(content.get("evalue", ""))))
        try:
            reply = self._replies.admit(harness_reply(content))
        except ReplyTooLarge as exc:
            return self._refuse(str(exc))
        return CellRun("ok", reply=reply)

    async def _reply_to(self, source: str, timeout: float) -> dict[str, Any] | None:
        """Run ``source`` and wait for its ``execute_reply`` on the shell channel: ``None`` on a time-out or a dead kernel.

        The cell is sent silent (no result displayed, no history kept) with the
        harness's reply as a user expression (``harness.COLLECT``): the reply
        comes back in the ``execute_reply``, never among the cell's output,
        which the grader does not read (its IOPub socket is closed).
        """
        kc = self._client.kc
        assert kc is not None
        msg_id = kc.execute(
            source, silent=True, store_history=False, user_expressions={REPLY: COLLECT}, allow_stdin=False
        )
        since = self._meter.read(scan=False)  # charged in the sandbox's own time (cpu_clock.py), not merely elapsed
        while self.alive and not self._meter.over(since, timeout):
            try:
                message: dict[str, Any] = await kc.shell_channel.get_msg(timeout=_POLL)
            except queue.Empty:
                if not self._running():
                    return None
                continue
            if message.get("parent_header", {}).get("msg_id") == msg_id:
                return message
        return None

    def _connection_broken(self) -> str | None:
        """Why the grader lost the kernel's connection while the kernel ran, if it did (a refused message)."""
        if self._relay is not None and self._relay.poll() is not None:
            self._relay_judged.wait(2)
            return self._relay_failure
        context = self._client.km.context if self._client.km is not None else None
        if isinstance(context, BoundedContext) and context.dropped() and self._running():
            return refused_frame()
        return None

    def _running(self) -> bool:
        process = getattr(getattr(self._client.km, "provisioner", None), "process", None)
        return process is not None and process.poll() is None

    def _refuse(self, why: str) -> CellRun:
        """A message over the limits: the kernel is stopped, like one over its memory limit."""
        self.failure = self.failure or why
        if why not in self.notes:
            self.notes.append(why)
        self.alive = False
        self.kill()
        return CellRun("died", "ReplyTooLarge", "the grader refused a message of this cell's kernel (see the notes)")

    def _recover(self) -> None:
        """Interrupt the cell that timed out; if the kernel does not answer a no-op soon, kill the sandbox."""
        km, kc = self._client.km, self._client.kc
        try:
            if isinstance(km, AsyncKernelManager) and kc is not None:  # else the kernel is gone already
                run_sync(km.interrupt_kernel)()
                msg_id = kc.execute("pass", store_history=False)
                deadline = time.monotonic() + self.limits.interrupt_grace
                while (left := deadline - time.monotonic()) > 0:
                    reply = run_sync(kc.shell_channel.get_msg)(timeout=left)
                    if reply["parent_header"].get("msg_id") == msg_id:
                        return
        except Exception:  # noqa: BLE001, S110 - queue.Empty on time-out, or a kernel that is gone
            pass
        self.alive = False
        self.kill()

    # --- the sandbox itself -------------------------------------------------------------

    def _environment(self) -> dict[str, str]:
        """A small, explicit environment: nothing of the grader's own variables reaches the learner."""
        env = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(HOME if self.isolate else self.folder),
            "USER": "learner",
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
            "MPLBACKEND": "Agg",
            "MALLOC_ARENA_MAX": "2",  # per-thread arenas reserve address space the limit counts
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            "JUPYTER_PLATFORM_DIRS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
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
        km = self._client.km
        assert km is not None, "bwrap wraps the kernel that this sandbox's manager starts"
        mounts.bind(Path(km.connection_file), Path(km.connection_file))
        mounts.bind(self._ipc, self._ipc, writable=True)
        args = [
            "bwrap",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--hostname",
            "grading",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(self.limits.tmp_mb * 2**20),
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
            "--perms",
            "0755",
            "--dir",
            str(HOME.parent),
            "--size",
            str(self.limits.home_mb * 2**20),
            "--perms",
            "1777",
            "--tmpfs",
            str(HOME),
            *mounts.args,
            "--chdir",
            str(HOME),
            "--unsetenv",
            "JPY_PARENT_PID",  # the kernel's parent is bwrap's init here
        ]
        if self.uid is None:  # not root: a user namespace of our own; RLIMIT_NPROC counts inside it
            return [*args, "--unshare-user", "--disable-userns", "--", *command]
        drop = [
            "/usr/bin/setpriv",
            f"--reuid={self.uid}",
            f"--regid={self.uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
        ]
        return [*args, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", *drop, *command]


class _Mounts:
    """bwrap mount arguments; parent folders are created world-traversable (bwrap's default is 0700)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._made: set[Path] = {Path("/"), Path("/tmp"), HOME.parent, HOME}  # the sandbox's own, mounted first

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


def _apply_limits(limits: Limits, group: cgroup.SandboxCgroup | None = None) -> Any:
    def apply() -> None:  # runs in the sandbox's first process, between fork and exec; inherited by all
        import resource

        if group is not None:
            group.join()  # before exec: every process of the sandbox is counted from its first instruction

        for kind, value in (
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_NPROC, limits.processes),
            (resource.RLIMIT_AS, limits.memory_mb * 2**20),
            (resource.RLIMIT_FSIZE, limits.file_mb * 2**20),
        ):
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
