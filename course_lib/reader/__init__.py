"""The fast reader of a JSONL session: the course's tooling for long sessions (R7–R10).

``SessionReader.open(path)`` reads what the plain ``JsonlSessionStore`` reads, with the same
entries, warnings and errors, and only reads; the explorer, the importers, notebook 03 and a
resume on a long session use it (``session``). How: lines kept as bytes and validated in bulk
(``lines``), the validated index in the user's cache (``index``, ``COURSE_LIB_CACHE_DIR``),
entries built when read (``entries``), read by the core's rules (``read``).
"""

from .entries import StoredEntries
from .index import CACHE_ENV, forget_index
from .session import SessionReader, recover_jsonl

__all__ = ["CACHE_ENV", "SessionReader", "StoredEntries", "forget_index", "recover_jsonl"]
