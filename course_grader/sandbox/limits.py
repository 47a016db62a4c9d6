"""What one submission may use, and the per-process part of it set in its sandbox's first process.

The numbers are the course's (flags, the course file, a lab's own); the
sandbox enforces them from outside (``kernel.py``: time; ``cgroup.py``:
memory and processes for the whole sandbox). ``process_limits`` is the
second line, per process, that holds even where no cgroup can be made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

from . import cgroup


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


def process_limits(limits: Limits, group: cgroup.SandboxCgroup | None = None) -> Callable[[], None]:
    """The kernel's ``preexec_fn``: it joins the sandbox's cgroup and sets the per-process limits."""

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
