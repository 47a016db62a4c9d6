"""A Gradescope autograder for one lab: ``setup.sh``, ``run_autograder``, course_lib as a wheel.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once
to build the image, then ``run_autograder`` for every submission, which must
leave ``/autograder/results/results.json``. The bundle carries the course's
own code as a wheel written here (``wheel.py``), so setup needs nothing beyond PyPI for the
dependencies. The lab's setup cells travel as a notebook without any solution.
``AUTOGRADER_ROOT`` replaces ``/autograder`` for a local dry run.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from .batch import find_submissions
from .errors import GradingError, NotALabNotebook
from .grade import GradeOptions, grade_notebook, not_graded
from .notebook import find_template, lab_of, read_notebook, setup_sources
from .results import GradeResult, to_gradescope, write_atomically
from .sandbox import Limits
from .wheel import write_wheel

ROOT_ENVIRONMENT = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image.
# It installs course_lib (the wheel in this bundle) and its dependencies from PyPI;
# nothing else is downloaded. The base image must provide Python >= 3.11.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
PYTHON=""
for candidate in python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys; raise SystemExit(sys.version_info < (3, 11))' 2>/dev/null; then
    PYTHON="$(command -v "$candidate")"
    break
  fi
done
if [ -z "$PYTHON" ]; then
  echo "course-grade needs Python >= 3.11; choose a Gradescope base image that has it" >&2
  exit 1
fi
if "$PYTHON" -m venv "$ROOT/venv"; then
  RUN="$ROOT/venv/bin/python"
else
  echo "python -m venv is unavailable; installing into $PYTHON itself" >&2
  RUN="$PYTHON"
  export PIP_BREAK_SYSTEM_PACKAGES=1
fi
"$RUN" -m pip install --quiet --disable-pip-version-check "$SOURCE"/wheels/*.whl
"$RUN" -c 'import course_lib.grading'
echo "$RUN" > "$SOURCE/python"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: it grades the notebook in
# $ROOT/submission and writes $ROOT/results/results.json (course-grade autograder).
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SOURCE="$ROOT/source"
PYTHON="${{COURSE_GRADE_PYTHON:-$(cat "$SOURCE/python" 2>/dev/null || command -v python3)}}"
exec "$PYTHON" -m course_lib.grading autograder --lab {lab} --root "$ROOT" --labs "$SOURCE/labs" \\
  --timeout {timeout:g} --memory {memory} --budget {budget:g} --seed {seed}
"""


def project_root() -> Path:
    """The course checkout this package runs from (the wheel is written from it)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        raise GradingError(f"no pyproject.toml above {Path(__file__).parent}; build the bundle from a course checkout")
    return root


def setup_notebook(lab: str, labs_dir: str | Path | None = None) -> nbformat.NotebookNode:
    """The lab's setup cells and metadata only: the autograder never carries a solution."""
    template = find_template(lab, labs_dir)
    notebook = new_notebook(cells=[new_code_cell(source) for source in setup_sources(template)])
    notebook.metadata["course"] = dict(template.metadata.get("course", {}), lab=lab)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def build_bundle(
    lab: str, output: str | Path, *, labs_dir: str | Path | None = None, limits: Limits = Limits(), seed: int | None = None,
) -> Path:
    """Write the Gradescope autograder zip for ``lab`` to ``output``."""
    output = Path(output)
    notebook = setup_notebook(lab, labs_dir)
    with tempfile.TemporaryDirectory(prefix="course-grade-bundle-") as folder:
        wheel = write_wheel(project_root(), Path(folder) / "wheels")
        files = {
            "setup.sh": SETUP_SH,
            "run_autograder": RUN_AUTOGRADER.format(lab=lab, timeout=limits.cell_timeout, memory=limits.memory_mb,
                                                    budget=limits.budget, seed=_bundle_seed(seed)),
            f"labs/lab_{lab.replace('.', '_')}_setup.ipynb": nbformat.writes(notebook),
        }
        output.parent.mkdir(parents=True, exist_ok=True)
        contents: dict[str, str | bytes] = {**files, f"wheels/{wheel.name}": wheel.read_bytes()}
        with zipfile.ZipFile(output, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
            for name, data in contents.items():
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                bundle.writestr(info, data)
    return output


def _bundle_seed(seed: int | None) -> int:
    """One seed per bundle, chosen when it is built: every learner of the assignment gets the same hidden cases."""
    return seed if seed is not None else secrets.randbelow(10**9)


def autograder_root(root: str | Path | None = None) -> Path:
    return Path(root or os.environ.get(ROOT_ENVIRONMENT) or DEFAULT_ROOT)


def run_autograder(
    lab: str, *, root: str | Path | None = None, labs_dir: str | Path | None = None, limits: Limits = Limits(),
    seed: int | None = None,
) -> GradeResult:
    """Grade the notebook in ``ROOT/submission`` and write ``ROOT/results/results.json``."""
    root = autograder_root(root)
    candidates = find_submissions(root / "submission") if (root / "submission").is_dir() else []
    chosen = _choose(candidates, lab)
    # Gradescope's container is the sandbox; the verdicts are still made outside the learner's kernel.
    options = GradeOptions(limits=limits, labs_dir=str(labs_dir) if labs_dir else None, expected_lab=lab, sandbox=False,
                           seed=seed)
    if chosen is None:
        names = ", ".join(path.name for path in candidates) or "no files"
        result = not_graded(root / "submission", "submission", lab,
                             f"no Lab {lab} notebook (.ipynb) in the submission ({names})", time.monotonic(), options)
    else:
        result = grade_notebook(chosen, options, student="submission")
    results = root / "results" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(results, json.dumps(to_gradescope(result), indent=2))
    return result


def _choose(candidates: list[Path], lab: str) -> Path | None:
    """The submitted notebook of this lab; a lone notebook is graded even without lab metadata."""
    matching = []
    for path in candidates:
        try:
            if lab_of(read_notebook(path), path) == lab:
                matching.append(path)
        except NotALabNotebook:
            continue
    if matching:
        return matching[0]
    return candidates[0] if len(candidates) == 1 else None
