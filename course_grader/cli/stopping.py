"""A grading run stopped by SIGTERM, SIGHUP or SIGINT removes everything it made before it exits (issue 43).

Before, ``course-grade`` died on SIGTERM at once: its workers and their
sandboxes ran on for 30–60 s, and 8 cgroups, 14 sandbox processes and a 5.6 MB
temporary folder stayed for good. Now each of the three signals raises
``SystemExit`` in the command's main thread, so every ``finally`` and ``with`` on
the way out runs: the batch stops its workers and removes their cgroups and
processes (``worker_pool``, ``worker_cleanup``), a sandbox kills its kernel and
removes its cgroup, the temporary folders go, and the exit status is 128 plus
the signal's number. Further signals are ignored meanwhile, so the clean-up is
not cut short. What a SIGKILL leaves, the next run removes (``batch/leftovers.py``).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


@contextmanager
def stopped_cleanly() -> Iterator[None]:
    """Turn SIGTERM, SIGHUP and SIGINT into ``SystemExit(128 + signal)`` while the block runs; the previous handlers
    afterwards (no exception type of its own: nothing may catch it on the way out but ``finally``)."""

    def stop(number: int, _frame: FrameType | None) -> None:
        for each in SIGNALS:  # the clean-up on the way out is not to be cut short by a second signal
            signal.signal(each, signal.SIG_IGN)
        print(
            f"course-grade: stopped by {signal.Signals(number).name}: removing every worker, sandbox, cgroup and "
            "temporary folder it made",
            file=sys.stderr,
        )
        raise SystemExit(128 + number)

    previous = {number: signal.signal(number, stop) for number in SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
