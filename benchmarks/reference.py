"""`make bench`'s rows against the chapter's TypeScript reference: JSONL recovery and ``build_context``.

The reference is the chapter's own code (the ``unofn/pi`` repository, ``packages/pi-course``:
``src/session.ts``'s ``recoverJsonl`` and ``src/context.ts``'s ``buildContext``). None of it is
kept here: ``--reference DIR`` (or ``COURSE_BENCH_REFERENCE``) names a checkout of
``packages/pi-course``, and the bench bundles its ``src/session.ts`` and ``src/context.ts`` with
Debian's ``esbuild`` into its temporary folder and runs them with ``node``
(``reference_driver.mjs``); nothing is downloaded. Without a checkout the rows say so and count
as not met.

On the same session file (the lifecycle session of ``agent_session.py``), taking turns run by
run as the other rows do, each side's CPU time, the best of the rounds:

* **recovery**: the pack's first open + ``entries()`` (``SessionReader.open`` on a file it has
  never read: every line read, validated and placed in the tree, the index written, every model
  built) against the reference's ``recoverJsonl(readFileSync(file))`` (every line parsed and
  validated into a deep copy; its store's tree check is left out, which only helps it).
  Target: the pack at least as fast (a ratio pack/reference <= 1).
* **build_context**: the pack's ``build_context`` of the whole path with the budget the bench's
  ``build_context`` row uses, against the reference's ``buildContext`` of the same path (its
  ``pathTo`` taken once, outside the timing), both with the ``chars/4`` estimator. The pack has
  led by 3.5-5.5x; target: it keeps the lead (a ratio <= 1).

Both results are checked first: the same number of entries recovered, the same kept ids and reason.
Node's clock is ``process.cpuUsage()`` (every thread of the process, as ``time.process_time``
is for Python): each run starts after a full collection and with cold CPU caches. The clock
stops when a side has its result: the reference's garbage is collected before its next run,
outside its clock, and the pack's result is freed after its clock stops, in the same way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REFERENCE_ENV = "COURSE_BENCH_REFERENCE"
"""A checkout of the reference's ``packages/pi-course`` (the folder holding ``src/session.ts``)."""
DRIVER = Path(__file__).resolve().parent / "reference_driver.mjs"
SOURCES = ("src/session.ts", "src/context.ts")


@dataclass
class Reference:
    """One session size: the pack's and the reference's recovery and build_context (CPU seconds)."""

    entries: int
    recover: float
    """The reference's ``recoverJsonl(readFileSync(file))``."""
    first_open: float
    """The pack's first open + ``entries()``, taking turns with ``recover``."""
    build: float
    """The reference's ``buildContext`` of the whole path."""
    pack_build: float
    """The pack's ``build_context`` of the whole path, taking turns with ``build``."""

    @property
    def recovery_ratio(self) -> float:
        return self.first_open / self.recover

    @property
    def build_ratio(self) -> float:
        return self.pack_build / self.build


def reference_folder() -> Path | None:
    """The reference's checkout named by ``COURSE_BENCH_REFERENCE``, when it holds the sources."""
    configured = os.environ.get(REFERENCE_ENV)
    if not configured:
        return None
    folder = Path(configured).expanduser().resolve()
    return folder if all((folder / source).is_file() for source in SOURCES) else None


def missing_reason() -> str | None:
    """Why the reference rows cannot run here, or ``None`` when they can."""
    if reference_folder() is None:
        where = os.environ.get(REFERENCE_ENV)
        return (
            f"{REFERENCE_ENV}={where} holds no {' or '.join(SOURCES)}"
            if where
            else "no checkout of the reference named (--reference DIR: the pi repository's packages/pi-course)"
        )
    for program in ("node", "esbuild"):
        if shutil.which(program) is None:
            return f"no {program} on PATH (make bench installs Debian's esbuild; node comes with the machine)"
    return None


def bundle(workdir: Path) -> Path:
    """The reference's ``recoverJsonl``, ``pathTo`` and ``buildContext`` in one ES module, built here."""
    folder = reference_folder()
    assert folder is not None, missing_reason()
    entry = workdir / "reference-entry.mjs"
    entry.write_text(
        f"export {{ recoverJsonl, pathTo }} from {json.dumps(str(folder / 'src/session.ts'))};\n"
        f"export {{ buildContext }} from {json.dumps(str(folder / 'src/context.ts'))};\n",
        encoding="utf-8",
    )
    out = workdir / "reference.mjs"
    command = ["esbuild", str(entry), "--bundle", "--platform=node", "--format=esm", "--target=node18"]
    subprocess.run([*command, f"--outfile={out}", "--log-level=warning"], check=True)
    return out


class Driver:
    """``reference_driver.mjs`` under node: one run per command, its CPU seconds back."""

    def __init__(self, module: Path, session: Path, leaf: str, budget: dict[str, int]) -> None:
        options = {
            "maxTokens": budget["max_tokens"],
            "reservedOutput": budget["reserved_output"],
            "safetyMargin": budget["safety_margin"],
        }
        command = ["node", "--expose-gc", str(DRIVER), module.as_uri(), str(session), leaf, json.dumps(options)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.first = json.loads(self._line())
        """What the reference got: ``entries`` recovered, the ``kept`` ids and the ``reason``."""

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the reference's driver stopped (exit {self.process.wait()})")
        return line

    def run(self, command: str) -> float:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return float(json.loads(self._line())["cpu"])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def take_turns(
    ours: Callable[[], object], theirs: Callable[[], float], cold: Callable[[], None], *, rounds: int
) -> tuple[float, float]:
    """The best CPU seconds of each side, one run of each per round (the reference times itself)."""
    ours()
    theirs()  # warm-ups: pydantic's validators, V8's compiled code
    best_ours = best_theirs = float("inf")
    for _ in range(rounds):
        cold()
        start = time.process_time()
        result = ours()
        best_ours = min(best_ours, time.process_time() - start)
        del result  # freed after the clock stops, as V8 collects the reference's garbage between its runs
        best_theirs = min(best_theirs, theirs())
    return best_ours, best_theirs


def reference_lines(rows: list[Reference]) -> list[str]:
    return [
        f"at {row.entries} entries: recovery, the pack's first open + entries() {row.first_open * 1e3:.2f} ms,"
        f" the reference's recoverJsonl {row.recover * 1e3:.2f} ms ({row.recovery_ratio:.2f}x);"
        f" build_context {row.pack_build * 1e3:.2f} ms, the reference's buildContext {row.build * 1e3:.2f} ms"
        f" ({row.build_ratio:.2f}x)"
        for row in rows
    ]


def reference_verdicts(rows: list[Reference], kept_share: dict[int, float]) -> list[tuple[bool, str]]:
    checks: list[tuple[bool, str]] = []
    for row in rows:
        kept = f"[kept {kept_share[row.entries]:.1%}]" if row.entries in kept_share else ""
        checks.append(
            (
                row.recovery_ratio <= 1.0,
                f"JSONL recovery (first open + entries()) takes {row.recovery_ratio:.2f}x the reference's"
                f" recoverJsonl at {row.entries} entries (target <= 1x: at least as fast) {kept}".rstrip(),
            )
        )
        checks.append(
            (
                row.build_ratio <= 1.0,
                f"build_context takes {row.build_ratio:.2f}x the reference's buildContext at {row.entries} entries"
                f" (target <= 1x: it keeps its lead) {kept}".rstrip(),
            )
        )
    return checks
