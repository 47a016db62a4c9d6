"""Entries built when read: the sequence the fast reader's ``entries()`` and ``path_to`` return (R3, R7, R10).

Reading the newest entries of a long session, or resuming from its latest
compaction (``SessionReader.resume_path``), builds only those models; everything
else stays the bytes ``reader.lines`` keeps, until someone reads it.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from ..models import SessionEntry
from .lines import KeptLine, hand_out, hand_out_one

_UNBUILT: Any = object()


class StoredEntries(Sequence[SessionEntry]):
    """What the reader's ``entries()`` and ``path_to`` return: the entries as a read-only sequence,
    each model built when it is first read (R3, R7, R10).

    It behaves as the list the plain store returns: ``len`` (nothing is built), indices
    (negative too), slices (lists), iteration, ``in``, ``reversed``, and equality with a list of
    the same entries. Each entry is built once per sequence, from the reader's kept line: a model
    nobody else holds, as the plain store's copies are. Reading a few entries of a long session
    (the newest rows, the latest compaction and what it keeps) builds only those; iterating builds the rest in one bulk build (``hand_out``). A line the index
    vouched for that no longer matches it is refused when it is read, naming its line.
    ``list(...)`` gives a real list.
    """

    __slots__ = ("_items", "_built", "_missing")

    def __init__(self, items: list[KeptLine]) -> None:
        self._items = items
        """The reader's kept lines at the time of the call."""
        self._built: list[Any] = [_UNBUILT] * len(items)
        self._missing = len(items)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> SessionEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[SessionEntry]: ...
    def __getitem__(self, index: int | slice) -> SessionEntry | list[SessionEntry]:
        if isinstance(index, slice):
            positions = range(*index.indices(len(self._items)))
            self._build(positions)
            return [self._built[position] for position in positions]
        position = operator.index(index)
        if position < 0:
            position += len(self._items)
        if not 0 <= position < len(self._items):
            raise IndexError(f"entry index {index} out of range for {len(self._items)} entries")
        return self._entry(position)

    def _entry(self, position: int) -> SessionEntry:
        built = self._built[position]
        if built is _UNBUILT:
            built = self._built[position] = hand_out_one(self._items[position])
            self._missing -= 1
        return built

    def _build(self, positions: Iterable[int]) -> None:
        """The entries at ``positions`` not built yet, built together (``hand_out``: one bulk build)."""
        built = self._built
        missing = [position for position in positions if built[position] is _UNBUILT]
        for position, entry in zip(missing, hand_out([self._items[position] for position in missing])):
            built[position] = entry
        self._missing -= len(missing)

    def __iter__(self) -> Iterator[SessionEntry]:
        if self._missing:
            self._build(range(len(self._items)))
        return iter(self._built)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, StoredEntries)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list is

    def __add__(self, other: Any) -> list[SessionEntry]:
        return [*self, *other] if isinstance(other, (list, StoredEntries)) else NotImplemented

    def __radd__(self, other: Any) -> list[Any]:
        return [*other, *self] if isinstance(other, list) else NotImplemented

    def __repr__(self) -> str:
        return repr(list(self))
