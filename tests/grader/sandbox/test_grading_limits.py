"""The sandbox's own limits hold for the whole sandbox, and the grader cannot be exhausted by what a kernel says.

- a reply that is small in the kernel but huge as JSON is refused before it is
  parsed: the grader's peak memory stays small, the row says why (``replies.py``);
- eight children of 900 MB under ``--memory 1024``: the cgroup holds the whole
  sandbox under the limit, and the row is ``error`` naming it (``cgroup.py``);
- 3 GiB written to the home folder stop at its tmpfs size, nothing on the host;
- two sandboxes cannot see each other's file locks on the lab's view;
- after every sandbox (normal, killed, out of memory, timed out) its cgroup
  and its folders are gone.

These run kernels (marked ``slow``). CI runs as root on machines with cgroup v1
or v2 controllers, so the cgroup path is required here, not skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
import zmq
from grading_corpus import edited, solution

from course_grader import GradeOptions, Limits, SandboxSettings, grade_notebook
from course_grader.judging.kernel_run import lab_view
from course_grader.sandbox import cgroup as cgroup_module
from course_grader.sandbox.bubblewrap import bubblewrap
from course_grader.sandbox.kernel import Sandbox
from course_grader.sandbox.replies import (
    MAX_DEPTH,
    MAX_FRAMES,
    MAX_MESSAGE_MB,
    BoundedSession,
    ReplyTooLarge,
    within_depth,
)
from course_lib.teaching import lab_registry

pytestmark = pytest.mark.sandboxed  # make test-sandboxed: real sandboxes, cgroups, Gradescope dry runs

ROOT = Path(__file__).resolve().parents[3]
LIMITS = Limits(cell_timeout=20, interrupt_grace=2, budget=120)

AMPLIFIER = """
import course_lib.checklist.harness as _harness
_harness.check = lambda *args: _harness.Reply({"rows": [[0] * 10] * 3_000_000})  # ~100 MB as JSON, one list here
"""
"""Before the bound, a display like this grew the grader to about 1.2 GB (about 7 GB at 50 million rows).

Output is no longer read at all (``test_grading_replies.py``): the harness's reply is what a kernel can still make big.
"""

RAW_SHELL = """
import zmq
_kernel = get_ipython().kernel
_stream = _kernel.shell_stream  # the kernel's own shell socket, used raw from its own thread, to the grader's side
_to_grader = [*_kernel._parent_ident["shell"], b"<IDS|MSG>"]
_send = lambda parts: _stream.io_loop.add_callback(lambda: _stream.socket.send_multipart(_to_grader + parts, copy=False))
"""
"""What a kernel can send the grader outside any reply: raw frames on its shell socket (output is not read at all)."""

MANY_PARTS = (
    RAW_SHELL
    + """
_part = zmq.Frame(b"x" * (3 * 2**20))
_send([_part] * 2000)  # 6 GB in parts of 3 MB, 3 MB here
import time; time.sleep(5)
"""
)
"""Each part is under the frame limit; libzmq buffers a multipart message whole before anyone can count its parts."""

CHILDREN = """
import subprocess, sys
_children = [subprocess.Popen([sys.executable, "-c", "import time; b = b'x' * (900 * 2**20); time.sleep(4)"]) for _ in range(8)]
_codes = [child.wait() for child in _children]
"""

DISK_FILLER = """
import course_lib.checklist.harness as _harness
_written, _error = 0, None
try:
    for _number in range(64):  # 64 files of 48 MB: 3 GiB
        with open(f"{folder}/fill-{{_number}}.bin", "wb") as _file:
            _file.write(b"x" * (48 * 2**20))
        _written += 48
except OSError as _exc:
    _error = _exc.errno
_harness.Reply([_written, _error])
"""


def _sandbox_cgroups() -> set[Path]:
    """Every per-sandbox cgroup this test process made (v1: one per controller; v2: one)."""
    return cgroup_module.made_here(os.getpid())


@pytest.fixture(scope="module", autouse=True)
def _needs_the_cgroup_path() -> None:
    if bubblewrap() is None:
        pytest.fail("bubblewrap is not installed: run `make grading-tools`")
    if (reason := cgroup_module.unavailable()) is not None:
        pytest.fail(f"these tests need a per-sandbox cgroup (CI runs as root): {reason}")


def _notebook(folder: Path, code: str) -> Path:
    path = folder / "student_lab_11_2.ipynb"
    notebook = edited(solution("11.2"), "group_interactions", lambda source: source + "\n\n" + code)
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    return path


# --- 1. replies are bounded before they are parsed ------------------------------------------


GRADE_AND_MEASURE = """
import json, resource, sys
from course_grader import GradeOptions, Limits, SandboxSettings, grade_notebook
result = grade_notebook(sys.argv[1], GradeOptions(sandbox=SandboxSettings(limits=Limits(cell_timeout=20, budget=120, memory_mb=1024))))
print(json.dumps({"status": result.status, "notes": list(result.notes), "score": result.score,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("code", "says"),
    [
        (AMPLIFIER, (f"grader's limit of {MAX_MESSAGE_MB} MB",)),
        # the relay (address space 1024 MB) drops the connection, or the cgroup's OOM killer takes a process first
        (MANY_PARTS, ("sandbox's memory limit of 1024 MB", f"grader's limit of {MAX_MESSAGE_MB} MB")),
    ],
    ids=["huge-json", "many-parts"],
)
def test_a_reply_too_big_is_refused_and_the_grader_stays_small(
    code: str, says: tuple[str, ...], tmp_path: Path
) -> None:
    path = _notebook(tmp_path, code)
    done = subprocess.run(
        [sys.executable, "-c", GRADE_AND_MEASURE, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "error", outcome
    assert any(said in note for note in outcome["notes"] for said in says), outcome
    if code is AMPLIFIER:  # many parts: the cgroup's OOM killer may take the kernel before the relay says why
        assert any("its sandbox was stopped" in note for note in outcome["notes"]), outcome
    assert outcome["peak_mb"] < 1024, outcome  # the grading process itself, kernel and relay excluded


def _frames(content: bytes, extra: int = 0) -> list[bytes]:
    """An unsigned message as the session receives it: signature, header, parent, metadata, content, buffers."""
    header = (
        b'{"msg_id": "1", "msg_type": "stream", "username": "", "session": "", '
        b'"date": "2026-01-01T00:00:00Z", "version": "5.3"}'
    )
    return [b"", header, b"{}", b"{}", content, *([b"x"] * extra)]


def test_the_session_refuses_too_many_parts_too_many_bytes_and_too_deep_json() -> None:
    session = BoundedSession(key=b"")
    assert session.deserialize(_frames(b'{"text": "hi"}'))["content"] == {"text": "hi"}
    with pytest.raises(ReplyTooLarge, match="parts"):
        session.deserialize(_frames(b"{}", extra=MAX_FRAMES))
    with pytest.raises(ReplyTooLarge, match=f"limit of {MAX_MESSAGE_MB} MB"):
        session.deserialize(_frames(b'{"text": "' + b"x" * (MAX_MESSAGE_MB * 2**20) + b'"}'))
    deep = b'{"a": ' + b"[" * (MAX_DEPTH + 5) + b"]" * (MAX_DEPTH + 5) + b"}"
    with pytest.raises(ReplyTooLarge, match="nested deeper"):
        session.deserialize(_frames(deep))
    with pytest.raises(ReplyTooLarge, match="nested deeper"):
        session.deserialize(_frames(b"[" * 100_000 + b"]" * 100_000))
    assert within_depth({"a": [[1]]}, 3) and not within_depth({"a": [[1]]}, 2)


def test_frames_that_are_no_message_are_refused_not_raised_as_a_grader_error() -> None:
    session = BoundedSession(key=b"")
    with pytest.raises(ReplyTooLarge, match="not a Jupyter message"):
        session.feed_identities([b"x"] * 5)  # no delimiter: what interleaved sends on one socket look like
    with pytest.raises(ReplyTooLarge, match="not a Jupyter message"):
        session.deserialize([b"", b"not json", b"{}", b"{}", b"{}"])


def test_libzmq_refuses_a_big_frame_before_buffering_it() -> None:
    from course_grader.sandbox.replies import BoundedContext

    context = BoundedContext()
    plain = zmq.Context()
    try:
        sender = plain.socket(zmq.PUSH)
        port = sender.bind_to_random_port("tcp://127.0.0.1")
        receiver = context.socket(zmq.PULL)
        receiver.connect(f"tcp://127.0.0.1:{port}")
        assert not context.dropped()
        sender.send(b"x" * (MAX_MESSAGE_MB * 2**20 + 1))
        assert context.monitors is not None
        monitor = context.monitors[0]
        assert monitor.poll(5000), "the connection was not dropped"
        assert context.dropped()
    finally:
        context.destroy(linger=0)
        plain.destroy(linger=0)


# --- 2. memory and processes for the whole sandbox ------------------------------------------


@pytest.mark.slow
def test_eight_children_of_900_mb_stay_under_a_1024_mb_sandbox(tmp_path: Path) -> None:
    limits = Limits(cell_timeout=30, interrupt_grace=2, budget=120, memory_mb=1024)
    before = _sandbox_cgroups()
    with Sandbox(tmp_path / "box", limits, lab_view(lab_registry.LABS["11.2"])) as box:
        assert box.cgroup is not None and box.notes == []
        run = box.run(CHILDREN)
        assert _sandbox_cgroups() - before == set(box.cgroup.folders)  # v1: one per controller, cpu's too
    assert run.status in ("ok", "died")
    assert box.failure == cgroup_module.memory_note(1024)
    assert box.peak_memory is not None and box.peak_memory <= 1024 * 2**20
    assert _sandbox_cgroups() == before and not (tmp_path / "box").exists()

    result = grade_notebook(_notebook(tmp_path, CHILDREN), GradeOptions(sandbox=SandboxSettings(limits=limits)))
    assert result.status == "error", result.notes
    assert cgroup_module.memory_note(1024) in result.notes


@pytest.mark.slow
def test_without_a_cgroup_every_result_says_the_limits_are_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(memory_mb: int, processes: int) -> None:
        raise cgroup_module.NoCgroup("cgroup v2: /x does not delegate memory and pids to sub-groups")

    monkeypatch.setattr(cgroup_module, "create", refused)
    result = grade_notebook(_notebook(tmp_path, "pass"), GradeOptions(sandbox=SandboxSettings(limits=LIMITS)))
    assert result.status == "ok" and result.score == result.max_score
    assert cgroup_module.fallback_note("cgroup v2: /x does not delegate memory and pids to sub-groups") in result.notes


# --- 3. disk: home and /tmp are size-limited tmpfs mounts -----------------------------------------


@pytest.mark.slow
def test_three_gib_into_home_stop_at_the_tmpfs_and_never_reach_the_host(tmp_path: Path) -> None:
    box_folder = tmp_path / "box"
    with Sandbox(box_folder, LIMITS, lab_view(lab_registry.LABS["11.2"])) as box:
        home = box.run(DISK_FILLER.format(folder="."))
        tmp = box.run(DISK_FILLER.format(folder="/tmp"))
        host = sum(p.stat().st_size for p in box_folder.rglob("*") if p.is_file())  # while the kernel is alive
    assert home.reply[1] == tmp.reply[1] == 28, (home, tmp)  # ENOSPC, inside the kernel
    assert home.reply[0] <= LIMITS.home_mb and tmp.reply[0] <= LIMITS.tmp_mb, (home, tmp)
    assert host < 4 * 2**20, f"{host} bytes of the sandbox on the host"
    assert not box_folder.exists()

    result = grade_notebook(
        _notebook(tmp_path, DISK_FILLER.format(folder=".")), GradeOptions(sandbox=SandboxSettings(limits=LIMITS))
    )
    assert result.status == "ok" and result.score == result.max_score, (
        result.notes
    )  # its own cells, no harm to the grade


# --- 4. no covert channel through locks on the lab's view ---------------------------------------------

LOCK = (
    "import fcntl, course_lib\n_held = open(course_lib.__file__)\nfcntl.flock(_held, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
)


@pytest.mark.slow
def test_two_sandboxes_do_not_see_each_others_locks_on_the_view(tmp_path: Path) -> None:
    view = lab_view(lab_registry.LABS["11.2"])
    with Sandbox(tmp_path / "a", LIMITS, view) as first, Sandbox(tmp_path / "b", LIMITS, view) as second:
        assert first.run(LOCK).status == "ok"
        assert second.run(LOCK).status == "ok", "the second sandbox saw the first one's lock"
        with open(view / "__init__.py") as shared:  # and the grader's copy of the view is not locked either
            import fcntl

            fcntl.flock(shared, fcntl.LOCK_EX | fcntl.LOCK_NB)


# --- 5. nothing left behind ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["normal", "killed", "timed out", "out of memory"])
def test_nothing_is_left_behind(ending: str, tmp_path: Path) -> None:
    code = {
        "normal": "x = 1",
        "killed": "import os; os._exit(3)",
        "timed out": "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
        "out of memory": textwrap.dedent(CHILDREN),
    }[ending]
    # Only the endless loop should meet the time limit: eight children take a few seconds to start under load.
    limits = Limits(cell_timeout=5 if ending == "timed out" else 30, interrupt_grace=1, budget=60, memory_mb=1024)
    before = _sandbox_cgroups()
    with Sandbox(tmp_path / "box", limits, lab_view(lab_registry.LABS["11.2"])) as box:
        pids = [box._client.km.provisioner.process.pid, box._relay.process.pid]  # type: ignore[union-attr]  # bwrap and the relay, both started by now
        box.run(code)
    assert _sandbox_cgroups() == before
    assert not (tmp_path / "box").exists()
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text(), pid
    if ending == "out of memory":
        assert box.failure == cgroup_module.memory_note(1024)
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("parts", "size", "says"),
    [
        (40, 1, f"more than {MAX_FRAMES} parts"),
        (3, 3 * 2**20, f"larger than the grader's limit of {MAX_MESSAGE_MB} MB"),
    ],
    ids=["many-small-parts", "few-big-parts"],
)
def test_the_relay_counts_parts_and_bytes_before_the_grader_sees_them(
    parts: int, size: int, says: str, tmp_path: Path
) -> None:
    code = RAW_SHELL + f"_send([zmq.Frame(b'x' * {size})] * {parts})\nimport time; time.sleep(5)\n"
    with Sandbox(tmp_path / "box", LIMITS, lab_view(lab_registry.LABS["11.2"])) as box:
        assert box.run("1 + 1").status == "ok"
        run = box.run(code)
        after = box.run("1 + 1")
    assert run.status == "died" and after.status == "skipped", (run, after)
    assert box.failure is not None and says in box.failure, box.failure
