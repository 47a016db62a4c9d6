"""environment.yml mirrors pyproject.toml, the one place where dependency ranges live."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENT = re.compile(r"^\s*-\s+([A-Za-z0-9_.\-]+)\s*([<>=!~][^#\s]*)?\s*$")


def _pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    own = project["name"]
    return dict(_split(line) for line in lines if not line.startswith(f"{own}["))  # [dev] includes [lab], [sessions]


def _split(requirement: str) -> tuple[str, str]:
    match = re.match(r"([A-Za-z0-9_.\-]+)\s*(.*)", requirement)
    assert match, requirement
    return match.group(1).lower(), match.group(2).replace(" ", "")


def _environment_requirements() -> dict[str, str]:
    found: dict[str, str] = {}
    text = (ROOT / "environment.yml").read_text()
    for line in text.split("dependencies:", 1)[1].splitlines():
        match = REQUIREMENT.match(line)
        if match and match.group(1) not in {"python", "pip"}:
            found[match.group(1).lower()] = (match.group(2) or "").replace(" ", "")
    return found


def test_environment_yml_has_the_same_ranges_as_pyproject() -> None:
    assert _environment_requirements() == _pyproject_requirements()


def test_environment_yml_installs_the_package_itself() -> None:
    text = (ROOT / "environment.yml").read_text()
    assert '-e ".[dev]"' in text
    python = re.search(r"-\s+python\s*([^\s]+)", text)
    required = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert python and python.group(1) == required
