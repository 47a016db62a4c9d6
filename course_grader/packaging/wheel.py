"""course_lib and course_grader as one pure-Python wheel, written straight from the checkout for the autograder bundle.

Bundling must work offline and from any course venv. A build backend cannot be
relied on there: Python 3.11's venvs carry a setuptools too old to write wheels
without the ``wheel`` package, and 3.12's carry none, while ``pip wheel`` with
build isolation needs the network. A pure-Python wheel is only a zip of the
package plus ``*.dist-info`` (PEP 427, core metadata from ``pyproject.toml``),
so it is written here; pip installs it on Gradescope and fetches the
dependencies from PyPI.
"""

from __future__ import annotations

import base64
import hashlib
import re
import tomllib
import zipfile
from pathlib import Path

_FIXED_TIME = (2024, 1, 1, 0, 0, 0)  # the same sources give the same wheel
PACKAGES = ("course_lib", "course_grader")
"""What the distribution installs: the learner's package and the grader beside it (``pyproject.toml``)."""


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def project_table(root: str | Path) -> dict:
    """``[project]`` of ``root/pyproject.toml``: the one place the dependency ranges live."""
    return tomllib.loads((Path(root) / "pyproject.toml").read_text(encoding="utf-8"))["project"]


GRADER_EXTRA = "grader"
"""The extra that brings the grader's own libraries (nbformat, nbclient, jinja2, …) beside the learner's package's."""


def requirements(root: str | Path) -> list[str]:
    """What grading installs besides course_lib: the package's dependencies and its grader extra's."""
    project = project_table(root)
    return [*project.get("dependencies", []), *project.get("optional-dependencies", {}).get(GRADER_EXTRA, [])]


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {requirement}" for requirement in project.get("dependencies", [])]
    grader = project.get("optional-dependencies", {}).get(GRADER_EXTRA, [])
    if grader:
        lines.append(f"Provides-Extra: {GRADER_EXTRA}")
        lines += [f'Requires-Dist: {requirement}; extra == "{GRADER_EXTRA}"' for requirement in grader]
    return "\n".join(lines) + "\n"


def write_wheel(root: str | Path, destination: str | Path, packages: tuple[str, ...] = PACKAGES) -> Path:
    """Write ``<name>-<version>-py3-none-any.whl`` for the ``packages`` under ``root`` into ``destination``."""
    root, destination = Path(root), Path(destination)
    project = project_table(root)
    stem = f"{_normalised(project['name'])}-{project['version']}"
    dist_info = f"{stem}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted(path for package in packages for path in (root / package).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    files[f"{dist_info}/METADATA"] = _metadata(project).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: course_grader.packaging.wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    scripts = project.get("scripts", {})
    if scripts:
        entry_points = "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in scripts.items())
        files[f"{dist_info}/entry_points.txt"] = entry_points.encode()
    files[f"{dist_info}/top_level.txt"] = "".join(f"{package}\n" for package in packages).encode()
    record = [_record_line(name, data) for name, data in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()

    destination.mkdir(parents=True, exist_ok=True)
    wheel = destination / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=_FIXED_TIME), data, compress_type=zipfile.ZIP_DEFLATED)
    return wheel
