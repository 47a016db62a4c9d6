"""The files a contributor looks for say what the repository does: CI, the make targets, coverage, typing, licenses.

GitHub's workflow runs ``.ci/run`` (the course's CI script) as root on the Pythons it needs; every ``make``
target a workflow or CONTRIBUTING.md names exists, and CONTRIBUTING.md describes every target the Makefile
declares; CI measures the coverage of both packages against a floor of at least 90 %; both packages are typed
strictly; the package's license metadata names the file that states it; the changelog keeps an Unreleased section
on top.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from course_grader.sandbox import cgroup

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
MAKE = re.compile(r"\bmake ([a-z][\w-]*)")


def _workflow(name: str) -> dict[Any, Any]:
    loaded = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    assert isinstance(loaded, dict)
    return loaded


def _triggers(workflow: dict[Any, Any]) -> set[str]:
    """The events of ``on:`` (YAML 1.1 reads the bare key ``on`` as True)."""
    found: Any = workflow["on"] if "on" in workflow else workflow[True]
    return {str(event) for event in found} if isinstance(found, dict | list) else {str(found)}


def _steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def _runs(workflow: dict[Any, Any]) -> str:
    return "\n".join(step.get("run", "") for step in _steps(workflow))


def _make_targets() -> set[str]:
    phony = re.search(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert phony
    return set(phony.group(1).split())


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_ci_workflow_runs_ci_run_as_root_on_both_pythons() -> None:
    workflow = _workflow("ci.yml")
    assert {"push", "pull_request"} <= _triggers(workflow)
    runs = _runs(workflow)
    assert re.search(r"^sudo .*\bbash \.ci/run$", runs, re.MULTILINE), runs  # root, as .ci/run needs
    assert 'env "PATH=$PATH"' in runs  # sudo would otherwise drop setup-python's interpreters
    setup = next(step for step in _steps(workflow) if step.get("uses", "").startswith("actions/setup-python@"))
    versions = setup["with"]["python-version"].split()
    assert versions[-1] == "3.11"  # the last one listed is python3, which builds .venv (the Makefile's default)
    nox_pythons = re.findall(r'NOX_ARGS="-p ([\d.]+)"', (ROOT / ".ci" / "run").read_text())
    assert nox_pythons and set(nox_pythons) <= set(versions)
    assert f"{cgroup.DELEGATED}=" in runs  # the delegated cgroup the grader's sandboxes are made in


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_every_workflow_calls_make_targets_that_exist(path: Path) -> None:
    workflow = _workflow(path.name)
    assert workflow["jobs"] and _triggers(workflow)
    named = set(MAKE.findall(_runs(workflow)))
    assert named <= _make_targets(), named - _make_targets()


def test_the_book_workflow_builds_the_book() -> None:
    assert "book" in MAKE.findall(_runs(_workflow("book.yml")))


def test_contributing_describes_every_make_target_and_no_other() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    named = set(MAKE.findall(text))
    targets = _make_targets() - {"clean"}
    assert targets <= named, targets - named
    assert named <= _make_targets(), named - _make_targets()


def test_ci_measures_the_coverage_of_both_packages_against_its_floor() -> None:
    """make test measures where it is cheap (Python 3.12 and later, through sys.monitoring), CI runs it on 3.13."""
    makefile = (ROOT / "Makefile").read_text()
    measure = re.search(r"^MEASURE := (.*)$", makefile, re.MULTILINE)
    assert measure and {"--cov=course_lib", "--cov=course_grader"} <= set(measure.group(1).split())
    assert re.search(r"^COVERAGE = .*sys\.version_info >= \(3, 12\).*\$\(MEASURE\)", makefile, re.MULTILINE)
    test = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "COVERAGE_CORE=sysmon" in test and "$(COVERAGE)" in test
    assert _pyproject()["tool"]["coverage"]["run"]["source"] == ["course_lib", "course_grader"]
    assert _pyproject()["tool"]["coverage"]["report"]["fail_under"] >= 90
    nox_pythons = re.findall(r'NOX_ARGS="-p ([\d.]+)"', (ROOT / ".ci" / "run").read_text())
    # a session that measures (it runs make test: tests/test_checks.py)
    assert any(tuple(map(int, python.split("."))) >= (3, 12) for python in nox_pythons)


def test_both_packages_are_typed_strictly() -> None:
    strict = [
        override
        for override in _pyproject()["tool"]["mypy"]["overrides"]
        if override.get("disallow_untyped_defs") and override.get("disallow_incomplete_defs")
    ]
    modules = {module for override in strict for module in override["module"]}
    assert {"course_lib", "course_lib.*", "course_grader", "course_grader.*"} <= modules


def test_license_metadata_names_the_files_that_state_it() -> None:
    project = _pyproject()["project"]
    assert project["license"] == "MIT"
    assert all((ROOT / name).is_file() for name in project["license-files"])
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    text = (ROOT / "LICENSE-text").read_text()
    assert "Attribution-ShareAlike 4.0 International" in text and "licenses/by-sa/4.0/legalcode" in text
    # a license expression (PEP 639) needs setuptools 77 or later to build
    assert "setuptools>=77" in _pyproject()["build-system"]["requires"]


def test_changelog_keeps_an_unreleased_section_on_top() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert versions and versions[0] == "[Unreleased]"
    kinds = set(re.findall(r"^### (.+)$", text, re.MULTILINE))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
