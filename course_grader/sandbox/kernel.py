"""A learner's kernel in its own sandbox, with limits enforced from outside.

Every submission gets a fresh IPython kernel (``kernel_launch.py``) inside
bubblewrap (``bwrap``, its command line in ``bubblewrap.py``), within its
``Limits`` (``limits.py``):

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
- a user id of its own (as root the kernel drops to a uid no other sandbox
  holds, ``uids.py``: locked machine-wide, checked free, released when the
  sandbox is gone), so the process-count limit holds; an address-space limit
  per process as a second line; a file-size limit;
- ``--die-with-parent``: if the grader goes, the sandbox goes.

The kernel talks to the grader over Unix sockets in a grader-owned folder
(jupyter_client's IPC transport) that the kernel may write to only while it
starts: once it answers, the folder is the grader's again (as root). Every
message it sends is bounded before it is parsed (``replies.py``, and a relay in
the sandbox's cgroup: ``relay_process.py``); the grader reads only the
harness's reply to each cell, which comes back on the shell channel, apart from
anything the cell prints or displays, and keeps replies within a budget per
submission; each cell comes to a ``CellRun`` (``cell_run.py``). Time is
enforced from outside: a cell past its limit is interrupted, and a kernel that
does not answer is killed with the whole sandbox; a hard budget per submission
kills it regardless. Every time limit is charged in the sandbox's own time
(``cpu_clock.py``: what it ran or slept, not what it waited for a CPU), with a
wall-clock backstop.
When the sandbox ends, its cgroup and its folders are removed.

``isolate=False`` (``--no-sandbox``, and Gradescope, whose container is the
sandbox) starts a plain kernel with the same limits and the same package view
first on its path, and gives up everything else in the list above.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from nbclient.util import run_sync

from course_lib.checklist.harness import COLLECT

from ..errors import SandboxError
from . import cgroup, cpu_clock, uids
from .bubblewrap import INSTALL_HINT, bubblewrap, bwrap_command
from .cell_run import CellRun, error_name, interrupted
from .kernel_launch import environment, notebook_client, plain_kernel_path
from .limits import Limits, process_limits
from .relay_process import RelayProcess, start_relay
from .replies import REPLY, BoundedContext, ReplyBudget, ReplyTooLarge, harness_reply, refused_frame
from .view import PACKAGE

_POLL = 0.5
"""Seconds between checks of a cell's time and of the kernel's life while the grader waits for the cell's reply."""


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
        self._held = uids.allocate(uids.BUBBLEWRAP) if isolate and os.geteuid() == 0 else None
        self.uid = self._held.uid if self._held is not None else None
        self._relay: RelayProcess | None = None
        self._replies = ReplyBudget()
        """What the grader keeps of this submission's replies, in total (``replies.py``)."""
        self._stack = ExitStack()
        self._watch: cpu_clock.Watch | None = None
        self._meter = cpu_clock.Meter(None)
        self._started = 0.0
        self._ipc = self.folder / "ipc"
        self._client = notebook_client(
            self.folder,
            limits,
            ipc=self._ipc if isolate else None,
            wrap=self._bwrap if isolate else wrap,  # a plain kernel through ``wrap``: Gradescope's learner account
            owner=self.uid,
            on_launched=self._start_relay if isolate else None,
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
                    env=environment(self.folder, isolate=self.isolate),
                    preexec_fn=process_limits(self.limits, self.cgroup),
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
            self.run(plain_kernel_path(self.view), timeout=self.limits.startup_timeout)
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
            if self._held is not None:  # its processes are gone (killed with the sandbox): the uid is free again
                self._held.release()

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
        if self._relay is not None:
            self._relay.kill()

    def _start_relay(self) -> str:
        """The relay that reads the kernel's sockets inside the sandbox's cgroup (``relay_process.py``); returns its prefix."""
        km = self._client.km
        assert km is not None
        self._relay = start_relay(
            km.connection_file, self.folder, self.cgroup, self.limits.memory_mb, self.limits.startup_timeout
        )
        self._relay.watch(lambda: self.alive and self._running(), self.kill, self.limits.memory_mb)
        return self._relay.prefix

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
            return CellRun("error", *error_name(str(content.get("ename", "")), str(content.get("evalue", ""))))
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
        if self._relay is not None and self._relay.stopped():
            return self._relay.judged_failure()
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
        if not interrupted(self._client.km, self._client.kc, self.limits.interrupt_grace):
            self.alive = False
            self.kill()

    def _bwrap(self, command: list[str]) -> list[str]:
        """The kernel's command inside bubblewrap (``bubblewrap.py``), over this sandbox's view and sockets."""
        km = self._client.km
        assert km is not None, "bwrap wraps the kernel that this sandbox's manager starts"
        connection = Path(km.connection_file)
        return bwrap_command(
            command, self.limits, view=self.view, connection_file=connection, ipc=self._ipc, uid=self.uid
        )
