"""A uid no other sandbox holds (``course_grader/sandbox/uids.py``, issue 43), and a sandbox's own failure graded again.

Before, the bubblewrap path drew its uid at random and never checked it: two
concurrent sandboxes on one uid let a submission holding 50 processes exhaust
the shared process limit, and the honest neighbour got 0/7 ("could not grade:
ZMQError: Operation not supported"), no note, no second try. The batch here
gives every sandbox one uid to share (``one_uid``): they must take turns, a
sandbox that finds it held fails for a reason outside its submission, and its
row is graded again alone, with a note; the honest ones keep full marks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from grading_corpus import solution, tagged

from course_grader import GradeOptions, GradeResult, Limits, SandboxSettings
from course_grader.batch.batch import SANDBOX_AGAIN, grade_folder
from course_grader.judging.grade import COULD_NOT_GRADE, grade_notebook
from course_grader.sandbox import cgroup, uids
from course_grader.sandbox.kernel import Sandbox
from course_grader.sandbox.learner_account import UIDS, unused_account

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root gives a sandbox a uid of its own")
FREE = range(60100, 60103)
"""Three uids no test of this module shares with the grader's own ranges."""


@as_root
def test_a_uid_is_held_until_released_and_one_in_use_is_passed_over() -> None:
    first, second, third = (uids.allocate(FREE) for _ in range(3))
    assert sorted(held.uid for held in (first, second, third)) == list(FREE)
    with pytest.raises(uids.NoFreeUid, match="no free uid in 60100–60102"):
        uids.allocate(FREE)
    second.release()
    again = uids.allocate(FREE)
    assert again.uid == second.uid
    for held in (first, third, again):
        held.release()
    running = subprocess.Popen(["sleep", "30"], user=FREE[0], group=FREE[0], extra_groups=[])
    try:
        time.sleep(0.2)
        taken = [uids.allocate(FREE) for _ in range(2)]  # the uid a process runs as is never given out
        assert FREE[0] not in {held.uid for held in taken}
        for held in taken:
            held.release()
    finally:
        running.kill()
        running.wait()


@as_root
def test_a_uid_another_process_holds_is_not_given_out() -> None:
    """The lock is the machine's: another grader (a process of its own) holding the uid keeps it."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "from course_grader.sandbox import uids; import sys, time\n"
         f"held = uids.allocate(range({FREE[0]}, {FREE[0] + 1})); print(held.uid, flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == str(FREE[0])
        with pytest.raises(uids.NoFreeUid):
            uids.allocate(range(FREE[0], FREE[0] + 1))
    finally:
        holder.kill()
        holder.wait()
    uids.allocate(range(FREE[0], FREE[0] + 1)).release()  # its lock went with it


@as_root
def test_both_paths_allocate_from_their_own_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    account = unused_account()
    assert account.uid in UIDS and account.held is not None
    account.held.release()
    monkeypatch.setattr(uids, "BUBBLEWRAP", range(FREE[0], FREE[0] + 1))
    view = tmp_path / "view"
    box = Sandbox(tmp_path / "a", Limits(), view)
    assert box.uid == FREE[0]
    with pytest.raises(uids.NoFreeUid):
        Sandbox(tmp_path / "b", Limits(), view)
    box._clean_up()  # what leaving the sandbox does last: its uid is free again
    Sandbox(tmp_path / "c", Limits(), view)._clean_up()


def one_uid(path: str | Path, options: GradeOptions, *, root: str | Path | None = None) -> GradeResult:
    """``grade_notebook`` in a worker whose sandboxes all share one uid (as two drawn alike did before issue 43)."""
    uids.BUBBLEWRAP = range(FREE[1], FREE[1] + 1)
    return grade_notebook(path, options, root=root)


HOLDER = """
import os, time
for _ in range(50):  # fifty processes that only sleep: what the per-uid process limit counts
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
_grouped = group_interactions


def group_interactions(entries):  # slow, so that the fifty outlive the honest neighbour beside them
    time.sleep(0.5)
    return _grouped(entries)
"""


@pytest.mark.slow
@pytest.mark.sandboxed
def test_sandboxes_never_share_a_uid_and_one_that_fails_for_it_is_graded_again(tmp_path: Path) -> None:
    if (reason := cgroup.unavailable()) is not None:
        pytest.fail(f"this test needs a per-sandbox cgroup (CI runs as root): {reason}")
    holder = solution("11.2")
    tagged(holder, "exercise")[0].source += "\n" + HOLDER
    honest = ("b_honest", "c_honest", "d_honest")
    for name, notebook in (("a_holder", holder), *((name, solution("11.2")) for name in honest)):
        (tmp_path / "submissions" / name).mkdir(parents=True)
        nbformat.write(notebook, tmp_path / "submissions" / name / "lab_11_2_group_interactions.ipynb")
    limits = Limits(cell_timeout=20, budget=180, startup_timeout=60)
    results = grade_folder(
        tmp_path / "submissions",
        GradeOptions(sandbox=SandboxSettings(limits=limits)),
        jobs=2,
        progress=False,
        grade=one_uid,
    )
    rows = {result.submission.split("/")[0]: result for result in results}
    for name in honest:
        assert rows[name].status == "ok" and rows[name].score == rows[name].max_score > 0, (name, rows[name].notes)
    again = [row for row in rows.values() if any(note.startswith(SANDBOX_AGAIN) for note in row.notes)]
    assert again, "two workers at once on one uid: one sandbox must have waited its turn"
    for row in again:
        assert any("no free uid" in note for note in row.notes) and not any(
            note.startswith(COULD_NOT_GRADE) for note in row.notes
        ), row.notes
