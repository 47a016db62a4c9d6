"""Every learner-facing module imports where ``fcntl`` and ``resource`` do not exist (Windows).

The grader (``course_grader``) runs on an instructor's POSIX machine and may need
``resource``; everything a learner imports must not.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import course_lib

LEARNER_MODULES = sorted(
    module.name
    for module in pkgutil.walk_packages(course_lib.__path__, "course_lib.")
    if not module.name.startswith("course_grader") and not module.name.endswith("__main__")
)


def test_the_list_covers_the_modules_learners_meet() -> None:
    for name in (
        "course_lib.lifecycle",
        "course_lib.explorer",
        "course_lib.checklist",
        "course_lib.teaching.lab_helpers",
        "course_lib.fixtures",
        "course_lib.store",
        "course_lib.file_lock",
    ):
        assert name in LEARNER_MODULES


@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_learner_modules_import_without_fcntl_and_resource() -> None:
    code = (
        "import importlib, sys\n"
        "sys.modules['fcntl'] = None\n"
        "sys.modules['resource'] = None\n"
        f"for name in ['course_lib', *{LEARNER_MODULES!r}]:\n"
        "    importlib.import_module(name)\n"
        "print('imported', len(sys.argv))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "imported 1"
