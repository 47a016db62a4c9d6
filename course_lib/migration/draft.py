"""``migrate_entry``: a draft-shaped compaction moved into today's shape outside the parser (M1–M4, R18, R27).

The strict parser stays single-shaped (R1): a draft record fed to it straight
is refused at its own id. The migration is a separate step in front of it,
which returns a new wire dict (never touching the raw record, so an audit can
still show the original bytes), renames the draft's fields, puts back only the
empty lists the draft was allowed to leave out, and computes
``firstKeptEntryId`` from ``compactedEntryIds`` on the path: the first entry
of the first group that was not summarized, which must open a group (R18,
R27). Anything it cannot map is an error naming the entry id and the field;
nothing is dropped silently.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import CourseError, shorten
from ..grouping import group_interactions
from ..models import MessageEntry, SessionEntry
from ..teaching.catalogues.drafts import DRAFT_ENTRY, DRAFT_NAMES, LEFT_OUT_WHEN_EMPTY


class DraftRecordError(CourseError, ValueError):
    """A draft record the migration cannot map; the message names the entry id and the field (M2, M3)."""

    def __init__(self, message: str, *, entry_id: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id
        self.field = field


def migrate_entry(active_path: Sequence[SessionEntry], raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` in today's wire shape, as a new dict; ``active_path`` is the path it continues (root → its parent).

    A draft compaction (one with ``compactedEntryIds``) is migrated (M1–M3);
    any other record comes back as an equal copy for the parser to judge (M4).
    """
    if not isinstance(raw, Mapping):
        raise DraftRecordError(f"a record must be an object, got {type(raw).__name__}")
    if raw.get("type") != "compaction" or "compactedEntryIds" not in raw:
        return copy.deepcopy(dict(raw))  # today's shape, or another entry: the parser's to judge (M4)
    entry_id = raw["id"] if isinstance(raw.get("id"), str) and raw["id"].strip() else None
    for key in raw:
        if key not in DRAFT_ENTRY:
            raise _error(entry_id, key, "is not a field of the draft shape")
    summary = raw.get("summary")
    if not isinstance(summary, Mapping):
        raise _error(entry_id, "summary", "must be an object")
    known = set(DRAFT_NAMES.values())
    for key in summary:
        if key not in known:
            raise _error(entry_id, f"summary.{key}", "is not a field of the draft shape")
    migrated: dict[str, Any] = {}
    for new, old in DRAFT_NAMES.items():
        if old in summary:
            migrated[new] = copy.deepcopy(summary[old])
        elif new in LEFT_OUT_WHEN_EMPTY:
            migrated[new] = []  # the draft left this list out when it was empty (M3)
        else:
            raise _error(entry_id, f"summary.{old}", "is required: the draft always wrote it")
    record = {key: copy.deepcopy(raw[key]) for key in ("type", "id", "parentId", "timestamp") if key in raw}
    record |= {"summary": migrated, "firstKeptEntryId": first_kept(active_path, entry_id, raw["compactedEntryIds"])}
    if "tokensBefore" in raw:
        record["tokensBefore"] = copy.deepcopy(raw["tokensBefore"])
    return record


def first_kept(active_path: Sequence[SessionEntry], entry_id: str | None, compacted: Any) -> str:
    """The first entry of the first group ``compacted`` left unsummarized (M2): it must open a group (R18, R27).

    Groups are counted from the latest earlier compaction's first kept entry
    (R18): what that one summarized need not be listed again.
    """
    if not isinstance(compacted, list) or not compacted or not all(isinstance(i, str) for i in compacted):
        raise _error(entry_id, "compactedEntryIds", "must be a non-empty list of entry ids")
    on_path = {entry.id for entry in active_path}
    for summarized in compacted:
        if summarized not in on_path:
            raise _error(entry_id, "compactedEntryIds", f"names {shorten(summarized)}, which is not on the path")
    groups = group_interactions(e for e in active_path if isinstance(e, MessageEntry) and e.message.role != "system")
    ordered = [entry.id for group in groups for entry in group.entries]
    earlier = [e.first_kept_entry_id for e in active_path if e.type == "compaction"]
    if earlier and earlier[-1] in ordered:
        ordered = ordered[ordered.index(earlier[-1]) :]
    kept = [position for position, candidate in enumerate(ordered) if candidate not in compacted]
    if not kept:
        raise _error(entry_id, "compactedEntryIds", "summarizes every message on the path: nothing is kept")
    first = ordered[kept[0]]
    if first not in {group.first_entry_id for group in groups}:
        raise _error(entry_id, "compactedEntryIds", f"leaves {first} first, which does not open a group (R27)")
    later = [candidate for candidate in ordered[kept[0] :] if candidate in compacted]
    if later:
        raise _error(entry_id, "compactedEntryIds", f"summarizes {later[0]}, after the first kept entry {first}")
    return first


def _error(entry_id: str | None, field: str, problem: str) -> DraftRecordError:
    where = f"draft compaction {shorten(entry_id)}" if entry_id else "draft compaction"
    return DraftRecordError(f"{where}.{field} {problem}", entry_id=entry_id, field=field)
