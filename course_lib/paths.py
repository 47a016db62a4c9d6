"""The active path: the chain root → leaf found by following ``parentId`` (R10)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import SessionPathError
from .models import SessionEntry
from .parsing import fresh_copy


def path_to(entries: Iterable[SessionEntry], leaf_id: str) -> list[SessionEntry]:
    """Root → leaf copies of the entries on the leaf's chain (R10).

    Refuses duplicate ids anywhere, an unknown leaf, a parent missing from the
    chain and cycles, each naming the id.
    """
    return [fresh_copy(entry) for entry in walk_path(list(entries), leaf_id)]


def walk_path(entries: Sequence[SessionEntry], leaf_id: str) -> list[SessionEntry]:
    """``path_to`` without the copies, for callers that only read (frozen models)."""
    by_id: dict[str, SessionEntry] = {}
    for entry in entries:
        if entry.id in by_id:
            raise SessionPathError(f"duplicate entry id {entry.id!r}", entry_id=entry.id)
        by_id[entry.id] = entry
    if leaf_id not in by_id:
        raise SessionPathError(f"unknown leaf id {leaf_id!r}", entry_id=leaf_id)
    chain: list[SessionEntry] = []
    seen: set[str] = set()
    current: str | None = leaf_id
    while current is not None:
        if current in seen:
            raise SessionPathError(f"cycle in the session at entry {current!r}", entry_id=current)
        seen.add(current)
        found = by_id.get(current)
        if found is None:
            child = chain[-1].id
            raise SessionPathError(
                f"entry {child!r} names parent {current!r}, which is not in the session",
                entry_id=child,
            )
        chain.append(found)
        current = found.parent_id
    chain.reverse()
    return chain
