"""``course-grade dry-run``'s sandbox: what it mounts of the machine (issue 44).

The dry run itself, beside a world-readable checkout, is in
``test_grading_gradescope.py`` (as root, sandboxed). Here, without running it:
the only host folders the sandbox sees are the system's, the Python
environment's and the fresh ``/autograder``, and a course_lib installed in that
environment is covered, so the autograder's strict check inside has nothing to
find there either.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from course_grader.packaging import dry_run
from course_grader.packaging.dry_run import AUTOGRADER, sandbox_command

CHECKOUT = Path(__file__).resolve().parents[3]


def test_the_sandbox_mounts_no_checkout_and_covers_an_installed_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    environment = tmp_path / "venv"
    installed = environment / "lib" / "python3.11" / "site-packages"
    for package in ("course_lib", "course_grader"):
        (installed / package).mkdir(parents=True)
    (installed / "course_lib" / "context.py").write_text("def build_context(): ...\n")
    for folder in [tmp_path, *tmp_path.rglob("*")]:
        folder.chmod(0o755 if folder.is_dir() else 0o644)  # what other users may enter is searched
    monkeypatch.setattr(dry_run, "python_folders", lambda: [environment])
    monkeypatch.setattr(dry_run, "SYSTEM", ("/etc",))  # searching /usr too takes seconds; the same code
    command = sandbox_command(tmp_path / "autograder")
    pairs = list(zip(command, command[1:], command[2:], strict=False))
    bound = {(source, target) for option, source, target in pairs if option in ("--ro-bind", "--bind")}
    sources = {Path(source) for source, _ in bound} - {Path("/dev/null")}
    assert sources == {Path("/etc"), environment, tmp_path / "autograder"}
    assert (str(tmp_path / "autograder"), str(AUTOGRADER)) in bound
    assert not any(source == CHECKOUT or CHECKOUT in source.parents for source in sources)
    covered = [target for option, target in zip(command, command[1:], strict=False) if option == "--tmpfs"]
    assert str(installed / "course_lib") in covered and str(installed / "course_grader") in covered
