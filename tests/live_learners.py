"""Simulated learners of a live lab: the real Lab 11.3 notebook, run headless through nbclient (issue 46).

Each learner is a kernel of its own running a whole notebook, as a learner's
Jupyter would, with the join variables in its environment (``COURSE_LIVE_URL``,
``COURSE_LIVE_CODE``, ``COURSE_LIVE_NAME``): the solution, one of the lab's mutants
(``tests/mutants/lab_11_3.py``, ``Mutant.notebook()``) or the learner's stub
notebook. What each learner saw in its checklist cell is read back from the
executed notebook (``seen``), so a test can hold the instructor's page to what the
learners themselves were shown.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grading_corpus import learner as stub_notebook
from grading_corpus import solution, tagged
from live_server import Server
from mutants import Mutant
from mutants.lab_11_3 import MUTANTS
from nbclient import NotebookClient
from nbformat import NotebookNode

from course_lib.checklist import live
from course_lib.teaching.rules import RULES, cited

LAB = "11.3"
ROOT = Path(__file__).resolve().parent.parent
MARKS = {"✅": "pass", "❌": "fail", "💥": "fail", "⏳": "not implemented"}
ROW = re.compile(r"^\s*(\d+)\s+11\.3\s+\S+\s+(✅|❌|💥|⏳)")
MESSAGE = re.compile(r"^\s+↳ ((?:[RLM]\d+)(?:/[RLM]\d+)*):")


@dataclass(frozen=True)
class Learner:
    name: str
    kind: str
    """``solution``, ``stub`` or a mutant's name."""
    mutant: Mutant | None = None

    def notebook(self) -> NotebookNode:
        if self.mutant is not None:
            return self.mutant.notebook()
        return solution(LAB) if self.kind == "solution" else stub_notebook(LAB)


def room(count: int, mutants: Sequence[Mutant] = MUTANTS) -> list[Learner]:
    """``count`` learners: two in five run the solution, two in five a mutant (in the corpus's order), one a stub."""
    learners: list[Learner] = []
    for index in range(count):
        slot = index % 5
        if slot in (0, 1):
            learners.append(Learner(f"learner-{index:02d}", "solution"))
        elif slot in (2, 3):
            mutant = mutants[(index // 5 * 2 + slot - 2) % len(mutants)]
            learners.append(Learner(f"learner-{index:02d}", mutant.name, mutant))
        else:
            learners.append(Learner(f"learner-{index:02d}", "stub"))
    return learners


def run(learner: Learner, server: Server, *, url: str | None = None, code: str | None = None) -> str:
    """Run ``learner``'s notebook in a fresh kernel joined to ``server``; return what its checklist cell showed."""
    notebook = learner.notebook()
    environment = {
        **os.environ,
        live.URL_VARIABLE: url or server.url,
        live.CODE_VARIABLE: code or server.code,
        live.NAME_VARIABLE: learner.name,
        "COURSE_LANG": "en",
    }
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,  # a stub's cells raise; the checklist cell still runs, as in a learner's Jupyter
        resources={"metadata": {"path": str(ROOT / "labs")}},
    )
    client.execute(env=environment)
    return checklist_output(notebook)


def checklist_output(notebook: NotebookNode) -> str:
    cell = tagged(notebook, "checklist")[0]
    return "".join(
        output.get("data", {}).get("text/plain", "")
        if output.output_type == "execute_result"
        else output.get("text", "")
        for output in cell.outputs
    )


def run_all(learners: Iterable[Learner], server: Server, workers: int = 2) -> dict[str, str]:
    """Every learner's notebook, ``workers`` kernels at a time; each learner's checklist output by name."""
    chosen = list(learners)
    with ThreadPoolExecutor(workers) as pool:
        outputs = list(pool.map(lambda learner: run(learner, server), chosen))
    return {learner.name: output for learner, output in zip(chosen, outputs, strict=True)}


def seen(output: str) -> dict[int, tuple[str, tuple[str, ...]]]:
    """Per check, the status a learner's checklist table showed and the rules its message starts with."""
    found: dict[int, tuple[str, tuple[str, ...]]] = {}
    last: int | None = None
    for line in output.splitlines():
        row, message = ROW.match(line), MESSAGE.match(line)
        if row:
            last = int(row.group(1))
            found[last] = (MARKS[row.group(2)], ())
        elif message and last is not None:
            found[last] = (found[last][0], tuple(cited(message.group(1))))
    return found


def counts(outputs: dict[str, str], checks: Sequence[int]) -> dict[int, tuple[int, int, int]]:
    """Per check, how many learners saw it pass, fail, or not started (a stub's, or no row)."""
    tallies = {
        number: Counter(seen(output).get(number, ("none", ()))[0] for output in outputs.values()) for number in checks
    }
    return {n: (c["pass"], c["fail"], len(outputs) - c["pass"] - c["fail"]) for n, c in tallies.items()}


def most_failed_rule(outputs: dict[str, str]) -> tuple[str, int]:
    """The rule most learners' failing messages start with (each learner once), ties to the table's first."""
    by_rule: Counter[str] = Counter()
    for output in outputs.values():
        by_rule.update({rule for status, rules in seen(output).values() if status == "fail" for rule in rules})
    order = [rule.id for rule in RULES]
    rule = min(by_rule, key=lambda r: (-by_rule[r], order.index(r)))
    return rule, by_rule[rule]
