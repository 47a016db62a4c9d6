"""CPU is shared between sandboxes, and time limits are charged in a sandbox's own time (issues 27, 43).

- the charge: ``max(cpu, wall − waited)``; a quiet sandbox is charged the
  wall-clock time, a starved one not for its waits, a hog at least its CPU
  time; ``waited`` is the sandbox's own stall (its cgroup's ``cpu.pressure``),
  else one thread's wait at a time, never the sum; a limit also ends at its
  wall-clock backstop, which the notes say, blaming the host only when its
  stall was measured (``cpu_clock.py``, unit tests);
- a herd of the submission's own processes cannot make time free: its
  ``sleep(25)`` cell stops at its 10 s limit, it is not graded again, and its
  honest neighbours keep full marks;
- each sandbox's cgroup joins the CPU controller and counts its CPU time
  (``cgroup.py``);
- a hog (40 busy processes, under the task limit) graded in one batch with
  ``-j 2``, at the same time as the honest Lab 11.5 solution and before the
  Lab 11.1 one: the honest ones keep full marks (``scripts/cpu_hog.py`` prints
  the same batch's rows).
"""

from __future__ import annotations

import importlib.util
import os
import signal
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course_grader import GradeOptions, GradeResult, Limits, SandboxSettings
from course_grader.batch.batch import AGAIN_ALONE, grade_folder, starved
from course_grader.sandbox import cgroup, cpu_clock
from course_grader.sandbox.cpu_clock import Meter, Reading, charged, over, starved_note
from course_lib.teaching import lab_registry

ROOT = Path(__file__).resolve().parents[3]


# --- the charge ------------------------------------------------------------------------------------------


def test_a_quiet_sandbox_is_charged_the_wall_clock_time_busy_or_asleep() -> None:
    start = Reading(wall=100.0, cpu=1.0, waited=0.5)
    assert charged(start, Reading(wall=110.0, cpu=11.0, waited=0.5)) == 10.0  # busy on one CPU
    assert charged(start, Reading(wall=110.0, cpu=1.0, waited=0.5)) == 10.0  # asleep: charged as before


def test_a_starved_sandbox_is_not_charged_for_its_waits_but_never_less_than_its_cpu_time() -> None:
    start = Reading(wall=0.0, cpu=0.0, waited=0.0)
    assert charged(start, Reading(wall=30.0, cpu=2.0, waited=27.0)) == 3.0  # ran 2 s, slept 1 s, waited 27 s
    # a hog whose own 40 processes queue for its CPUs: their waits add up past the wall time
    assert charged(start, Reading(wall=30.0, cpu=29.0, waited=1000.0)) == 29.0
    assert charged(start, Reading(wall=10.0, cpu=20.0, waited=0.0)) == 20.0  # two CPUs busy: twice the wall time


def test_without_a_cpu_counter_the_charge_is_the_wall_clock_time() -> None:
    assert charged(Reading(0.0, None, 0.0), Reading(12.5, None, 9.0)) == 12.5
    meter = Meter(None, clock=iter([3.0, 7.0]).__next__)
    assert charged(meter.read(), meter.read()) == 4.0


def test_a_limit_ends_when_charged_or_at_its_wall_clock_backstop() -> None:
    start = Reading(0.0, 0.0, 0.0)
    assert over(start, Reading(9.9, 9.9, 0.0), 10) is None
    assert over(start, Reading(10.0, 10.0, 0.0), 10) == "charged"
    assert over(start, Reading(25.0, 1.0, 24.0), 10) is None  # starved: 1 s charged in 25 s
    assert over(start, Reading(cpu_clock.BACKSTOP * 10, 1.0, 29.0), 10) == "backstop"


class _Group:
    """A fake sandbox cgroup: its CPU counter, its own stall (None: not measured) and threads, set by the test."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.stalled: float | None = None
        self.tids: list[int] = []

    def cpu_seconds(self) -> float | None:
        return self.cpu

    def stalled_seconds(self) -> float | None:
        return self.stalled

    def threads(self) -> list[int]:
        return list(self.tids)


def test_the_sandboxs_own_stall_is_its_wait_where_the_kernel_measures_it() -> None:
    """The cgroup's ``cpu.pressure`` ``full``: time no task of the sandbox ran while one was ready (issue 43)."""
    group, now = _Group(), [0.0]
    group.tids, group.stalled = [1, 2], 5.0
    meter = Meter(group, clock=lambda: now[0], wait=lambda tid: 10**12)  # schedstat is not read when stall is
    start = meter.read()
    now[0], group.cpu, group.stalled = 10.0, 1.0, 12.0
    reading = meter.read()
    assert reading.measured and reading.waited == 12.0 and charged(start, reading) == 3.0


def test_without_a_measured_stall_one_threads_wait_counts_never_their_sum() -> None:
    """40 processes of the submission queueing for its CPUs: their waits add up far past the wall-clock time."""
    group, waits, now = _Group(), dict.fromkeys(range(40), 0), [0.0]
    group.tids = list(waits)
    meter = Meter(group, clock=lambda: now[0], wait=lambda tid: waits.get(tid))
    start = meter.read()
    now[0] = 10.0
    waits.update(dict.fromkeys(waits, 9 * 10**9))  # each waited 9 s of the 10: 360 s in all
    waits[3] = 12 * 10**9  # one claims more than the time between two readings
    reading = meter.read()
    assert not reading.measured and reading.waited == 10.0 and charged(start, reading) == 0.0
    now[0] = 20.0
    del waits[3]  # a thread that ended keeps what it waited; an id reused starts again
    waits[4] = 10**9
    assert meter.read().waited == 10.0 + 1.0


def test_a_limit_met_at_its_backstop_is_the_hosts_only_where_its_stall_was_measured(tmp_path: Path) -> None:
    group, now = _Group(), [0.0]
    meter = Meter(group, clock=lambda: now[0], wait=lambda tid: 0)
    start = meter.read()
    now[0] = cpu_clock.BACKSTOP * 10  # ten seconds' limit, no CPU used, no wait seen: asleep, charged in full
    assert meter.over(start, 10) and meter.notes() == []
    group.tids, group.stalled = [7], 0.0
    meter = Meter(group, clock=lambda: now[0], wait=lambda tid: 0)
    now[0] = 0.0
    start = meter.read()
    now[0], group.stalled = cpu_clock.BACKSTOP * 10, cpu_clock.BACKSTOP * 10 - 1  # the host held every CPU
    assert meter.over(start, 10) and meter.over(start, 10)
    assert meter.notes() == [starved_note(10)] and starved_note(10).startswith(cpu_clock.STARVED)
    group.stalled = None  # no measure: the threads' waits alone cannot tell the host from the submission
    meter = Meter(group, clock=lambda: now[0], wait=lambda tid: int(now[0] * 10**9))  # waiting all along
    now[0] = 0.0
    start = meter.read()
    for step in range(1, 31):  # a scan every second: each adds at most one second of waiting
        now[0] = float(step)
        meter.read()
    assert meter.over(start, 10) and meter.notes() == [cpu_clock.backstop_note(10)]
    assert not cpu_clock.backstop_note(10).startswith(cpu_clock.STARVED)

    from course_grader.judging.grade import not_graded

    row = not_graded(tmp_path / "x.ipynb", "x", lab_registry.LABS["11.2"], starved_note(10), 0.0, GradeOptions())
    assert starved(row) and not starved(row.model_copy(update={"notes": (AGAIN_ALONE,)}))


def stand_in(path: str | Path, options: GradeOptions, *, root: str | Path | None = None) -> GradeResult:
    """A grade without a kernel, counted beside the file: ``host`` rows the host starved, ``own`` ones met a backstop
    nobody measured, and ``dies`` kills its worker the first time (as the OOM killer would), then is starved."""
    path = Path(path)
    count = path.with_suffix(".graded")
    graded_before = count.exists()
    with count.open("a") as file:
        file.write("graded\n")
    if "dies" in path.name and not graded_before:
        os.kill(os.getpid(), signal.SIGKILL)
    note = cpu_clock.backstop_note(10) if "own" in path.name else starved_note(10)
    return GradeResult(submission=path.name, student=path.parent.name, lab="11.2", status="timeout", notes=(note,))


@pytest.mark.slow  # three workers spawned
def test_a_row_is_graded_again_alone_at_most_once_and_only_when_the_host_starved_it(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    for name in ("host", "own", "dies"):
        (root / name).mkdir(parents=True)
        (root / name / f"{name}_lab_11_2.ipynb").write_text("{}")
    rows = {r.student: r for r in grade_folder(root, GradeOptions(), jobs=2, progress=False, grade=stand_in)}

    def graded(name: str) -> int:
        return len((root / name / f"{name}_lab_11_2.graded").read_text().splitlines())

    assert graded("host") == 2 and rows["host"].notes[0] == AGAIN_ALONE
    assert graded("own") == 1 and not any("again alone" in note for note in rows["own"].notes)
    assert graded("dies") == 2 and [n for n in rows["dies"].notes if "again alone" in n] == [
        "graded again alone after the grading worker died (signal 9: killed, likely out of memory)"
    ]


def test_schedstat_is_read_as_the_threads_wait_and_a_gone_thread_reads_none(tmp_path: Path) -> None:
    (tmp_path / "41").mkdir()
    (tmp_path / "41" / "schedstat").write_text("123079 3620769 2\n")
    assert cpu_clock.schedstat_wait(41, tmp_path) == 3620769
    assert cpu_clock.schedstat_wait(42, tmp_path) is None
    assert cpu_clock.schedstat_wait(os.getpid()) is not None  # this machine's /proc says it


def test_the_cgroup_reads_its_cpu_time_and_threads_in_v1_and_v2(tmp_path: Path) -> None:
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "cpuacct.usage").write_text("2500000000\n")
    (v1 / "tasks").write_text("12\n10\n")
    assert cgroup.SandboxCgroup(1, (v1,), usage=v1).cpu_seconds() == 2.5
    assert cgroup.SandboxCgroup(1, (v1,), usage=v1).threads() == [10, 12]
    assert cgroup.SandboxCgroup(1, (v1,)).cpu_seconds() is None
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n")
    (v2 / "cgroup.threads").write_text("7\n")
    assert cgroup.SandboxCgroup(2, (v2,), usage=v2).cpu_seconds() == 1.5
    assert cgroup.SandboxCgroup(2, (v2,), usage=v2).threads() == [7]
    assert cgroup.SandboxCgroup(2, (v2,), usage=v2, pressure=v2).stalled_seconds() is None  # no cpu.pressure
    (v2 / "cpu.pressure").write_text(
        "some avg10=1.00 avg60=0.50 avg300=0.10 total=9230000\nfull avg10=0.90 avg60=0.40 avg300=0.10 total=6600000\n"
    )
    assert cgroup.SandboxCgroup(2, (v2,), usage=v2, pressure=v2).stalled_seconds() == 6.6
    assert cgroup.SandboxCgroup(2, (v2,), usage=v2).stalled_seconds() is None


# --- the hog and its honest neighbours, in one batch ----------------------------------------------------------


def _cpu_hog_script() -> Any:
    spec = importlib.util.spec_from_file_location("cpu_hog", ROOT / "scripts" / "cpu_hog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.sandboxed
def test_honest_neighbours_keep_full_marks_next_to_a_cpu_hog(tmp_path: Path) -> None:
    if (reason := cgroup.unavailable()) is not None:
        pytest.fail(f"this test needs a per-sandbox cgroup (CI runs as root): {reason}")
    script = _cpu_hog_script()
    made = script.write_class(tmp_path / "submissions", children=40)
    # The course setup's allowance is cut from 60 s to 20: it needs about a second of CPU; a kernel that got one
    # process's share among the hog's 40 (before issue 27) needed many times that.
    limits = Limits(budget=script.BUDGET, cell_timeout=script.TIMEOUT, startup_timeout=20)
    results = grade_folder(
        tmp_path / "submissions", GradeOptions(sandbox=SandboxSettings(limits=limits)), jobs=2, progress=False
    )
    rows = {result.submission.split("/")[0]: result for result in results}
    assert set(rows) == set(made)
    for name in ("b_honest", "c_honest"):
        row = rows[name]
        assert row.status == "ok" and row.score == row.max_score > 0, (name, row, rows["a_hog"])
        assert not any(note.startswith("limits:") for note in row.notes), row.notes  # CPU shared, not per-process


HERD = """
import os, time
for _ in range(40):  # the submission's own herd: each spins 40 µs every 10 ms, all on one tick
    if os.fork() == 0:
        os.setsid()
        while True:
            tick = time.monotonic()
            while time.monotonic() - tick < 0.00004:
                pass
            time.sleep(0.01 - time.monotonic() % 0.01)
time.sleep(25)
"""


@pytest.mark.slow
@pytest.mark.sandboxed
def test_a_herd_of_its_own_processes_stretches_no_limit_and_honest_neighbours_keep_full_marks(tmp_path: Path) -> None:
    """Before issue 43 the herd's queued waits, summed, made its ``sleep(25)`` free under a 10 s limit: no note."""
    if (reason := cgroup.unavailable()) is not None:
        pytest.fail(f"this test needs a per-sandbox cgroup (CI runs as root): {reason}")
    from grading_corpus import solution, tagged

    herd = solution("11.3")
    first = tagged(herd, "exercise")[0]
    first.source += "\n" + HERD
    for name, notebook in (("a_herd", herd), ("b_honest", solution("11.3")), ("c_honest", solution("11.1"))):
        (tmp_path / "submissions" / name).mkdir(parents=True)
        nbformat.write(
            notebook,
            tmp_path / "submissions" / name / f"{lab_registry.lab(notebook.metadata.course.lab).notebook}.ipynb",
        )
    limits = Limits(cell_timeout=10, budget=120, startup_timeout=30)
    results = grade_folder(
        tmp_path / "submissions", GradeOptions(sandbox=SandboxSettings(limits=limits)), jobs=2, progress=False
    )
    rows = {result.submission.split("/")[0]: result for result in results}
    herded = rows["a_herd"]
    assert herded.status == "timeout", (herded.status, herded.notes)
    assert any("exercise cell 1 ran longer than 10 s" in note for note in herded.notes), herded.notes
    assert not any(note.startswith((cpu_clock.STARVED, AGAIN_ALONE)) for note in herded.notes), herded.notes
    for name in ("b_honest", "c_honest"):
        assert rows[name].status == "ok" and rows[name].score == rows[name].max_score > 0, (name, rows[name].notes)


@pytest.mark.slow  # waits for a budget of its own to run out: make test, not make check
def test_the_budget_watch_expires_once_the_budget_is_charged() -> None:
    import threading

    now = [0.0]
    meter = Meter(_Group(), clock=lambda: now[0], wait=lambda tid: 0)
    expired = threading.Event()
    watch = cpu_clock.Watch(meter, 5.0, expired.set)
    assert not expired.wait(2 * cpu_clock.SLICE)  # nothing charged yet
    now[0] = 5.0
    assert expired.wait(10)
    watch.stop()


# --- a real sandbox held to 1 % of a CPU: charged what it ran, not what it waited ------------------------


@pytest.mark.slow
@pytest.mark.sandboxed
def test_a_cell_its_sandbox_waits_for_is_charged_what_it_ran(tmp_path: Path) -> None:
    """The test holds the sandbox's cgroup to 1 % of a CPU (a quota, as root): wall-clock seconds pass, few are charged."""
    from course_grader.judging.kernel_run import lab_view
    from course_grader.sandbox.kernel import Sandbox

    if (reason := cgroup.unavailable()) is not None:
        pytest.fail(f"this test needs a per-sandbox cgroup (CI runs as root): {reason}")
    limits = Limits(cell_timeout=60, interrupt_grace=2, budget=120)
    cell = "x = sum(range(2_500_000))"  # about 0.04 s of CPU, plus what the kernel spends on the request
    with Sandbox(tmp_path / "box", limits, lab_view(lab_registry.LABS["11.2"])) as box:
        assert box.cgroup is not None and box.cgroup.cpu_note is None and box.cgroup.usage is not None, box.notes
        assert box.run(cell).status == "ok"  # once at full speed: what a first cell costs the kernel is paid here
        held = _hold_to_one_percent(box.cgroup)
        first = box._meter.read()
        assert box.run(cell).status == "ok"
        # The limit is 60 % of the wall-clock time the same cell just took at 1 %: a wall-clock limit would stop
        # it, and the backstop (BACKSTOP times the limit, 180 %) would not.
        limit = 0.6 * (box._meter.read().wall - first.wall)
        since = box._meter.read()
        run = box.run(cell, timeout=limit)
        now = box._meter.read()
    assert run.status == "ok", (run, limit, box.notes, since, now)
    assert held and now.wall - since.wall > limit and now.waited - since.waited > limit  # it did wait, past its limit
    assert cpu_clock.charged(since, now) < limit


def _hold_to_one_percent(group: cgroup.SandboxCgroup) -> bool:
    """A CPU quota on the sandbox's cgroup: v1 ``cpu.cfs_quota_us``, v2 ``cpu.max``."""
    for folder in group.folders:
        if (folder / "cpu.cfs_quota_us").exists():
            (folder / "cpu.cfs_period_us").write_text("100000")
            (folder / "cpu.cfs_quota_us").write_text("1000")
            return True
        if (folder / "cpu.max").exists():
            (folder / "cpu.max").write_text("1000 100000")
            return True
    return False
