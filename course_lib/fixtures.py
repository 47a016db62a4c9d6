"""The name ``course_lib.fixtures`` that the course's API documents, kept for callers outside the pack.

The chapter's example lives in ``course_lib.chapter_example``; this module is that one.
"""

import sys

from . import chapter_example

sys.modules[__name__] = chapter_example
