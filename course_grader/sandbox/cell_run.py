"""What one cell run in the sandbox came to, as the learner knows it, and interrupting one that ran too long.

``CellRun`` is what judging reads of each cell: a status (it ran, it failed,
it ran out of time, its kernel died, it was not run), the error's name and
first line with IPython's own details dropped, and the harness's reply.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Literal

from jupyter_client import AsyncKernelManager
from jupyter_client.client import KernelClient
from nbclient.util import run_sync

CellStatus = Literal["ok", "error", "timeout", "died", "skipped", "budget"]


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


_CELL_FILE = re.compile(r"\(\S+\.py, (line \d+)\)")


def error_name(ename: str, evalue: str) -> tuple[str, str]:
    """The error's name and first line, as a learner knows them.

    Python 3.13 reports an unfinished statement in a cell as ``_IncompleteInputError``,
    a private subclass of ``SyntaxError``; IPython's random cell file name is dropped.
    """
    if ename == "_IncompleteInputError":
        ename = "SyntaxError"
    return ename, _CELL_FILE.sub(r"(\1)", (str(evalue).strip().splitlines() or [""])[0])


def interrupted(km: object, kc: KernelClient | None, grace: float) -> bool:
    """Interrupt the kernel's cell: whether the kernel then answers a no-op within ``grace`` seconds."""
    try:
        if isinstance(km, AsyncKernelManager) and kc is not None:  # else the kernel is gone already
            run_sync(km.interrupt_kernel)()
            msg_id = kc.execute("pass", store_history=False)
            deadline = time.monotonic() + grace
            while (left := deadline - time.monotonic()) > 0:
                reply = run_sync(kc.shell_channel.get_msg)(timeout=left)
                if reply["parent_header"].get("msg_id") == msg_id:
                    return True
    except Exception:  # noqa: BLE001, S110 - queue.Empty on time-out, or a kernel that is gone
        pass
    return False
