"""A Gradescope dry run on this machine: the bundle unpacked into a fake ``/autograder``, the real ``setup.sh``, ``run_autograder``.

Installing the dependencies into a fresh venv from PyPI is slow and needs the
network, so the dry run hands ``setup.sh`` an interpreter that already has them
(``COURSE_GRADE_PYTHON``, as docs/grading.md's dry run does): a venv without
pip whose only addition is a path to this checkout's site-packages. Its
editable install of course_lib is *not* on that path (a ``.pth`` file's lines
are folders, the finder in the other ``.pth`` never runs), so course_lib comes
only from where setup.sh installs it, root-only, exactly as on Gradescope;
everything else setup.sh and run_autograder do runs unchanged.

The learner's kernel runs as another uid, so the interpreter must be runnable
by it: on machines where Python lives in a private folder (``/root/.pyenv``)
the venv is made from a system interpreter of the same version.

This checkout (and any other on the machine) is world-readable, and the
autograder refuses to grade while the learner's uid could read a copy of the
lab's reference anywhere (``learner_account.reference_copies``). So
``run_autograder`` runs in a mount namespace of its own where every copy found
is covered (an empty root-only tmpfs over each package folder, ``/dev/null``
over each wheel or zip): the checkout is out of reach, as docs/grading.md's dry
run keeps it; ``submit(hide=False)`` is the dry run without that.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def shared_interpreter() -> str | None:
    """A Python of this version that another user can run (this one, or the system's)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (
        getattr(sys, "_base_executable", None),
        shutil.which(f"python{version}"),
        f"/usr/bin/python{version}",
        f"/usr/local/bin/python{version}",
    ):
        if candidate and Path(candidate).exists():
            try:
                finished = subprocess.run(
                    [candidate, "-c", "import sys; print(sys.version_info[:2])"],
                    user=NOBODY,
                    group=NOBODY,
                    extra_groups=[],
                    cwd="/",
                    env={},
                    capture_output=True,
                    text=True,
                )
            except OSError:  # not executable by another user
                continue
            if finished.returncode == 0 and finished.stdout.strip() == str(sys.version_info[:2]):
                return candidate
    return None


def dependencies_python(folder: Path) -> Path:
    """A venv in ``folder`` (readable by everyone) with this checkout's dependencies and no course_lib."""
    interpreter = shared_interpreter()
    if interpreter is None:
        raise RuntimeError(f"no Python {sys.version_info[:2]} runnable by another user on this machine")
    venv = folder / "venv"
    subprocess.run([interpreter, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "course-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import nbclient, ipykernel, pandas, matplotlib\n"
            "try:\n    import course_lib\nexcept ImportError:\n    print('clean')",
        ],
        capture_output=True,
        text=True,
        cwd="/",
        check=True,
    )
    assert probe.stdout.strip() == "clean", "course_lib must come only from setup.sh's install"
    return python


def public_folder(prefix: str) -> Path:
    """A temporary folder the learner's account can traverse (pytest's own are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


@contextmanager
def dry_run_folder(prefix: str) -> Iterator[tuple[Path, Path]]:
    """A public folder for bundles and the dependencies' Python beside it, removed after; a pytest skip where
    Gradescope's dry run cannot run (not root, no Python another user can run)."""
    import pytest

    if os.geteuid() != 0:
        pytest.skip("Gradescope runs setup.sh and run_autograder as root")
    if shared_interpreter() is None:
        pytest.skip("no Python runnable by another user on this machine")
    folder = public_folder(prefix)
    try:
        yield folder, dependencies_python(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Autograder:
    """One lab's bundle, unpacked and set up by its own ``setup.sh``."""

    root: Path
    secret: str

    @property
    def source(self) -> Path:
        return self.root / "source"

    lab: str = ""

    def submit(self, notebooks: dict[str, object], cwd: Path, *, hide: bool = True) -> tuple[dict, str]:
        """Upload ``notebooks`` (name: NotebookNode) and run ``run_autograder``; its results.json and output.

        ``hide``: with every copy of the lab's reference on the machine covered (``covering_copies``).
        """
        import nbformat

        submission, results = self.root / "submission", self.root / "results"
        shutil.rmtree(submission, ignore_errors=True)
        shutil.rmtree(results, ignore_errors=True)
        submission.mkdir()
        for name, notebook in notebooks.items():
            nbformat.write(notebook, submission / name)
        env = {"PATH": os.environ["PATH"], "AUTOGRADER_ROOT": str(self.root), "LANG": "C.UTF-8"}
        command = ["bash", str(self.source / "run_autograder")]
        finished = subprocess.run(
            covering_copies(self.lab, command) if hide else command,
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert finished.returncode == 0, finished.stderr
        return json.loads((results / "results.json").read_text()), finished.stdout + finished.stderr


def covering_copies(lab: str, command: list[str]) -> list[str]:
    """``command`` in a mount namespace where no copy of ``lab``'s reference is readable (root only)."""
    from course_grader.sandbox.learner_account import reference_copies
    from course_lib.teaching import lab_registry

    modules = [withheld.module for withheld in lab_registry.lab(lab).withheld]
    folders, files = set(), set()
    for copy in reference_copies(modules):
        if copy.suffix == ".py":
            folders.add(next(parent for parent in copy.parents if parent.name == "course_lib"))
        else:
            files.add(copy)
    script = "".join(  # a copy gone since the search (another run's folder) is out of reach already
        [
            *(
                f'mount -t tmpfs -o size=16k,mode=0700 hidden "{folder}" 2>/dev/null || true\n'
                for folder in sorted(folders)
            ),
            *(f'mount --bind /dev/null "{file}" 2>/dev/null || true\n' for file in sorted(files)),
        ]
    )
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script + 'exec "$@"', "sh", *command]


def set_up(
    lab: str, folder: Path, python: Path, *, secret: str, timeout: float = 3.0, course: Path | None = None
) -> Autograder:
    """``course-grade bundle`` for ``lab`` (under ``course``, a course file), unpacked into ``folder/autograder``,
    then its ``setup.sh`` as root."""
    name = f"autograder-{lab}" + ("-course" if course is not None else "")
    bundle = folder / f"{name}.zip"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "course_grader",
            "bundle",
            "--lab",
            lab,
            "-o",
            str(bundle),
            "--timeout",
            str(timeout),
            "--seed",
            str(secret),
            *(["--course", str(course)] if course is not None else []),
        ],
        check=True,
        capture_output=True,
        cwd=folder,
    )
    root = folder / name
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # extractall drops the modes Gradescope's unzip keeps
            (root / "source" / info.filename).chmod(info.external_attr >> 16)
    root.chmod(0o755)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "COURSE_GRADE_PYTHON": str(python), "PIP_NO_INDEX": "1"}
    env.pop("PYTHONPATH", None)
    subprocess.run(
        ["bash", str(root / "source" / "setup.sh")], env=env, cwd=folder, check=True, capture_output=True, text=True
    )
    return Autograder(root, secret, lab)
