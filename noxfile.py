"""The README's test suite on every Python the course allows: 3.11, 3.12 and 3.13.

``make test-pythons`` runs all three; ``.venv/bin/nox -p 3.13`` runs one. Each session
gets its own virtual environment under ``.nox/`` and runs ``make test test-sandboxed
test-integration`` in it, so each suite (unit tests plus nbval over notebooks/ and labs/,
the sandboxed tests, the outside tools end to end, with the same flags) is defined once,
in the Makefile.

Interpreters are found by name (``python3.11`` …) on ``PATH``. On machines where
pyenv installed them, its shims answer only for the selected version
("pyenv: python3.12: command not found"), so the real ``bin`` folder of every
installed pyenv version is put in front of ``PATH`` first. Elsewhere (system
packages, deadsnakes, conda) nothing changes. A missing interpreter is an error,
not a skip: a green run must mean every listed Python was tested.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

PYTHONS = ["3.11", "3.12", "3.13"]  # requires-python is ">=3.11"; add each new release here

nox.needs_version = ">=2024.10.9"
nox.options.sessions = ["tests"]
nox.options.error_on_missing_interpreters = True


def _pyenv_bin_folders() -> list[str]:
    """The ``bin`` folders of the pyenv versions we test, newest first (empty without pyenv)."""
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    wanted = tuple(f"{python}." for python in PYTHONS)
    found = [
        v
        for v in versions.glob("3.*")
        if v.name.startswith(wanted) and v.name.replace(".", "").isdigit() and (v / "bin").is_dir()
    ]
    found.sort(key=lambda v: tuple(int(part) for part in v.name.split(".")), reverse=True)
    return [str(v / "bin") for v in found]


os.environ["PATH"] = os.pathsep.join([*_pyenv_bin_folders(), os.environ.get("PATH", "")])


SUITES = ["test", "test-sandboxed", "test-integration"]
"""The make targets a session runs: every suite once (make check's fast tests are make test's)."""


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """``make test test-sandboxed test-integration`` with this session's interpreter; extra arguments go to make
    instead (e.g. ``-- test-unit``)."""
    targets = session.posargs or SUITES
    session.run("make", *targets, f"VENV={session.virtualenv.location}", external=True)
