"""The folder list is the architecture: the chapter's code in ``course_lib``, its tooling beside it, the grader apart.

``course_grader`` (the autograder) depends on ``course_lib`` and never the other
way round, so what a learner imports and reads holds nothing of the grader and
a sandbox that sees only ``course_lib`` sees no grading code. ``course_lib``'s
top-level modules are the chapter's core (models, parser, stores, grouping,
context, compaction, …), which a learner reads whole: they import nothing but
each other. The tooling sits beside them in folders: ``teaching`` (rules,
labs, words, languages) under the four parts (lifecycle, importers, then the
explorer, which shows imported sessions, and the checklist, which checks the
lifecycle too) and the fast ``reader`` the explorer and importers open long
sessions with; the command lines (``cli``, ``__main__``) sit on top. Inside
``course_grader``, the folders are the grading pipeline in order: intake →
sandbox → judging → course → results → batch → similarity → publish →
packaging → cli, over a base
(``errors``, ``safe_text``, ``files``) that every stage may use. ``course_live`` (the
live lab's server, issue 46) sits beside the grader: it may read all of ``course_lib``
(the rules, the labs, the checklist's catalogue) and nothing of the grader, and neither
package ever imports it (the learner's side of the live lab is ``course_lib``'s own,
``checklist/live.py``). Each layer may
import only what lies below it; this test reads every import statement (and
every ``importlib`` target) to hold that. Within a layer, no two modules import
each other (not even lazily), and no module imports another's private name.
And every module reads in one sitting: at most ``MODULE_LINES`` lines, no
function over ``FUNCTION_LINES``. Each rule is one test whose failure lists
every offender.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from source_trees import nodes

ROOT = Path(__file__).resolve().parents[1]
LEARNER, GRADER, LIVE = "course_lib", "course_grader", "course_live"
OURS = (LEARNER, GRADER, LIVE)
TOOLING = ("teaching", "reader", "checklist", "explorer", "importers", "lifecycle", "migration")
"""``course_lib``'s folders: the course's tooling, beside the chapter's modules."""
PARTS = ("checklist", "explorer", "importers", "lifecycle", "migration")
STAGES = ("intake", "sandbox", "judging", "course", "results", "batch", "similarity", "publish", "packaging", "cli")
"""``course_grader``'s folders, in the order a submission passes through them."""
CORE_LINES = 2500
"""The chapter's core, read whole: about the size of a short book chapter's code."""

ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "teaching": {"core", "teaching"},
    "reader": {"core", "teaching", "reader"},
    "lifecycle": {"core", "teaching", "reader", "lifecycle"},
    "importers": {"core", "teaching", "reader", "importers"},
    "migration": {"core", "teaching", "migration"},
    "explorer": {"core", "teaching", "reader", "importers", "explorer"},
    "checklist": {"core", "teaching", "lifecycle", "checklist"},
    "command line": {"core", *TOOLING},
    f"{GRADER} base": {"core", *TOOLING, f"{GRADER} base"},
    **{
        f"{GRADER}.{stage}": {"core", *TOOLING, f"{GRADER} base", *(f"{GRADER}.{s}" for s in STAGES[: i + 1])}
        for i, stage in enumerate(STAGES)
    },
    f"{GRADER} package": {"core", *TOOLING, f"{GRADER} base", *(f"{GRADER}.{s}" for s in STAGES)},
    LIVE: {"core", *TOOLING, LIVE},
}
"""Which layers each layer may import; ``course_lib`` as a whole never names ``course_grader``.

The core imports only itself: a learner reading it meets nothing of the course's
tooling. A grader stage sees the stages before it, never one after: ``judging``
may read what ``intake`` read and run ``sandbox``'s kernel, but nothing in it
knows how a result is published or packaged. The package's own ``__init__`` and
``__main__`` (its lazy exports and ``python -m course_grader``) sit on top.
"""


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == LIVE:
        return LIVE
    if parts[0] == GRADER:
        if len(parts) > 1 and parts[1] in STAGES:
            return f"{GRADER}.{parts[1]}"
        return f"{GRADER} package" if parts[1:] in ([], ["__main__"]) else f"{GRADER} base"
    if parts[0] != LEARNER:
        return "outside"
    if parts[-1] in ("cli", "__main__"):
        return "command line"
    if len(parts) > 1 and parts[1] in TOOLING:
        return parts[1]
    return "core"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str | Path, package: str) -> Iterator[tuple[int, str]]:
    """Every module ``source`` (a module of ``package``, or its file) imports, as absolute names with their line.

    ``from x import y`` yields ``x`` and ``x.y`` (``y`` may be a module);
    ``importlib.import_module("…")`` with a literal name counts too.
    """
    for node in nodes(source) if isinstance(source, Path) else ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, target
            yield from ((node.lineno, f"{target}.{alias.name}") for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def violations(module: str, source: str | Path, *, is_package: bool = False) -> list[str]:
    """Imports of ``module`` that point up or sideways, one line each."""
    own, package = layer(module), module if is_package else module.rpartition(".")[0]
    found = []
    for line, name in imported(source, package):
        target = _resolved(name) if name.split(".")[0] in OURS else None
        if target is not None and layer(target) not in ALLOWED[own]:
            found.append(f"line {line}: {module} ({own}) imports {target} ({layer(target)})")
    return sorted(set(found))


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _real_modules() -> set[str]:
    return {module_name(path) for package in OURS for path in sources(package)}


MODULES = _real_modules()


def _resolved(name: str) -> str | None:
    """``name`` if it is one of ours, else the module it names an attribute of (``pkg.mod.func`` -> ``pkg.mod``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def every_source() -> list[Path]:
    return sources(LEARNER) + sources(GRADER) + sources(LIVE)


def test_every_import_points_down() -> None:
    wrong = [
        found
        for path in every_source()
        for found in violations(module_name(path), path, is_package=path.name == "__init__.py")
    ]
    assert not wrong, "\n".join(wrong)


def test_the_learner_package_never_names_the_grader() -> None:
    """Not even in a lazy import: a sandbox holds ``course_lib`` only, so such an import could only fail there."""
    named = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sources(LEARNER)
        for line, name in imported(path, module_name(path).rpartition(".")[0])
        if name.split(".")[0] == GRADER
    ]
    assert not named


def test_neither_package_names_the_live_server() -> None:
    """``course_live`` is the instructor's server: no learner's kernel, sandbox or grader holds or needs it."""
    named = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sources(LEARNER) + sources(GRADER)
        for line, name in imported(path, module_name(path).rpartition(".")[0])
        if name.split(".")[0] == LIVE
    ]
    assert not named


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("course_lib.context", "import course_grader.batch.batch\n"),
        ("course_lib.context", "def f():\n    from .checklist import cases\n"),
        ("course_lib.models", "from .teaching import rules\n"),
        ("course_lib.lifecycle.budget", "from ..explorer.projection import project\n"),
        ("course_lib.importers.pi", "importlib.import_module('course_lib.checklist.runner')\n"),
        ("course_lib.grouping", "from . import checklist\n"),
        ("course_grader.intake.notebook", "from ..judging.grade import GradeOptions\n"),
        ("course_grader.judging.grade", "def f():\n    from ..results import scoring\n"),
        ("course_grader.sandbox.kernel", "import course_grader.publish.pages\n"),
        ("course_grader.errors", "from .intake import notebook\n"),
        ("course_grader.publish.report", "from ..cli import app\n"),
        ("course_lib.checklist.live", "from course_live import posts\n"),
        ("course_grader.cli.app", "import course_live.server\n"),
        ("course_live.export", "from course_grader.safe_text import FORMULA_STARTS\n"),
    ],
)
def test_a_wrong_way_import_is_seen(module: str, source: str) -> None:
    """The check itself: absolute, relative, lazy and ``import_module`` imports that point up all fail it."""
    assert violations(module, source)


def test_imports_that_point_down_pass() -> None:
    assert not violations(
        "course_grader.judging.grade", "from course_lib.checklist import harness\nfrom .sandbox import Sandbox\n"
    )
    assert not violations("course_lib.checklist.cases", "from ..lifecycle import settings\nfrom .. import fixtures\n")


# --- no cycles, no private names across modules --------------------------------------------------


def dependencies(path: Path) -> dict[str, int]:
    """The modules of ours that ``path`` imports, each with its first line; ``from . import x`` names ``x`` itself."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in nodes(path):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            names = [f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names]
        for name in names:
            resolved = _resolved(name) if name.split(".")[0] in OURS else None
            if resolved is not None and resolved != module:
                found.setdefault(resolved, node.lineno)
    return found


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_anywhere() -> None:
    """Not even through a lazy import inside a function: a cycle is two modules that cannot be read apart."""
    graph = {module_name(path): dependencies(path) for package in OURS for path in sources(package)}
    described = [
        " → ".join(group)
        + ": "
        + ", ".join(f"{a}:{graph[a][b]} imports {b}" for a in group for b in graph[a] if b in group)
        for group in cycles(graph)
    ]
    assert not described, "\n".join(described)


def test_a_cycle_is_seen() -> None:
    assert cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_private_name_crosses_a_module() -> None:
    """What two modules share is public in the one that owns it (``from .x import _y`` hides a dependency)."""
    private = [
        f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name}"
        for path in every_source()
        for node in nodes(path)
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in OURS)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert not private, "\n".join(private)


MODULE_LINES = 400
FUNCTION_LINES = 60
"""A module a person reads in one sitting, a function a screen holds: past these, split by idea."""


def too_long(path: Path) -> list[str]:
    """The module itself if over ``MODULE_LINES``, and each function (method, nested one) over ``FUNCTION_LINES``."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    found = [f"{lines} lines"] if lines > MODULE_LINES else []
    for node in nodes(path):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > FUNCTION_LINES:
                found.append(f"line {node.lineno}: {node.name} is {length} lines")
    return found


def test_every_module_reads_in_one_sitting() -> None:
    """Each module one idea, short enough to read whole; each function short enough to hold in mind."""
    long = [f"{path.relative_to(ROOT)}: {found}" for path in every_source() for found in too_long(path)]
    assert not long, "\n".join(long)


def test_the_core_reads_whole() -> None:
    """The chapter's core, ``course_lib``'s top-level modules, at most ``CORE_LINES`` lines in all: what only
    the course's tooling needs (a faster reader, a real tokenizer) lives in the folders beside it."""
    lengths = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in (ROOT / LEARNER).glob("*.py")}
    assert sum(lengths.values()) <= CORE_LINES, sorted(lengths.items(), key=lambda item: -item[1])


def test_the_reading_order_names_every_module_of_the_core_once() -> None:
    """``course_lib/README.md`` orders the chapter's modules, each with its lab and rules: none left out, none twice."""
    readme = (ROOT / LEARNER / "README.md").read_text(encoding="utf-8")
    table = [line for line in readme.splitlines() if line.startswith("| ") and "`" in line.split("|")[2]]
    named = [name for line in table for name in re.findall(r"\[`(\w+\.py)`\]", line.split("|")[2])]
    core = sorted(path.name for path in (ROOT / LEARNER).glob("*.py") if path.name != "__init__.py")
    assert sorted(named) == core and len(set(named)) == len(named), (named, core)


def test_the_core_needs_no_suppression() -> None:
    """A learner reads the core whole: no ``type: ignore`` and no ``noqa`` to puzzle over."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / LEARNER).glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "type: ignore" in line or "noqa" in line
    ]
    assert not found


def test_a_long_function_is_seen(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    path = tmp_path / "long.py"
    path.write_text(f"def f():\n{body}\n", encoding="utf-8")
    assert too_long(path) == [f"line 1: f is {FUNCTION_LINES + 1} lines"]
    path.write_text("x = 1\n" * (MODULE_LINES + 1), encoding="utf-8")
    assert too_long(path) == [f"{MODULE_LINES + 1} lines"]
