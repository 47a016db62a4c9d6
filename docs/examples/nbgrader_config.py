"""nbgrader's configuration for a course folder that grades the course's labs (docs/grading.md, *nbgrader*).

Copy it into the course folder (beside ``source/``) as ``nbgrader_config.py``.
"""

import os
import sysconfig

c = get_config()  # noqa: F821 - nbgrader's config loader defines get_config for this file

# nbgrader runs `alembic` by name, through PATH, whenever it creates a gradebook
# (nbgrader/api.py: get_alembic_version) and on `nbgrader db upgrade` (nbgrader/dbutil.py);
# `python -m nbgrader` looks it up the same way. alembic is installed beside nbgrader, in the
# scripts folder of the Python running this file: put that folder first, so `.venv/bin/nbgrader`
# works without an activated venv instead of failing with "No such file or directory: 'alembic'".
os.environ["PATH"] = sysconfig.get_path("scripts") + os.pathsep + os.environ.get("PATH", "")

# A learner who deletes a test cell (check-N) gets it back, scored, instead of losing it from the total.
c.OverwriteCells.add_missing_cells = True
