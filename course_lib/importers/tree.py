"""The active path of a tree of raw records: the leaf's chain to its root."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..teaching.i18n import MESSAGES, message
from .assemble import Assembler
from .lines import Record

OFF_PATH = message("not on the active path (an abandoned branch)")
"""Why an off-path line is skipped; translated where it is reported (``MESSAGES(OFF_PATH)``, issue 32)."""


def active_path(
    records: Sequence[Record],
    asm: Assembler,
    *,
    id_key: str,
    parent_key: str,
    leaf: Record | None = None,
    off_path: Callable[[Record], str] = lambda record: MESSAGES(OFF_PATH),
    bridge: Callable[[Record], Any] = lambda record: None,
) -> list[Record]:
    """Root → leaf records; every other record is reported as skipped.

    The leaf is the last record with an id unless given. A record naming a parent
    that is not in the file starts the path (noted), as it does for the agents;
    ``bridge`` gives a parent to follow when the record's own parent is null
    (Claude Code's compact boundary points back through ``logicalParentUuid``).
    Duplicate ids keep their first record; the repeat is skipped.
    """
    by_id: dict[Any, Record] = {}
    for record in records:
        key = record.value.get(id_key)
        if not isinstance(key, str) or not key:
            asm.skip(record.line, MESSAGES("an entry without {key}").format(key=repr(id_key)))
        elif key in by_id:
            second = (
                MESSAGES("a second entry with id {id} (its line held more than one JSON object)")
                if record.line == by_id[key].line
                else MESSAGES("a second entry with id {id}")
            )
            asm.skip(record.line, second.format(id=repr(key)))
        else:
            by_id[key] = record
    if leaf is None:
        leaf = next((r for r in reversed(records) if by_id.get(r.value.get(id_key)) is r), None)
    chain: list[Record] = []
    seen: set[int] = set()
    current = leaf
    while current is not None:
        if id(current) in seen:
            asm.note(current.line, MESSAGES("the parent links form a cycle; the active path starts after it"))
            break
        seen.add(id(current))
        chain.append(current)
        parent = current.value.get(parent_key) or bridge(current)
        if parent is None:
            break
        if parent not in by_id:
            asm.note(
                current.line,
                MESSAGES("parent {parent} is not in the file; the active path starts here").format(parent=repr(parent)),
            )
            break
        current = by_id[parent]
    chain.reverse()
    on_path = {id(record) for record in chain}
    for record in by_id.values():
        if id(record) not in on_path:
            asm.skip(record.line, off_path(record))
    return chain
