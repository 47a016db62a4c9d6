"""The figures issue 43 asks for, measured against any version of the grader (``--tree DIR``, default this checkout).

    .venv/bin/python scripts/red_team_figures.py seed [--tree DIR]
    .venv/bin/python scripts/red_team_figures.py herd [--tree DIR] [--processes 40] [--timeout 10]
    .venv/bin/python scripts/red_team_figures.py memory [--tree DIR] [--cells 76] [--cell-kb 214] [--limit-mb 3072]

``seed``: the red team's Lab 11.2 submission (it does its job, and on one
hidden call raises an error quoting the timestamps of the session it was
handed) is graded in process under the term's seed (the docs' old example,
``20261001``, where the tree takes a number; a fresh secret where it refuses
one), its feedback page rendered, and the quoted numbers searched for with the
tree's own generator (``covering_draw(lab, seed).clock()``) among every date
from 2000 to 2039 (``YYYYMMDD``, in order from 2020); then the blind rate, in
seeds a second, and what it means for the tree's seed space.

``herd``: a Lab 11.3 submission whose first exercise cell starts
``--processes`` processes that each spin 40 µs every 10 ms and then sleeps 25 s,
and whose ``build_context`` sleeps 2 s a call, graded beside two honest Lab 11.3
solutions by ``python -m course_grader -j 2`` in sandboxes under ``--timeout``
and ``--budget``: the batch's wall time, each row's status, seconds and notes.

``memory``: a notebook of ``--cells`` exercise cells of ``--cell-kb`` kB each
beside two honest ones, graded by ``python -m course_grader --no-sandbox`` held
to ``--limit-mb`` in a cgroup of its own (root), as the red team's machine held it
(``/usr/bin/time -v``: the largest process's peak resident memory), whether the
memory limit killed it, and how many rows were written.

Only public entry points are used, so the same script measures the tree before
and after a change. Note the machine's load beside every figure.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _use_tree(tree: Path) -> None:
    sys.path[:0] = [str(tree), str(tree / "tests")]


LEAK = """    message_entries = list(message_entries)
    if len(message_entries) > 12:
        raise RuntimeError("saw " + " ".join(str(e.timestamp) for e in message_entries[:4]))
"""
FIRST_LINE = "    groups: list[InteractionGroup] = []\n"


def dates() -> list[int]:
    """Every date from 2020 to 2039, then 2000 to 2019, as ``YYYYMMDD``: what a person picks for a term seed."""
    first = [date(2020, 1, 1) + timedelta(days=n) for n in range((date(2040, 1, 1) - date(2020, 1, 1)).days)]
    then = [date(2000, 1, 1) + timedelta(days=n) for n in range((date(2020, 1, 1) - date(2000, 1, 1)).days)]
    return [int(day.strftime("%Y%m%d")) for day in first + then]


def seed_figures() -> dict[str, Any]:
    from grading_corpus import grade_in_process, namespace, solution, tagged

    from course_grader.judging.draws import covering_draw
    from course_grader.publish.feedback_page import render_page
    from course_lib.teaching.lab_registry import LABS

    try:
        from course_grader.judging.secret import new_secret

        term: Any = new_secret()
    except ImportError:  # a grader before issue 43: a number, the docs' example
        term = 20261001
    notebook = copy.deepcopy(solution("11.2"))
    (cell,) = [c for c in tagged(notebook, "exercise") if FIRST_LINE in c.source]
    cell.source = cell.source.replace(FIRST_LINE, LEAK + FIRST_LINE, 1)
    page = render_page(grade_in_process("11.2", namespace("11.2", notebook), seed=term))
    shown = [int(n) for n in re.findall(r"saw (\d+)", page)]
    clock = shown[0] - 1  # the covering session's entries tick on from its drawn clock
    lab = LABS["11.2"]
    started = time.perf_counter()
    found, tried = None, 0
    for candidate in dates():
        tried += 1
        if covering_draw(lab, candidate).clock() == clock:
            found = candidate
            break
    searched = time.perf_counter() - started
    blind = [random.getrandbits(63) for _ in range(20_000)]
    started = time.perf_counter()
    for candidate in blind:
        covering_draw(lab, candidate).clock()
    rate = len(blind) / (time.perf_counter() - started)
    space = 2**256 if isinstance(term, str) else 10**9
    return {
        "term": "a fresh 256-bit secret" if isinstance(term, str) else term,
        "page quotes": shown[:4],
        "date-like seeds tried": tried,
        "found": found,
        "seconds": round(searched, 3),
        "blind seeds per second": round(rate),
        "blind search of the whole space, years": f"{space / rate / 3.156e7:.3g}",
    }


HERD = """
import os, time
def _herd(count):
    for _ in range(count):
        if os.fork() == 0:
            os.setsid()
            deadline = time.monotonic() + 900
            while time.monotonic() < deadline:
                tick = time.monotonic()
                while time.monotonic() - tick < 0.00004:
                    pass
                time.sleep(0.01 - (time.monotonic() % 0.01))
            os._exit(0)
_herd({processes})
time.sleep(25)
"""
SLOW = "\n\ndef build_context(*args, **kwargs):\n    time.sleep({seconds})\n    return _answer(*args, **kwargs)\n"


def herd_figures(processes: int, timeout: float, budget: float) -> dict[str, Any]:
    """The herd's Lab 11.3 beside two honest ones, in a batch of two workers: each row and the batch's wall time."""
    import nbformat

    with tempfile.TemporaryDirectory(prefix="herd-") as temporary:
        folder = Path(temporary) / "submissions"
        solution = ROOT / "labs" / "solutions" / "lab_11_3_build_context.ipynb"
        notebook = nbformat.read(solution, as_version=4)
        exercise = [c for c in notebook.cells if "exercise" in c.metadata.get("tags", [])]
        exercise[0].source = exercise[0].source + "\n" + HERD.format(processes=processes)
        target = next(c for c in exercise if "def build_context(" in c.source)
        target.source = target.source.replace("def build_context(", "def _answer(", 1) + SLOW.format(seconds=2)
        for student, written in (("a_herd", notebook), ("b_honest", None), ("c_honest", None)):
            (folder / student).mkdir(parents=True)
            if written is None:
                (folder / student / solution.name).write_bytes(solution.read_bytes())
            else:
                nbformat.write(written, folder / student / solution.name)
        out = Path(temporary) / "grades.csv"
        command = [sys.executable, "-m", "course_grader", str(folder), "--out", str(out), "--no-progress", "-j", "2"]
        command += ["--timeout", f"{timeout:g}", "--budget", f"{budget:g}"]
        started = time.monotonic()
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - started
        with out.open(encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
    return {
        "batch wall seconds": round(wall, 1),
        "cell limit": timeout,
        "budget": budget,
        "rows": [
            {
                "student": row["student"],
                "status": row["status"],
                "seconds": row["seconds"],
                "score": f"{row['total']}/{row['max_score']}",
                "notes": row["notes"][:300],
            }
            for row in rows
        ],
    }


def memory_figures(cells: int, cell_kb: int, limit_mb: int) -> dict[str, Any]:
    import nbformat

    from course_grader.sandbox import cgroup

    with tempfile.TemporaryDirectory(prefix="similarity-memory-") as temporary:
        folder = Path(temporary) / "submissions"
        solution = ROOT / "labs" / "solutions" / "lab_11_3_build_context.ipynb"
        for student in ("honest_a", "honest_b", "large"):
            (folder / student).mkdir(parents=True)
            notebook = nbformat.read(solution, as_version=4)
            if student == "large":
                template = next(c for c in notebook.cells if "exercise" in c.metadata.get("tags", []))
                for number in range(cells):
                    cell = copy.deepcopy(template)
                    cell.id = f"large-{number}"
                    lines = [f"value_{number}_{line} = {line} * {number} + len('x{line}')" for line in range(10_000)]
                    cell.source = "\n".join(lines)[: cell_kb * 1024]
                    notebook.cells.append(cell)
            nbformat.write(notebook, folder / student / solution.name)
        size = sum(path.stat().st_size for path in folder.rglob("*.ipynb"))
        out = Path(temporary) / "grades.csv"
        command = ["/usr/bin/time", "-v", sys.executable, "-m", "course_grader", str(folder), "--out", str(out)]
        command += ["--no-progress", "--no-sandbox", "--timeout", "60", "--budget", "600"]
        held = cgroup.create(limit_mb, 4096)  # the whole grader held, as the red team's 3 GB machine held it
        started = time.monotonic()
        try:
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, preexec_fn=held.join)
            killed = held.oom_killed()
        finally:
            held.remove()
        wall = time.monotonic() - started
        peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        rows = list(csv.DictReader(out.open(encoding="utf-8"))) if out.exists() else []
    return {
        "notebook MB": round(size / 2**20, 1),
        "exit status": done.returncode,
        "limit MB": limit_mb,
        "killed for memory": killed,
        "peak resident MB": round(int(peak.group(1)) / 1024) if peak else None,
        "wall seconds": round(wall, 1),
        "rows written": len(rows),
        "large row notes": next((r["notes"][:300] for r in rows if r["student"] == "large"), None),
    }


def main() -> int:
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=("seed", "herd", "memory"))
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose grader is measured")
    parser.add_argument("--processes", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--cells", type=int, default=76)
    parser.add_argument("--cell-kb", type=int, default=214)
    parser.add_argument("--limit-mb", type=int, default=3072, help="memory the whole grader may hold (root: a cgroup)")
    arguments = parser.parse_args()
    ROOT = arguments.tree.resolve()
    _use_tree(ROOT)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    load = os.getloadavg()
    if arguments.figure == "seed":
        figures = seed_figures()
    elif arguments.figure == "herd":
        figures = herd_figures(arguments.processes, arguments.timeout, arguments.budget)
    else:
        figures = memory_figures(arguments.cells, arguments.cell_kb, arguments.limit_mb)
    print(json.dumps({"tree": str(ROOT), "load": [round(x, 2) for x in load], **figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
