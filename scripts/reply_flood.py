"""The grader's peak memory under a reply flood: the figure issue 27 asks for.

    .venv/bin/python scripts/reply_flood.py [--labs 11.2 11.5]

For each lab, grades (in a fresh process each, sandboxed, as ``course-grade`` does) the
course's solution and the same solution with every hidden call answered by 3.5 MB of
JSON, just under the 4 MB frame limit (about 50 MB once decoded). Prints each row's
status, score and notes and the grading process's peak RSS (``ru_maxrss``: the kernel
and its relay are other processes, in the sandbox's cgroup). Before the reply budget,
Lab 11.2's flood made the grader keep 2.5 GB; Lab 11.5's was OOM-killed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course_lib.teaching import lab_registry  # noqa: E402 - imported once sys.path holds the repo

FLOOD = """

import course_lib.checklist.harness as _harness
_harness.call = lambda namespace, request: _harness.Reply({"kind": "returned", "value": [[0]] * 700_000})
"""
"""Every hidden call answered with 3.5 MB of JSON, under the 4 MB frame limit, about 50 MB once decoded."""

GRADE_AND_MEASURE = """
import json, resource, sys
from course_grader import GradeOptions, Limits, SandboxSettings, grade_notebook
result = grade_notebook(sys.argv[1], GradeOptions(sandbox=SandboxSettings(limits=Limits(cell_timeout=20, budget=120))))
print(json.dumps({"status": result.status, "score": result.score, "max": result.max_score,
                  "notes": list(result.notes), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def flooded(lab: str) -> nbformat.NotebookNode:
    """The lab's solution with ``FLOOD`` appended to its last exercise cell."""
    entry = lab_registry.lab(lab)
    notebook = nbformat.read(ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb", as_version=4)
    exercises = [cell for cell in notebook.cells if "exercise" in cell.metadata.get("tags", [])]
    exercises[-1].source += FLOOD
    return notebook


def measure(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", GRADE_AND_MEASURE, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labs", nargs="+", default=["11.2", "11.5"])
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reply-flood-") as temporary:
        for lab in arguments.labs:
            entry = lab_registry.lab(lab)
            honest = ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb"
            flood = Path(temporary) / f"{entry.notebook}.ipynb"
            nbformat.write(flooded(lab), flood)
            for name, path in (("honest", honest), ("flood", flood)):
                row = measure(path)
                print(
                    f"Lab {lab} {name:6} {row['status']:7} {row['score']}/{row['max']}  "
                    f"grader peak {row['peak_mb']:.0f} MB  {'; '.join(str(note) for note in row['notes'])}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
