"""A Gradescope autograder for one lab: ``setup.sh``, ``run_autograder``, course_lib as a wheel, a secret.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once
(as root) to build the image, then ``run_autograder`` for every submission,
which must leave ``/autograder/results/results.json``. There is no bubblewrap
there, so the guarantees of the bubblewrap path are kept another way
(docs/grading.md, "Publishing to Gradescope"):

- setup installs course_lib (the wheel written here, ``wheel.py``) into a
  root-only folder, ``ROOT/course``, and only its dependencies into the venv;
  the kernel runs as an unused uid (``learner_account.py``) that can read neither, and gets the
  lab's view of the package (``view.py``); no other copy of the reference on the machine may be
  readable by it (``learner_account.reference_copies``); ``choose_python.sh`` picks a Python it can run;
- before ``results.json`` is written every process of that uid is killed, and
  the results folder is root's;
- the hidden cases come from the bundle's secret (``source/secret``, root-only,
  never printed to learners): the same cases for the whole assignment, and
  ``course-grade … --seed SECRET`` regrades locally with them;
- several uploads: the notebook for this lab is graded, or none (``upload.py``);
- the course file's points and weights for the lab travel in ``source/scoring.json``,
  so ``results.json`` gives the score local grading gives (its late policy is
  left to Gradescope's own, which knows when the upload came).

``AUTOGRADER_ROOT`` replaces ``/autograder`` for a local dry run.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from course_lib.teaching.lab_registry import Lab

from ..checkout import CHECKOUT
from ..course.course import NO_COURSE, Course
from ..errors import GradingError
from ..files import write_atomically
from ..intake.cells import setup_sources
from ..intake.identity_settings import Identity
from ..intake.lab_templates import find_template
from ..intake.notebook import read_submission
from ..intake.upload import choose, uploaded
from ..judging import hidden_cases
from ..judging.grade import grade_notebook, not_graded
from ..judging.grade_options import GradeOptions
from ..judging.judging_settings import JudgingSettings
from ..judging.kernel_run import lab_view
from ..judging.secret import checked, new_secret
from ..judging.verdicts import GradeResult
from ..results.gradescope import to_gradescope
from ..sandbox.learner_account import (
    COPY_FIX,
    UIDS,
    LearnerSetupIncomplete,
    exposed,
    kernel_wrap,
    kill_all,
    reference_copies,
    remove_leftovers,
    unused_account,
)
from ..sandbox.limits import Limits
from ..sandbox.settings import SandboxSettings
from ..sandbox.view import PACKAGE
from .scoring_file import SCORING, read_scoring, scoring_json
from .wheel import requirements, write_wheel

ROOT_ENVIRONMENT = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
SECRET = "secret"
"""The bundle's file (in ``source/``) holding the assignment's secret, what its hidden cases are drawn from."""
COURSE = "course"
"""The root-only folder (in ``ROOT``) course_lib is installed into."""
LEARNER_SANDBOX = "learner account"
"""``GradeResult.sandbox`` in Gradescope mode: no bubblewrap, the kernel runs as an unused uid."""

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image.
# It installs course_lib's dependencies from PyPI into a venv, and course_lib itself
# (the wheel in this bundle, with the lab's reference and the grader) into $ROOT/course,
# which only root can read: the learner's kernel runs as another account and sees
# only the lab's view of the package. Nothing else is downloaded.
# COURSE_GRADE_PYTHON=/path/to/python uses an interpreter that already has the
# dependencies instead of a new venv (a local dry run; docs/grading.md).
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
COURSE="$ROOT/course"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh must run as root (Gradescope runs it so): it makes the grader's files unreadable to the learner" >&2
  exit 1
fi
if [ -n "${COURSE_GRADE_PYTHON:-}" ]; then
  RUN="$(bash "$SOURCE/choose_python.sh" "$COURSE_GRADE_PYTHON")"  # checked as the learner's account would run it
else
  PYTHON="$(bash "$SOURCE/choose_python.sh")"  # the first Python >= 3.11 the learner's account can run, or why none
  if "$PYTHON" -m venv "$ROOT/venv"; then
    RUN="$ROOT/venv/bin/python"
  else
    echo "python -m venv is unavailable; installing into $PYTHON itself" >&2
    RUN="$PYTHON"
    export PIP_BREAK_SYSTEM_PACKAGES=1
  fi
fi
"$RUN" -m pip install --quiet --disable-pip-version-check -r "$SOURCE/requirements.txt"
# The learner's kernel runs this Python as another uid: the venv must stay readable by all.
chmod o+x "$ROOT"
if [ -d "$ROOT/venv" ]; then chmod -R go+rX "$ROOT/venv"; fi
bash "$SOURCE/choose_python.sh" "$RUN" >/dev/null
rm -rf "$COURSE"
"$RUN" -m pip install --quiet --disable-pip-version-check --no-deps --no-index --target "$COURSE" "$SOURCE"/wheels/*.whl
chown -R 0:0 "$SOURCE" "$COURSE"
chmod -R go-rwx "$SOURCE" "$COURSE"
PYTHONPATH="$COURSE" "$RUN" -P -c 'import course_grader.packaging.bundle'
echo "$RUN" > "$SOURCE/python"
"""

CHOOSE_PYTHON_SH = """#!/usr/bin/env bash
# Which Python the autograder runs (setup.sh asks, as root). The learner's kernel runs it as
# another uid with no groups, so it must be one other users can run: a pyenv Python under
# /root, first on PATH on many machines, is not. Every python3.1x/python3 on PATH (then
# /usr/local/bin, /usr/bin) is tried as such a uid; the first >= 3.11 that starts is printed.
# With an argument (COURSE_GRADE_PYTHON, or setup.sh's venv), that one is checked instead.
set -uo pipefail
PROBE_UID=@PROBE_UID@  # no account has it: what it can run, the learner's account can
new_enough() { "$1" -I -c 'import sys; raise SystemExit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
learner_runs() {
  (cd / && "$1" -I -c 'import os, sys
uid = int(sys.argv[1])
os.setgroups([]); os.setgid(uid); os.setuid(uid)
os.execv(sys.argv[2], [sys.argv[2], "-c", "import encodings, json"])' "$PROBE_UID" "$1") >/dev/null 2>&1
}
WHY="the learner's kernel runs as another account, which cannot run it (it lives in, or links into, a folder other users cannot enter, such as /root)"
if [ $# -gt 0 ]; then
  if ! new_enough "$1"; then
    echo "$1: not a Python >= 3.11 that runs here" >&2
    exit 1
  fi
  if ! learner_runs "$1"; then
    echo "$1 cannot be used: $WHY; use a system Python (apt-get install python3) or a venv made from one" >&2
    exit 1
  fi
  echo "$1"
  exit 0
fi
PRIVATE=""
IFS=: read -r -a FOLDERS <<< "${PATH:-}:/usr/local/bin:/usr/bin"
for name in python3.13 python3.12 python3.11 python3; do
  for folder in "${FOLDERS[@]}"; do
    candidate="${folder:-.}/$name"
    if [ -x "$candidate" ] && [ ! -d "$candidate" ] && new_enough "$candidate"; then
      if learner_runs "$candidate"; then
        echo "$candidate"
        exit 0
      fi
      case " $PRIVATE " in *" $candidate "*) ;; *) PRIVATE="${PRIVATE:+$PRIVATE }$candidate" ;; esac
    fi
  done
done
if [ -n "$PRIVATE" ]; then
  echo "course-grade needs a Python >= 3.11 that the learner's account can run; found only $PRIVATE: $WHY." \
    "Install a system Python (apt-get install python3) or set COURSE_GRADE_PYTHON to one other users can run" >&2
else
  echo "course-grade needs Python >= 3.11; choose a Gradescope base image that has it" >&2
fi
exit 1
""".replace("@PROBE_UID@", str(UIDS.stop - 1))

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission, as root: it grades the notebook in
# $ROOT/submission and writes $ROOT/results/results.json (course-grade autograder).
# The hidden cases' secret is read from $ROOT/source/secret; it is never on a command line.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SOURCE="$ROOT/source"
PYTHON="${{COURSE_GRADE_PYTHON:-$(cat "$SOURCE/python" 2>/dev/null || command -v python3)}}"
cd "$SOURCE"
PYTHONPATH="$ROOT/{course}" exec "$PYTHON" -P -m course_grader autograder --lab {lab} --root "$ROOT" \
  --labs "$SOURCE/labs" --timeout {timeout:g} --memory {memory} --budget {budget:g}
"""


def project_root() -> Path:
    """The course checkout this package runs from (the wheel is written from it)."""
    if not (CHECKOUT / "pyproject.toml").is_file():
        raise GradingError(f"no pyproject.toml in {CHECKOUT}; build the bundle from a course checkout")
    return CHECKOUT


def setup_notebook(lab: Lab, labs_dir: str | Path | None = None) -> nbformat.NotebookNode:
    """The lab's setup cells and metadata only: the autograder never carries a solution."""
    template = find_template(lab, labs_dir)
    notebook = new_notebook(cells=[new_code_cell(source) for source in setup_sources(template)])
    notebook.metadata["course"] = dict(template.metadata.get("course", {}), lab=lab.id)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def build_bundle(
    lab: Lab,
    output: str | Path,
    *,
    labs_dir: str | Path | None = None,
    limits: Limits = Limits(),
    seed: str | None = None,
    course: Course = NO_COURSE,
) -> Path:
    """Write the Gradescope autograder zip for ``lab`` to ``output``; ``seed`` is its secret (a fresh one when ``None``).

    ``course`` gives the lab's points and weights (``SCORING``).
    """
    output = Path(output)
    notebook = setup_notebook(lab, labs_dir)
    with tempfile.TemporaryDirectory(prefix="course-grade-bundle-") as folder:
        wheel = write_wheel(project_root(), Path(folder) / "wheels")
        contents: dict[str, str | bytes] = {
            "setup.sh": SETUP_SH,
            "choose_python.sh": CHOOSE_PYTHON_SH,
            "run_autograder": RUN_AUTOGRADER.format(
                lab=lab.id, course=COURSE, timeout=limits.cell_timeout, memory=limits.memory_mb, budget=limits.budget
            ),
            "requirements.txt": "".join(f"{line}\n" for line in requirements(project_root())),
            SECRET: f"{bundle_secret(seed)}\n",
            SCORING: scoring_json(course, lab.id),
            f"labs/lab_{lab.id.replace('.', '_')}_setup.ipynb": nbformat.writes(notebook),
            f"wheels/{wheel.name}": wheel.read_bytes(),
        }
        output.parent.mkdir(parents=True, exist_ok=True)
        # Yours only (0600): the zip holds the secret and the reference, which no other user of the machine may read.
        handle = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(handle, 0o600)
        with os.fdopen(handle, "wb") as file, zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
            for name, data in contents.items():
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.external_attr = _MODES.get(name, 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                bundle.writestr(info, data)
    return output


_MODES = {"setup.sh": 0o755, "choose_python.sh": 0o755, "run_autograder": 0o755, SECRET: 0o600}


def bundle_secret(seed: str | None = None) -> str:
    """The assignment's secret (``judging/secret.py``): ``seed`` if given and strong, else a fresh one."""
    return checked(seed, "--seed") if seed is not None else new_secret()


def read_secret(root: Path) -> str:
    path = root / "source" / SECRET
    try:
        return checked(path.read_text(encoding="utf-8").strip(), str(path))
    except (OSError, GradingError) as exc:
        raise GradingError(
            f"the autograder has no usable secret ({path}: {exc}); rebuild it with course-grade bundle"
        ) from None


def autograder_root(root: str | Path | None = None) -> Path:
    return Path(root or os.environ.get(ROOT_ENVIRONMENT) or DEFAULT_ROOT)


def run_autograder(
    lab: Lab,
    *,
    root: str | Path | None = None,
    labs_dir: str | Path | None = None,
    limits: Limits = Limits(),
    seed: str | None = None,
) -> GradeResult:
    """Grade the notebook for ``lab`` in ``ROOT/submission`` and write ``ROOT/results/results.json``.

    ``seed`` overrides the bundle's secret (a regrade with other cases). The result
    returned carries the seed; the ``results.json`` learners see does not.
    """
    started = time.monotonic()
    root = autograder_root(root)
    scoring = read_scoring(root, lab.id)
    options = GradeOptions(
        sandbox=SandboxSettings(limits=limits, isolate=False),
        identity=Identity(expected_lab=lab, labs_dir=str(labs_dir) if labs_dir else None),
    )
    chosen = choose(uploaded(root / "submission"), lab)
    if isinstance(chosen, str):
        result = not_graded(root / "submission", "submission", lab, chosen, started, options)
    else:
        try:
            read_submission(chosen, expected_lab=lab)  # another lab's notebook is refused before anything runs
            options = replace(options, judging=JudgingSettings(seed=seed if seed is not None else read_secret(root)))
            result = _grade_as_learner(chosen, lab, root, options)
        except GradingError as exc:
            result = not_graded(chosen, "submission", lab, str(exc), started, options)
        except OSError as exc:  # the machine refused something (a folder, a uid): still a results.json saying so
            result = not_graded(chosen, "submission", lab, f"could not grade: {exc}", started, options)
    write_results(root, json.dumps(to_gradescope(result.model_copy(update={"seed": None}), scoring), indent=2))
    return result


def for_stdout(result: GradeResult) -> GradeResult:
    """``run_autograder``'s printed table: no seed, and no hidden test's feedback before grades are published.

    Gradescope shows stdout to instructors only (``stdout_visibility``), unless one
    changes that; what it prints is kept to what learners may see at once anyway.
    """
    tests = tuple(test.model_copy(update={"output": ""}) if test.hidden else test for test in result.tests)
    return result.model_copy(update={"seed": None, "tests": tests})


def _grade_as_learner(path: Path, lab: Lab, root: Path, options: GradeOptions) -> GradeResult:
    """Grade ``path`` in a kernel running as an unused uid; no process of that uid is left when this returns."""
    if os.geteuid() != 0:
        raise GradingError(
            "course-grade autograder runs as root (as Gradescope runs it): it starts the learner's "
            "kernel as another uid, which only root can"
        )
    _lock_down(root)
    account = unused_account()
    work = Path(tempfile.mkdtemp(prefix="course-grade-gradescope-"))
    try:
        os.chmod(work, 0o711)
        views, homes = work / "views", work / "homes"
        homes.mkdir(mode=0o711)
        lab_view(lab, str(views))
        _readable_by_all(views)
        kept = [
            PACKAGE / "__init__.py",
            *hidden_cases.SOURCES,
            root / "source" / SECRET,
            root / "submission_metadata.json",
        ]
        exposure = exposed(account, sys.executable, [path for path in kept if path.exists()])
        if exposure:  # the grader's own files first: cheap, and an interpreter the account cannot run stops here
            raise LearnerSetupIncomplete(f"the learner's account can reach the grader ({'; '.join(exposure)})")
        copies = reference_copies([withheld.module for withheld in lab.withheld])
        reached = set(exposed(account, sys.executable, copies)) if copies else set()
        readable = [copy for copy in copies if f"{copy} is readable" in reached]
        if readable:
            raise LearnerSetupIncomplete(
                f"the learner's account can read a copy of the lab's reference ({_copies(readable)})", COPY_FIX
            )
        options = replace(
            options, sandbox=replace(options.sandbox, views=str(views), kernel_wrap=kernel_wrap(account, homes))
        )
        result = grade_notebook(path, options, student="submission").model_copy(update={"sandbox": LEARNER_SANDBOX})
    finally:
        try:
            kill_all(account)
        finally:
            remove_leftovers(account)
            shutil.rmtree(work, ignore_errors=True)
    return result


def _copies(readable: list[Path], shown: int = 10) -> str:
    """Where the readable copies are, one per package folder or archive: the grader's own first, then path order."""
    places = list(dict.fromkeys(next((p for p in path.parents if p.name == PACKAGE.name), path) for path in readable))
    places.sort(key=lambda place: (place != PACKAGE, str(place)))
    more = f"; {len(places)} places in all" if len(places) > shown else ""
    return "; ".join(map(str, places[:shown])) + more


def _lock_down(root: Path) -> None:
    """What the learner's account must not read (setup.sh did it; a run checks again): root's only."""
    for name, mode in (("source", 0o700), (COURSE, 0o700), ("submission", 0o700), ("submission_metadata.json", 0o600)):
        path = root / name
        if path.exists() and not path.is_symlink():
            os.chmod(path, mode)


def _readable_by_all(folder: Path) -> None:
    """The lab's view is copied from the root-only install; the learner's kernel must read it."""
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


def write_results(root: Path, text: str) -> Path:
    """``ROOT/results/results.json``, in a folder only root may write, written whole, then read back."""
    folder = root / "results"
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        folder.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(folder, 0, 0)
    os.chmod(folder, 0o755)
    path = folder / "results.json"
    write_atomically(path, text)
    if path.read_text(encoding="utf-8") != text:
        raise GradingError(f"{path} changed right after it was written")
    return path
