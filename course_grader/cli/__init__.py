"""Stage 7, the command line: ``course-grade`` and its verbs, each a thin layer over the stages below."""

from .app import main

__all__ = ["main"]
