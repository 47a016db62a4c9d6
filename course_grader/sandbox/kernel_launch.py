"""How the sandbox's kernel is launched and connected: jupyter_client's manager, bounded and wrapped.

The manager starts the kernel through a wrapper (bubblewrap, ``bubblewrap.py``;
or Gradescope's learner account, ``learner_account.py``), hands it its
connection file, and speaks to it only through the bounded sockets and session
of ``replies.py``; its client opens no channel the grader never reads. The
kernel gets a small, explicit environment, and without a sandbox a first cell
that puts the lab's view of ``course_lib`` ahead of any installed copy.
"""

from __future__ import annotations

import logging
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jupyter_client import AsyncKernelManager
from jupyter_client.asynchronous import AsyncKernelClient
from nbclient import NotebookClient
from nbformat.v4 import new_notebook
from traitlets import default

from ..errors import SandboxError
from . import cpu_clock
from .bubblewrap import HOME
from .limits import Limits
from .replies import BoundedContext, BoundedSession

_LOG = logging.getLogger("course_grader.kernel")
_LOG.setLevel(logging.CRITICAL)  # the grader reports every failure itself; nbclient's log lines are noise


class BoundedClient(AsyncKernelClient):
    """The kernel client, without the channels the grader never reads (stdin, heartbeat): nothing queues there."""

    def start_channels(
        self, shell: bool = True, iopub: bool = True, stdin: bool = True, hb: bool = True, control: bool = True
    ) -> None:
        super().start_channels(shell=shell, iopub=iopub, stdin=False, hb=False, control=control)


class BoundedKernelManager(AsyncKernelManager):
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
        return BoundedClient(**info)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        return self.wrap_command(command) if self.wrap_command else command

    def write_connection_file(self, **kwargs: Any) -> Any:
        result = super().write_connection_file(**kwargs)
        if self.owner is not None:
            os.chown(self.connection_file, self.owner, self.owner)
        return result


def notebook_client(
    folder: Path,
    limits: Limits,
    *,
    ipc: Path | None,
    wrap: Callable[[list[str]], list[str]] | None,
    owner: int | None = None,
    on_launched: Callable[[], str] | None = None,
) -> NotebookClient:
    """nbclient's client over a bounded manager whose connection file is in ``folder``.

    With ``ipc`` the kernel's sockets are Unix sockets there (the sandbox's), else TCP on the loopback.
    """
    manager = BoundedKernelManager(
        kernel_name="python3",
        transport="ipc" if ipc is not None else "tcp",
        **({"ip": str(ipc / "kernel")} if ipc is not None else {}),
    )
    manager.connection_file = str(folder / "kernel.json")
    spec = manager.kernel_spec
    if spec is None:  # jupyter_client gives none for an empty kernel name
        raise SandboxError("the grader found no python3 kernel spec: install ipykernel next to the grader")
    spec.interrupt_mode = "message"  # a signal would reach bwrap, not the kernel
    manager.wrap_command = wrap
    manager.owner = owner
    manager.on_launched = on_launched
    return NotebookClient(
        new_notebook(),
        km=manager,
        kernel_name="python3",
        timeout=math.ceil(limits.cell_timeout),
        startup_timeout=math.ceil(cpu_clock.BACKSTOP * limits.startup_timeout),  # no learner code runs yet
        allow_errors=False,
        interrupt_on_timeout=False,
        record_timing=False,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(folder)}},
        log=_LOG,
        store_widget_state=False,
    )


def environment(folder: Path, *, isolate: bool) -> dict[str, str]:
    """A small, explicit environment: nothing of the grader's own variables reaches the learner."""
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(HOME if isolate else folder),
        "USER": "learner",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "MPLBACKEND": "Agg",
        "MALLOC_ARENA_MAX": "2",  # per-thread arenas reserve address space the limit counts
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if not isolate:
        env["TMPDIR"] = str(folder)
    return env


def plain_kernel_path(view: Path) -> str:
    """The first cell of a kernel without a sandbox: the lab's view must win over an editable install's finder."""
    return _PLAIN_KERNEL_PATH.format(view=str(view.parent))


_PLAIN_KERNEL_PATH = """\
import sys
sys.path.insert(0, {view!r})
sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in str(getattr(f, '__module__', '') or type(f).__module__)]
"""
