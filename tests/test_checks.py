"""The checks a maintainer runs before every commit (``make check``) are the ones CI and pre-commit run.

``make check`` is ruff (lint and format), mypy and the fast tests; ``.ci/run`` runs the same lint (``make lint``)
before anything slower, then each suite once per Python (the fast tests are ``make test``'s); the pre-commit hooks
call the same tools from the project's own virtualenv, so they work offline; and pytest refuses a marker nobody
registered, so a typo cannot silently move a test out of ``make check``.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ("-m ruff check", "-m ruff format --check", "-m mypy")
SUITES = ["test", "test-sandboxed", "test-integration"]
"""The Makefile's suites, which together run every test once (make check's fast tests are make test's)."""


def _recipe(target: str) -> list[str]:
    """The commands of a Makefile target: the tab-indented lines right after ``target:``."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    block: list[str] = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        block.append(line.strip())
    return block


def test_make_check_runs_ruff_mypy_and_the_fast_tests() -> None:
    recipe = _recipe("check")
    for command in CHECKS:
        assert any(command in line for line in recipe), (command, recipe)
    tests = next(line for line in recipe if "-m pytest" in line)
    assert "$(FAST_TESTS)" in tests and "-n 2" in tests
    fast = re.search(r"^FAST_TESTS := (.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert fast and fast.group(1) == '-m "not slow and not sandboxed" -p no:nbval'


def test_ci_runs_make_checks_lint_before_anything_slower() -> None:
    lint = _recipe("lint")
    for command in CHECKS:
        assert any(command in line for line in lint), (command, lint)
    assert _ci_commands()[0] == "make lint"


def test_ci_runs_each_suite_once_per_python() -> None:
    """On python3 and in the nox session: make test, make test-sandboxed, make test-integration, each once.

    make check is not among them: its fast tests are make test's, and its lint is make lint.
    """
    commands = _ci_commands()
    suites = [command.split()[1] for command in commands if command.split()[1] in SUITES]
    assert sorted(suites) == sorted(SUITES), commands
    assert "make check" not in commands
    assert [command for command in commands if "test-pythons" in command] == ['make test-pythons NOX_ARGS="-p 3.13"']
    assert not set(_recipe("test-pythons")[0].split()) & set(SUITES)  # nox's session names the suites, once each
    assert _nox_suites() == SUITES


def _ci_commands() -> list[str]:
    return [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]


def _nox_suites() -> list[str]:
    """The make targets ``noxfile.py``'s session runs when given none (its ``SUITES``)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    value = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "SUITES" for target in node.targets)
    )
    return list(ast.literal_eval(value))


def test_pre_commit_hooks_are_local_and_call_the_same_tools() -> None:
    text = (ROOT / ".pre-commit-config.yaml").read_text()
    assert re.findall(r"^\s*-\s*repo:\s*(\S+)", text, re.MULTILINE) == ["local"]  # nothing to download
    entries = re.findall(r"^\s*entry:\s*(.+)$", text, re.MULTILINE)
    assert all(entry.startswith(".venv/bin/python -m ") for entry in entries)
    for command in CHECKS:
        assert any(command.removeprefix("-m ") in entry for entry in entries), command


def test_every_marker_the_tests_use_is_registered_and_strict() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"].split()
    registered = {marker.split(":")[0] for marker in options["markers"]}
    builtin = {"parametrize", "skipif", "skip", "xfail", "filterwarnings", "usefixtures"}
    used = {  # read as text: the test files' syntax trees would cost seconds, and only these words matter
        marker
        for path in (ROOT / "tests").rglob("*.py")
        for marker in re.findall(r"\bpytest\.mark\.(\w+)", path.read_text(encoding="utf-8"))
    }
    assert used - builtin <= registered, used - builtin - registered
    assert {"slow", "sandboxed", "integration"} <= used


def test_every_test_folder_is_a_root_of_its_own_for_mypy() -> None:
    """A test folder missing from ``mypy_path`` makes its modules ``course_lib.test_x`` to mypy: the package's rules, wrongly."""
    roots = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["mypy_path"])
    folders = {str(path.parent.relative_to(ROOT)) for path in (ROOT / "tests").rglob("test_*.py")}
    assert folders <= roots, sorted(folders - roots)


def test_the_tests_mirror_the_packages() -> None:
    """``tests/lib/<part>`` names a part of ``course_lib``; ``tests/grader/<stage>`` a stage of the grader; ``tests/live``
    is ``course_live``, the live lab's server (a flat package: no folders below it).

    Not ``tests/course_lib``: with ``tests/`` on ``sys.path`` (pytest's ``pythonpath``, the scripts and
    subprocesses that import the shared helpers), a folder named like a package is a namespace package that an
    editable install's finder comes too late to beat, and ``import course_grader`` would find the tests.
    """
    mirrors = {"lib": "course_lib", "grader": "course_grader"}
    for tests, package in mirrors.items():
        for folder in (ROOT / "tests" / tests).rglob("*"):
            if folder.is_dir() and folder.name != "__pycache__":
                assert (ROOT / package / folder.relative_to(ROOT / "tests" / tests)).is_dir(), folder
    assert not [
        folder for folder in (ROOT / "tests" / "live").iterdir() if folder.is_dir() and folder.name != "__pycache__"
    ]
    shadowing = {path.name for path in (ROOT / "tests").iterdir()} & {
        "course_lib",
        "course_grader",
        "course_live",
        "benchmarks",
    }
    assert not shadowing
