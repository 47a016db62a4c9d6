"""Stage 10, the command line: ``course-grade`` and its verbs, each a thin layer over the stages below.

The usage and the exit statuses are in ``app.py``, the dispatcher; each verb is its own module (``verbs.py``).
``main`` first checks that the grader's libraries (the ``[grader]`` extra) are installed, then imports the app,
which imports them.
"""

from __future__ import annotations

import sys

from .grader_extra import missing_libraries, refusal


def main(argv: list[str] | None = None) -> int:
    """``course-grade …``, or status 2 and one line naming what to install when the grader's libraries are missing."""
    missing = missing_libraries()
    if missing:
        print(refusal(missing), file=sys.stderr)
        return 2
    from .app import main as run  # after the check: the app's stages import the grader's libraries

    return run(argv)


__all__ = ["main"]
