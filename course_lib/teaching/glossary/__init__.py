"""The chapter's terms and commands beside the course's, in both languages (issue 32).

A reader comes from the chapter (Chinese prose, TypeScript code) to this course (English
prose, Python code): one table (``table``: ``terms``, ``compaction_terms``, ``commands``)
says, per term, the Chinese word, the English one, the Python and the TypeScript or wire
names and a meaning in each language. docs/glossary.md and docs/zh/glossary.md are
generated from it (``python -m course_lib.teaching.glossary [--language zh]``, ``make glossary``),
as docs/rules.md is from ``course_lib.teaching.rules``; this ``__init__`` only re-exports.
"""

from .page import PAGES, markdown
from .row import Command, Term, Topic
from .table import COMMANDS, TERMS, TOPICS

__all__ = ["COMMANDS", "PAGES", "TERMS", "TOPICS", "Command", "Term", "Topic", "markdown"]
