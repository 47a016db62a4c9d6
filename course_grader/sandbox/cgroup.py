"""One cgroup per sandbox: memory, process count and CPU for the whole sandbox, not per process.

Resource limits (``setrlimit``) count one process at a time, so eight children of
900 MB each fit under a 1 GB address-space limit. A cgroup counts every process
of the sandbox together, and the kernel's OOM killer enforces it. The grader
makes one per sandbox, puts the sandbox's first process into it before ``exec``
(everything it starts inherits it), reads after the sandbox ended whether the
memory limit killed something, kills whatever is left and removes it.

CPU (issue 27): 55 busy processes of one sandbox, all in the host's one CPU
group, left a neighbour's kernel one task's share among 56. Each sandbox's
cgroup therefore also joins the CPU controller with the default weight
(v1 ``cpu.shares`` 1024, v2 ``cpu.weight`` 100): the scheduler shares the CPUs
between *sandboxes*, however many processes each runs. Its CPU time (v1
``cpuacct.usage``, v2 ``cpu.stat``) and its own stall for a CPU (``cpu.pressure``'s
``full``: its tasks waited and none ran) are what ``cpu_clock.py`` charges the
time limits in (issue 43). The pressure is the unified (v2) hierarchy's, so on
v1 each sandbox also gets a sub-group there, beside its v1 groups, where one can
be made (``pressure``). The CPU controller is optional: where it cannot be
joined, the sandbox keeps its memory and process limits and says so
(``cpu_note``).

cgroup v1 (separate ``memory``, ``pids``, ``cpu`` and ``cpuacct`` hierarchies,
or ``cpu,cpuacct`` mounted together, as on these machines as root) and v2 (one
unified hierarchy) are both supported. On v2 the parent must delegate the
``memory`` and ``pids`` controllers (and ``cpu``, for fair shares) to
sub-groups; a grader that is not root can name a delegated cgroup it may write
to in ``COURSE_GRADE_CGROUP``. Where none can be made, ``NoCgroup`` says why
and the sandbox falls back to per-process limits (``limits.py``), saying so.

Every cgroup's name holds the pid of the process that made it
(``course-grade-<pid>-<random>``): a batch removes, with ``remove_made_by``,
what a worker that was killed left behind (``batch/worker_cleanup.py``).
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import GradingError
from .limit_notes import cpu_note as cpu_note  # re-exported: their home before their wording was a catalog's
from .limit_notes import fallback_note as fallback_note
from .limit_notes import memory_note as memory_note

DELEGATED = "COURSE_GRADE_CGROUP"
"""A cgroup v2 folder the grader may create sub-groups in (memory and pids enabled in its subtree_control)."""

PREFIX = "course-grade-"


class NoCgroup(GradingError):
    """No per-sandbox cgroup can be made on this machine; the message says why."""


@dataclass
class SandboxCgroup:
    """The cgroup folders of one sandbox: v1 one per controller (memory, pids, cpu, cpuacct), v2 one."""

    version: int
    folders: tuple[Path, ...]
    """The memory folder first; every folder the sandbox's processes join."""
    usage: Path | None = None
    """The folder that counts the sandbox's CPU time (v1 ``cpuacct``, v2 the group), if any."""
    cpu_note: str | None = None
    """Why the sandbox has no fair CPU share (``cpu_note``), or None when it has one."""
    pressure: Path | None = None
    """The folder whose ``cpu.pressure`` is the sandbox's own (v2: the group; v1: its unified sub-group), if any."""

    def join(self) -> None:
        """Move the calling process into the cgroup; runs between fork and exec, so it must not allocate much."""
        pid = str(os.getpid())
        for folder in self.folders:
            with open(folder / "cgroup.procs", "w") as procs:
                procs.write(pid)

    @property
    def _memory(self) -> Path:
        return self.folders[0]

    def oom_killed(self) -> bool:
        """Whether the memory limit killed a process of the sandbox."""
        if self.version == 2:
            return _field(self._memory / "memory.events", "oom_kill") > 0
        control = self._memory / "memory.oom_control"
        if "oom_kill " in _read(control):
            return _field(control, "oom_kill") > 0
        return _field(control, "under_oom") > 0 or int(_read(self._memory / "memory.failcnt") or 0) > 0

    def peak_bytes(self) -> int | None:
        """The most memory the whole sandbox held at once (None where the kernel does not say)."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        text = _read(self._memory / name)
        return int(text) if text.strip().isdigit() else None

    def processes(self) -> list[int]:
        return sorted(
            {int(line) for folder in self.folders for line in _read(folder / "cgroup.procs").split() if line.isdigit()}
        )

    def cpu_seconds(self) -> float | None:
        """The CPU time of every process the sandbox ever ran, ended ones included (None where not counted)."""
        if self.usage is None:
            return None
        if self.version == 2:
            return _field(self.usage / "cpu.stat", "usage_usec") / 1e6
        text = _read(self.usage / "cpuacct.usage").strip()
        return int(text) / 1e9 if text.isdigit() else None

    def stalled_seconds(self) -> float | None:
        """Seconds in which the sandbox's runnable tasks all waited for a CPU held outside it (PSI ``full``), or None."""
        if self.pressure is None:
            return None
        for line in _read(self.pressure / "cpu.pressure").splitlines():
            if line.startswith("full "):
                total = dict(part.partition("=")[::2] for part in line.split()[1:]).get("total", "")
                return int(total) / 1e6 if total.isdigit() else None
        return None

    def threads(self) -> list[int]:
        """Every thread in the sandbox now (host ids): whose waits for a CPU ``cpu_clock`` reads."""
        name = "cgroup.threads" if self.version == 2 else "tasks"
        return sorted({int(line) for line in _read(self._memory / name).split() if line.isdigit()})

    def remove(self) -> None:
        """Kill anything still in the cgroup, then remove it (a cgroup with processes cannot be removed)."""
        _remove(self.folders)


def create(memory_mb: int, processes: int) -> SandboxCgroup:
    """A new cgroup limiting memory (swap included where the kernel counts it) and processes, sharing CPU fairly.

    ``NoCgroup`` if none can be made; a cgroup without the CPU controller says why in ``cpu_note``.
    """
    name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    memory = memory_mb * 2**20
    v1 = _v1_parents()
    if v1 is not None:
        folders = (v1[0] / name, v1[1] / name)
        made: list[Path] = []
        try:
            for folder in folders:
                folder.mkdir()
                made.append(folder)
            _write(folders[0] / "memory.limit_in_bytes", str(memory))
            if (folders[0] / "memory.memsw.limit_in_bytes").exists():
                _write(folders[0] / "memory.memsw.limit_in_bytes", str(memory))
            _write(folders[0] / "memory.swappiness", "0", required=False)
            _write(folders[1] / "pids.max", str(processes))
        except OSError as exc:
            for folder in reversed(made):
                folder.rmdir()
            raise NoCgroup(f"cgroup v1: cannot set up {name}: {exc.strerror or exc}") from exc
        return _v1_pressure(_v1_cpu(SandboxCgroup(1, folders), name), name)
    parent = _v2_parent()
    folder = parent / name
    try:
        folder.mkdir()
    except OSError as exc:
        raise NoCgroup(f"cgroup v2: cannot create a sub-group of {parent}: {exc.strerror or exc}") from exc
    try:
        _write(folder / "memory.max", str(memory))
        _write(folder / "memory.swap.max", "0", required=False)
        _write(folder / "pids.max", str(processes))
    except OSError as exc:
        folder.rmdir()
        raise NoCgroup(f"cgroup v2: cannot set limits in {folder}: {exc.strerror or exc}") from exc
    why = None if (folder / "cpu.weight").exists() else f"{parent} does not delegate cpu to sub-groups"
    if why is None:
        try:
            _write(folder / "cpu.weight", str(V2_WEIGHT))
        except OSError as exc:
            why = f"cannot set cpu.weight in {folder}: {exc.strerror or exc}"
    pressure = folder if (folder / "cpu.pressure").exists() else None
    return SandboxCgroup(2, (folder,), usage=folder, cpu_note=None if why is None else cpu_note(why), pressure=pressure)


V1_SHARES = 1024
V2_WEIGHT = 100
"""Every sandbox gets the kernel's default weight: equal shares between sandboxes, one process's worth beside the host's own."""


def _v1_cpu(group: SandboxCgroup, name: str) -> SandboxCgroup:
    """``group`` with its ``cpu`` (fair shares) and ``cpuacct`` (its CPU time) folders, or a note saying why not."""
    parents = _v1_cpu_parents()
    if parents is None:
        return replace(group, cpu_note=cpu_note("cgroup v1: no cpu and cpuacct hierarchies are mounted"))
    made: list[Path] = []
    try:
        for parent in dict.fromkeys(parents):  # cpu and cpuacct are often one hierarchy
            (parent / name).mkdir()
            made.append(parent / name)
        _write(parents[0] / name / "cpu.shares", str(V1_SHARES))
    except OSError as exc:
        for folder in reversed(made):
            folder.rmdir()
        return replace(group, cpu_note=cpu_note(f"cgroup v1: cannot set up {name}: {exc.strerror or exc}"))
    return replace(group, folders=(*group.folders, *made), usage=parents[1] / name)


def _v1_pressure(group: SandboxCgroup, name: str) -> SandboxCgroup:
    """``group`` with a sub-group of the unified hierarchy, which measures its own CPU pressure, where one can be made."""
    parent = _unified_parent()
    if parent is None:
        return group
    folder = parent / name
    try:
        folder.mkdir()
    except OSError:
        return group
    if not (folder / "cpu.pressure").exists():  # the kernel measures no pressure (psi=0): no use joining it
        folder.rmdir()
        return group
    return replace(group, folders=(*group.folders, folder), pressure=folder)


def remove_made_by(pid: int) -> list[Path]:
    """Kill every process in the cgroups ``pid`` made and remove them: what a killed grading worker left behind.

    The batch calls it for each worker it stopped or lost (``worker_cleanup.py``): clean-up is
    the parent's, since a process killed for memory runs no clean-up of its own.
    Returns the folders removed.
    """
    folders = sorted(made_here(pid))
    _remove(tuple(folders))
    return folders


def _remove(folders: tuple[Path, ...]) -> None:
    deadline = time.monotonic() + 10
    for folder in folders:
        while folder.exists():
            if (folder / "cgroup.kill").exists():
                _write(folder / "cgroup.kill", "1", required=False)
            for pid in {int(line) for line in _read(folder / "cgroup.procs").split() if line.isdigit()}:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                folder.rmdir()
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)


@functools.cache
def unavailable() -> str | None:
    """Why this machine gives no per-sandbox cgroup (None when it does): tried once, by making one and removing it."""
    try:
        create(64, 8).remove()
    except NoCgroup as exc:
        return str(exc)
    except OSError as exc:
        return f"{exc.strerror or exc}"
    return None


def made_here(pid: int | None = None) -> set[Path]:
    """Every per-sandbox cgroup under this process's own cgroups (its sandboxes', its workers'), or only ``pid``'s."""
    parents: tuple[Path, ...] = ()
    if (v1 := _v1_parents()) is not None:
        unified = _unified_parent()
        parents = (*v1, *dict.fromkeys(_v1_cpu_parents() or ()), *((unified,) if unified is not None else ()))
    else:
        try:
            parents = (_v2_parent(),)
        except NoCgroup:
            return set()
    pattern = f"{PREFIX}{pid}-*" if pid is not None else f"{PREFIX}*"
    return {folder for parent in parents for folder in parent.glob(pattern) if folder.is_dir()}


# --- where the grader may make cgroups -----------------------------------------------------


def _mounts() -> list[tuple[str, str, set[str]]]:
    found = []
    for line in _read(Path("/proc/self/mounts")).splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            found.append((fields[1], fields[2], set(fields[3].split(","))))
    return found


def _own(controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of ``controller`` ("" for v2's unified one)."""
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        number, controllers, path = line.split(":", 2)
        if (controller == "" and number == "0" and controllers == "") or controller in controllers.split(","):
            return path
    return None


def _v1_parents() -> tuple[Path, Path] | None:
    """The memory and pids folders of this process's own v1 cgroups (sub-groups nest under them)."""
    return _v1_folders("memory", "pids")


def _v1_cpu_parents() -> tuple[Path, Path] | None:
    """The cpu and cpuacct folders of this process's own v1 cgroups (one folder when mounted together)."""
    return _v1_folders("cpu", "cpuacct")


def _v1_folders(first: str, second: str) -> tuple[Path, Path] | None:
    mounts = {
        name: Path(point)
        for point, kind, options in _mounts()
        if kind == "cgroup"
        for name in (first, second)
        if name in options
    }
    if set(mounts) != {first, second}:
        return None
    parents = []
    for name in (first, second):
        own = (_own(name) or "/").lstrip("/")
        parents.append(mounts[name] / own if (mounts[name] / own).is_dir() else mounts[name])
    return parents[0], parents[1]


def _unified_parent() -> Path | None:
    """This process's folder in the unified (v2) hierarchy beside v1's (a "hybrid" machine), if one is mounted."""
    unified = next((Path(point) for point, kind, _ in _mounts() if kind == "cgroup2"), None)
    if unified is None:
        return None
    folder = unified / (_own("") or "/").lstrip("/")
    return folder if folder.is_dir() else None


def _v2_parent() -> Path:
    delegated = os.environ.get(DELEGATED)
    if delegated:
        parent = Path(delegated)
    else:
        unified = next((Path(point) for point, kind, _ in _mounts() if kind == "cgroup2"), None)
        if unified is None:
            raise NoCgroup("no cgroup v1 memory and pids controllers and no cgroup v2 hierarchy are mounted")
        parent = unified / (_own("") or "/").lstrip("/")
    enabled = set(_read(parent / "cgroup.subtree_control").split())
    if "cpu" not in enabled and "cpu" in _read(parent / "cgroup.controllers").split():
        _write(parent / "cgroup.subtree_control", "+cpu", required=False)  # fair shares where it may: cpu_note if not
    missing = {"memory", "pids"} - enabled
    if missing:
        try:
            _write(parent / "cgroup.subtree_control", " ".join(f"+{name}" for name in sorted(missing)))
        except OSError as exc:
            raise NoCgroup(
                f"cgroup v2: {parent} does not delegate {' and '.join(sorted(missing))} to sub-groups "
                f"({exc.strerror or exc}); run as root, or set {DELEGATED} to a delegated cgroup"
            ) from exc
    return parent


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _field(path: Path, name: str) -> int:
    for line in _read(path).splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


def _write(path: Path, value: str, *, required: bool = True) -> None:
    try:
        with open(path, "w") as file:
            file.write(value)
    except OSError:
        if required:
            raise
