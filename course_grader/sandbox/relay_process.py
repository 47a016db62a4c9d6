"""The relay (``relay.py``) as the grader runs it: started in the sandbox's cgroup, watched, and judged when it stops.

The relay is the grader's end of the kernel's sockets. It runs in the
sandbox's cgroup, under the sandbox's memory limit, so whatever the kernel makes
it buffer is the submission's to pay for. When it stops while the kernel still
runs, the kernel sent a message over the grader's limits: the sandbox is
stopped, and the submission's notes say why.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import SandboxError
from . import cgroup, relay
from .replies import MAX_FRAMES, MAX_MESSAGE_MB, QUEUED, relay_stopped


class RelayProcess:
    """One sandbox's relay: ``prefix`` is where the grader's sockets connect; ``failure`` why it stopped the kernel."""

    def __init__(self, process: subprocess.Popen[bytes], prefix: str) -> None:
        self.process = process
        self.prefix = prefix
        self.failure: str | None = None
        self._judged = threading.Event()

    def watch(self, kernel_running: Callable[[], bool], stop: Callable[[], None], memory_mb: int) -> None:
        """From a thread: when the relay stops while ``kernel_running()``, the kernel said too much: say why, ``stop()``."""
        threading.Thread(target=self._judge, args=(kernel_running, stop, memory_mb), daemon=True).start()

    def _judge(self, kernel_running: Callable[[], bool], stop: Callable[[], None], memory_mb: int) -> None:
        code = self.process.wait()
        try:
            if code == relay.DROPPED:
                time.sleep(0.5)  # a kernel that died closed its sockets too: that is not a refused message
            if kernel_running():
                self.failure = relay_stopped(code) or (
                    f"the kernel sent a message larger than its sandbox's memory limit of {memory_mb} MB "
                    "could hold; its sandbox was stopped"
                )
                stop()
        finally:
            self._judged.set()

    def stopped(self) -> bool:
        return self.process.poll() is not None

    def judged_failure(self) -> str | None:
        """Why the relay stopped the kernel, once the watching thread has judged its end (``None``: it did not)."""
        self._judged.wait(2)
        return self.failure

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()


def start_relay(
    connection_file: str, folder: Path, group: cgroup.SandboxCgroup | None, memory_mb: int, startup_timeout: float
) -> RelayProcess:
    """The relay for the kernel of ``connection_file``, its sockets in ``folder``, once they are bound."""
    front = folder / "relay"
    front.mkdir(mode=0o700)
    prefix = str(front / "kernel")
    connection = json.loads(Path(connection_file).read_text())
    memory = memory_mb * 2**20

    def limits() -> None:  # the submission's memory pays for what its kernel makes the relay buffer
        import resource

        if group is not None:
            group.join()
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    process = subprocess.Popen(
        [
            sys.executable,
            "-I",
            relay.__file__,
            connection_file,
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
    deadline = time.monotonic() + startup_timeout
    try:
        while not relay.front_ready(prefix, connection):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SandboxError(f"the grader's relay to the kernel did not start (exit status {process.poll()})")
            time.sleep(0.005)
    except BaseException:
        process.kill()  # the sandbox that called for it is stopped, and this relay with it
        raise
    return RelayProcess(process, prefix)
