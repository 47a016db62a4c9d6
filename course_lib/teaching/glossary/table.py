"""The glossary's one table: every term, topic by topic, and every command (issue 32).

Both pages (``page``) are generated from it, so they list the same rows in the same
order; ``tests/test_glossary.py`` checks every Python name and command against the code.
"""

from __future__ import annotations

from .commands import COMMANDS
from .compaction_terms import COMPACTION_TERMS, LIFECYCLE_TERMS
from .row import Command, Term, Topic
from .terms import PROJECTION_TERMS, SESSION_TERMS

TERMS: tuple[Term, ...] = SESSION_TERMS + PROJECTION_TERMS + COMPACTION_TERMS + LIFECYCLE_TERMS
TOPICS: tuple[Topic, ...] = tuple(dict.fromkeys(term.topic for term in TERMS))
"""The sections, in the order their terms come."""

__all__ = ["COMMANDS", "TERMS", "TOPICS", "Command", "Term", "Topic"]
