"""How many examples a property test draws: all of them under ``make test``, a quarter under ``make check``.

``make check`` is what a maintainer runs before every commit, so it draws fewer examples
(``QUICK``, set by the Makefile for its fast tests); ``make test`` and CI draw every one, so no
example is given up, only moved to the slower run.
"""

from __future__ import annotations

import os

QUICK = "COURSE_QUICK_PROPERTIES"
"""Set (to anything but empty) for the quarter count: the Makefile's ``make check``."""


def examples(full: int) -> int:
    """``full``, or a quarter of it (at least 10) when ``QUICK`` is set."""
    return max(10, full // 4) if os.environ.get(QUICK) else full
