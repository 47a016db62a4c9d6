"""Each dependency comes with the part that uses it (issue 42): a learner's install brings no grader library.

``pyproject.toml`` splits the ranges by who uses them: the package itself (what
the labs and notebooks import), ``[lab]`` (JupyterLab, widgets), ``[sessions]``
(real token counts), ``[grader]`` (``course-grade``), ``[book]``. This reads every
import of ``course_lib`` and ``course_grader`` and asks the installed metadata
which distribution provides it: each must be among what its package's install
brings (those requirements and what they in turn require), so an import that
needs the grader's extra cannot slip into what learners install. The live lab's
server (``course_live``, issue 46) brings ``[live]`` (Starlette, uvicorn), and only its
hub login (``hub_login.py``) needs ``[hub]`` (JupyterHub's ``HubOAuth``); the learner's
side of the live lab is ``course_lib``'s and needs neither.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from source_trees import nodes

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
LEARNER_EXTRAS = ("lab", "sessions")
"""What a learner may add to the package: ``make lab``'s JupyterLab and widgets, and real token counts. Their own
names only, not what they require in turn (JupyterLab brings nbformat and jinja2, which are the grader's)."""
GRADER_ONLY = {"nbclient", "nbformat", "tqdm", "jinja2", "copydetect"}
LIVE_ONLY = {"starlette", "uvicorn", "jupyterhub"}
HUB_LOGIN = "course_live/hub_login.py"
"""The one module of the live lab's server that needs ``[hub]``, imported only by ``course-live serve --hub``."""


def requirements(*extras: str) -> set[str]:
    """The package's own requirements and those of ``extras``, by canonical name."""
    lines = PROJECT["dependencies"] + [line for extra in extras for line in PROJECT["optional-dependencies"][extra]]
    return {canonicalize_name(Requirement(line).name) for line in lines}


@cache
def closure(names: frozenset[str]) -> frozenset[str]:
    """``names`` and everything their installed metadata requires, without extras, on this Python."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(requirement.name))
    return frozenset(seen)


def third_party_imports(package: str, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every top-level module ``package`` imports that is neither the standard library's nor ours, with a place
    (the files ``skip`` names, relative to the repository, left out)."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        if str(path.relative_to(ROOT)) in skip:
            continue
        for node in nodes(path):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("course_lib", "course_grader", "course_live"):
                    found.setdefault(top, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@cache
def providers() -> Mapping[str, list[str]]:
    """Which installed distributions provide each top-level module (read from every distribution's files, once)."""
    return metadata.packages_distributions()


def unprovided(package: str, allowed: frozenset[str], skip: tuple[str, ...] = ()) -> list[str]:
    return [
        f"{where} imports {module} (from {', '.join(providers().get(module, ['nothing installed']))})"
        for module, where in third_party_imports(package, skip).items()
        if not {canonicalize_name(d) for d in providers().get(module, [])} & allowed
    ]


def learner_install() -> frozenset[str]:
    """The package with what it requires, and the learner's extras by their own names."""
    return closure(frozenset(requirements())) | requirements(*LEARNER_EXTRAS)


def test_the_learner_package_imports_only_what_its_install_brings() -> None:
    wrong = unprovided("course_lib", learner_install())
    assert not wrong, "\n".join(wrong)


def test_the_grader_imports_only_what_its_extra_brings() -> None:
    wrong = unprovided("course_grader", closure(frozenset(requirements("grader"))))
    assert not wrong, "\n".join(wrong)


def test_the_live_server_imports_only_what_its_extra_brings() -> None:
    """``[live]`` alone for the server; ``[hub]`` too for its hub login, the one module that imports JupyterHub."""
    wrong = unprovided("course_live", closure(frozenset(requirements("live"))), skip=(HUB_LOGIN,))
    wrong += unprovided("course_live", closure(frozenset(requirements("live", "hub"))))
    assert not wrong, "\n".join(wrong)
    assert "jupyterhub" not in third_party_imports("course_live", skip=(HUB_LOGIN,))


def test_a_learners_install_brings_no_grader_library() -> None:
    assert not learner_install() & GRADER_ONLY
    assert requirements("grader") >= GRADER_ONLY


def test_a_learners_install_brings_no_live_server_library() -> None:
    """The learner's side of the live lab posts with urllib: a learner installs no web server."""
    assert not learner_install() & LIVE_ONLY
    assert requirements("live", "hub") >= LIVE_ONLY


def test_an_import_from_the_grader_extra_is_seen_in_the_learner_package() -> None:
    """The check itself: nbformat is not among what a learner's install brings."""
    assert "nbformat" not in learner_install()
    assert {canonicalize_name(d) for d in providers()["nbformat"]} == {"nbformat"}
