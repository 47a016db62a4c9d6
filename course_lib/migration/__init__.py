"""Old records into today's shape at the boundary, before the strict parser sees them (M1–M4; Lab 11.6).

The parser, the stores and ``build_context`` know one shape (R1); this folder
is the one place that knows history's older ones. ``migrate_entry`` takes a
draft-shaped compaction (``course_lib.teaching.catalogues.drafts``) and returns
today's wire record, or refuses it naming the entry id and the field.
"""

from .draft import DraftRecordError, migrate_entry

__all__ = ["DraftRecordError", "migrate_entry"]
