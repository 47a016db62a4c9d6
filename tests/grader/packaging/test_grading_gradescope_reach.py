"""Gradescope's dry run is as strict as Gradescope (issue 27): the reference out of reach, a Python the learner can run.

The learner's kernel runs as an unused uid. Before anything of a submission runs,
the autograder refuses when that uid could read a copy of the lab's reference
anywhere on the machine (a world-readable course checkout, a site-packages, a
wheel, an autograder zip), and ``setup.sh`` picks an interpreter the uid can run
(``choose_python.sh``), or says that none is, instead of every test scoring 0
with "run setup.sh as root". As root, as Gradescope runs it; no dry run here
(those are in ``test_grading_gradescope.py``).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from gradescope_dry_run import public_folder, shared_interpreter
from term_secrets import TERM

from course_grader.packaging.bundle import CHOOSE_PYTHON_SH, build_bundle
from course_grader.sandbox.learner_account import (
    PYTHON_FIX,
    SETUP_FIX,
    VIEW_HEADER,
    LearnerSetupIncomplete,
    exposed,
    reference_copies,
    unused_account,
)
from course_lib.teaching import lab_registry

pytestmark = pytest.mark.sandboxed  # make test-sandboxed: as root, like Gradescope
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope runs the autograder as root")
MODULES = ["course_lib.context", "course_lib.lifecycle.budget"]


@pytest.fixture
def public() -> Iterator[Path]:
    folder = public_folder("course-grade-reach-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def private() -> Iterator[Path]:
    """A folder under /root (mode 0700), where pyenv puts its Pythons: other users cannot enter it."""
    home = Path("/root")
    if not home.is_dir() or home.stat().st_mode & stat.S_IXOTH:
        pytest.skip("needs a private /root, as on the machines where pyenv lives there")
    folder = Path(tempfile.mkdtemp(prefix="course-grade-private-", dir=home))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write(path: Path, text: str = "def build_context():\n    return 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_every_copy_of_the_reference_another_user_could_reach_is_found(public: Path) -> None:
    checkout = _write(public / "course" / "course_lib" / "context.py")
    nested = _write(public / "venv" / "lib" / "site-packages" / "course_lib" / "lifecycle" / "budget.py")
    _write(public / "views" / "11.3" / "course_lib" / "context.py", f"{VIEW_HEADER} 11.3: stubs\n")  # a view: stubs
    _write(public / "other" / "context.py")  # not course_lib's
    _write(public / "lifecycle" / "budget.py")  # not under course_lib
    hidden = public / "hidden"
    _write(hidden / "course_lib" / "context.py")
    hidden.chmod(0o700)  # other users cannot enter: not searched
    wheel = _write(public / "dist" / "course_lib-0.1.0-py3-none-any.whl", "x")
    bundle = public / "autograder-11.3.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr("wheels/course_lib-0.1.0-py3-none-any.whl", b"x")
    with zipfile.ZipFile(public / "unrelated.zip", "w") as archive:
        archive.writestr("readme.txt", b"x")
    (public / "broken.zip").write_bytes(b"not a zip")
    assert sorted(reference_copies(MODULES, public)) == sorted([checkout, nested, wheel, bundle])


def test_a_bundle_is_written_for_its_owner_only(tmp_path: Path) -> None:
    """It holds the secret and the reference: no other user of the machine may read it (the dry run's zip included)."""
    path = build_bundle(lab_registry.LABS["11.3"], tmp_path / "autograder.zip", seed=TERM)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@as_root
def test_a_readable_copy_is_readable_to_the_learner_and_a_private_one_is_not(public: Path) -> None:
    interpreter = shared_interpreter()
    if interpreter is None:
        pytest.skip("no Python runnable by another user here")
    readable = _write(public / "course_lib" / "context.py")
    private = _write(public / "locked" / "course_lib" / "context.py")
    private.chmod(0o600)
    assert exposed(unused_account(), interpreter, [readable, private])[-1:] == [f"{readable} is readable"]


def _choose(*arguments: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/bash", "-c", CHOOSE_PYTHON_SH, "choose_python.sh", *arguments],
        env={"PATH": path},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@as_root
def test_setup_skips_a_python_first_on_path_that_the_learner_cannot_run(private: Path) -> None:
    """pyenv's python3.13 under /root first on PATH: setup picks the next one the learner's account can run."""
    system = shared_interpreter()
    if system is None:
        pytest.skip("no Python runnable by another user here")
    (private / "python3.13").symlink_to(sys.executable)
    (private / "python3").symlink_to(sys.executable)
    chosen = _choose(path=f"{private}:{Path(system).parent}:/usr/bin:/bin")
    assert chosen.returncode == 0, chosen.stderr
    picked = chosen.stdout.strip()
    assert not picked.startswith(str(private)) and Path(picked).name.startswith("python3")


@as_root
def test_setup_names_a_python_the_learner_cannot_run_as_the_cause(private: Path) -> None:
    """COURSE_GRADE_PYTHON (or setup's venv) the learner's account cannot run: setup stops and says why."""
    python = private / "python3.13"
    python.symlink_to(sys.executable)
    refused = _choose(str(python), path="/usr/bin:/bin")
    assert refused.returncode == 1
    assert (
        f"{python} cannot be used: the learner's kernel runs as another account, which cannot run it" in refused.stderr
    )
    assert "/root" in refused.stderr


@as_root
def test_at_run_time_a_python_the_learner_cannot_run_is_named_as_the_cause(private: Path) -> None:
    """Not "run setup.sh as root" (it was): the interpreter is what the learner's account cannot run."""
    python = private / "python3.13"
    python.symlink_to(sys.executable)
    with pytest.raises(LearnerSetupIncomplete) as refused:
        exposed(unused_account(), str(python), [])
    assert f"the learner's account cannot run {python}" in str(refused.value)
    assert PYTHON_FIX in str(refused.value) and SETUP_FIX not in str(refused.value)
