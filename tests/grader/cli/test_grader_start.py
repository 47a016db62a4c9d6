"""The grader starts without importing what it never uses (issue 31): the report's and the CSV's
libraries load when a report or a frame is made, and rfc3987_syntax's grammar is never built."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest

UNUSED_AT_START = ("pandas", "matplotlib", "numpy", "rfc3987_syntax")


@pytest.mark.slow  # a fresh interpreter importing the grader: seconds on a busy machine, so make test runs it
@pytest.mark.parametrize("module", ["course_grader", "course_grader.cli.app"])
def test_importing_the_grader_imports_none_of_the_libraries_it_loads_later(module: str) -> None:
    script = (
        f"import sys, json, {module}\n"
        f"print(json.dumps([name for name in {UNUSED_AT_START!r} if sys.modules.get(name) is not None]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_notebooks_are_still_validated_without_rfc3987_syntax() -> None:
    """nbformat's schemas use no "iri" format: blocking the module changes no verdict."""
    import course_grader  # noqa: F401 - the import that blocks rfc3987_syntax

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nbformat.validate(notebook)
    notebook.cells[0]["cell_type"] = "not a cell type"
    with pytest.raises(nbformat.ValidationError):
        nbformat.validate(notebook)


def test_without_the_grader_extra_the_command_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A learner's install (``pip install course-lib``) has no grader libraries: one line, status 2, no traceback."""
    from importlib import metadata

    from course_grader import cli

    real = metadata.requires

    def requires(name: str) -> list[str]:
        return [*(real(name) or []), 'not-a-grader-library>=1; extra == "grader"']

    monkeypatch.setattr(metadata, "requires", requires)
    assert cli.main(["--help"]) == 2
    assert capsys.readouterr().err == (
        "course-grade needs the grader's libraries, and not-a-grader-library is not installed: "
        "pip install 'course-lib[grader]' (in a course checkout, make venv installs them)\n"
    )
