"""scripts/ensure-debian-package.sh says what it would install, and installs nothing without consent.

Only the paths that install nothing are run here: the program already present, and a
missing program with no terminal to ask on and neither CI=true nor ASSUME_YES=1.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "ensure-debian-package.sh"


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in {"CI", "ASSUME_YES"}}
    return subprocess.run(
        ["sh", str(SCRIPT), *arguments],
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_present_program_needs_nothing() -> None:
    done = run("chromium", "the browser test", "/bin/sh")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_without_a_terminal_or_consent_it_says_what_it_would_install_and_refuses(tmp_path: Path) -> None:
    missing = tmp_path / "chromium"
    done = run("chromium", "the browser test (make test-browser)", str(missing), "about 130 packages")
    said = " ".join(done.stdout.split())
    assert done.returncode == 1
    assert f"{missing} is missing and the browser test (make test-browser) needs it." in said
    assert "installs the Debian package 'chromium' and the packages it depends on (" in said
    assert "apt-get install -y chromium" in said
    assert "ASSUME_YES=1" in done.stderr and "CI=true" in done.stderr
    assert not missing.exists()
