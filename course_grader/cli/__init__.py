"""Stage 10, the command line: ``course-grade`` and its verbs, each a thin layer over the stages below.

The usage and the exit statuses are in ``app.py``, the dispatcher; each verb is its own module (``verbs.py``).
"""

from .app import main

__all__ = ["main"]
