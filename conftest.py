"""The whole test run (tests, notebooks, labs) keeps the session indexes it writes (``course_lib.store_index``) in a
folder of its own, so no test reads or fills the user's cache; notebooks run by nbval
inherit it through the environment."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from course_lib.store_index import CACHE_ENV

_INDEXES = tempfile.mkdtemp(prefix="course-lib-test-indexes-")
os.environ[CACHE_ENV] = _INDEXES
atexit.register(shutil.rmtree, _INDEXES, ignore_errors=True)
