"""The checks a maintainer runs before every commit (``make check``) are the ones CI and pre-commit run.

``make check`` is ruff (lint and format), mypy and the fast tests; ``.ci/run`` runs it before anything
slower; the pre-commit hooks call the same tools from the project's own virtualenv, so they work offline;
and pytest refuses a marker nobody registered, so a typo cannot silently move a test out of ``make check``.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ("-m ruff check", "-m ruff format --check", "-m mypy")


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


def test_ci_runs_make_check_before_anything_slower() -> None:
    commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert commands[0] == "make check"


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
    used = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
                and getattr(node.value.value, "id", "") == "pytest"
            ):
                used.add(node.attr)
    assert used - builtin <= registered, used - builtin - registered
    assert {"slow", "sandboxed"} <= used


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
