"""Whether the grader's own libraries are installed: the ``[grader]`` extra, named by the package's metadata.

``pip install course-lib`` brings what a learner's labs and notebooks import;
``course-grade`` also reads and runs notebooks (nbformat, nbclient), writes
pages (jinja2) and compares cells (copydetect), which come with the extra
(``pip install 'course-lib[grader]'``; ``make venv`` installs it). Without
them the command says so in one line instead of a traceback from deep inside
a stage. The list is read from the installed metadata, so pyproject.toml stays
the one place it is written.
"""

from __future__ import annotations

import re
from importlib import metadata

DISTRIBUTION = "course-lib"
EXTRA = "grader"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def missing_libraries(distribution: str = DISTRIBUTION) -> list[str]:
    """The ``[grader]`` requirements that are not installed, by name; none when the metadata cannot be read."""
    try:
        required = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:  # run from a folder on sys.path without metadata: nothing to compare
        return []
    missing = []
    for requirement in required:
        if f'extra == "{EXTRA}"' not in requirement.replace("'", '"'):
            continue
        match = _NAME.match(requirement)
        if match is None:
            continue
        try:
            metadata.version(match.group(0))
        except metadata.PackageNotFoundError:
            missing.append(match.group(0))
    return missing


def refusal(missing: list[str]) -> str:
    """The one line ``course-grade`` prints when the grader's libraries are missing."""
    return (
        f"course-grade needs the grader's libraries, and {', '.join(missing)} "
        f"{'is' if len(missing) == 1 else 'are'} not installed: pip install '{DISTRIBUTION}[{EXTRA}]' "
        "(in a course checkout, make venv installs them)"
    )
