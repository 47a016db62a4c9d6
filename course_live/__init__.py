"""The live lab's server (issue 46): during an instructor-led session, which checks the room fails, who is stuck, and
which rule to explain next. ``course-live serve`` (``cli.py``); the learner's side is ``course_lib.checklist.live``."""

from .app import LiveLab, Thresholds, create_app
from .server import Options, build

__all__ = ["LiveLab", "Options", "Thresholds", "build", "create_app"]
