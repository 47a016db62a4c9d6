"""Where the capstone notebook finds its scripted answers: ``from course_lib.checklist.capstone import OVERFLOW``.

The capstone's checks are ``course_lib/checklist/labs/capstone.py``, as every
lab's are in that folder. This module keeps the address that a learner-facing
cell of ``notebooks/02_lifecycle_capstone.ipynb`` (and anyone's code) imports
from, so no notebook changes; it holds no check.
"""

from .labs.capstone import CAPSTONE, OVERFLOW, REFUSED, SETTINGS, TRUNCATED, WINDOW

__all__ = ["CAPSTONE", "OVERFLOW", "REFUSED", "SETTINGS", "TRUNCATED", "WINDOW"]
