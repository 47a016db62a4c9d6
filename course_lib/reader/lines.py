"""The fast reader's lines: kept as bytes, validated in bulk, built into models on demand (R1–R3, R7, R8).

The plain store (``course_lib.store``) parses every line with ``json`` and keeps the
models. On a long session that is most of what opening it costs, so the reader keeps
the same promises another way:

* **kept lines** (``KeptLine``): every committed line is kept as its bytes, and a model
  built from them when the entry is handed out is the copy (R3, R7). The models that
  validating the file produced at open are handed out once, by the first call that
  reaches them: nobody else ever held them.
* **validation** (``validate_line``): each of a file's new lines is read once, by jiter
  (which refuses a repeated key), and what it read is validated into the models as
  ``parse_session_entry`` validates (``_VALIDATE_PARSED``); a refused line goes to the core's
  ``jsonl.parse_line``, the slow path that words the error with the line and the field
  (R2, R8), so both readers refuse a line in the same words.
* **the index** (``vouched_lines``): the lines the file's validated index covers
  (``reader.index``; its sha256 checked as the file is read, ``reader.blocks``) are taken as
  they stand, with the ids, parents and kinds it names.
* **handing out** (``hand_out``, ``hand_out_one``): a model nobody else holds, per line, for
  ``reader.entries.StoredEntries``, the read-only sequence ``entries()`` and ``path_to`` return.
* **no collection while building, nor just after** (``collector_paused``): reading a file and
  handing its entries out pause Python's cyclic garbage collector, which would otherwise walk
  the new models again and again, and leave what they built in its oldest generation.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jiter

from ..errors import SessionStoreError, quoted
from ..jsonl import line_prefix, parse_line
from ..models import CompactionEntry, MessageEntry, SessionEntry, SystemMessage
from ..parsing import ENTRY_ADAPTER, parse_session_entry
from .blocks import FileLines
from .index import SessionIndex, save_index


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Build models in bulk without Python's cyclic garbage collector running meanwhile, or just after.

    Why: validating N lines allocates about 15N containers (models, their ``__dict__``
    and fields-set, tuples, free JSON), every one of them reachable from the list being
    built, so none is garbage. Yet each 700 allocations start a collection, and the older
    generations' collections walk every model built so far: on a 100k-entry session that
    was over half of what opening it took, with the collector on as it is in every user's
    process. Pausing is safe: only the cycle collector stops (reference counting still
    frees everything at once), nothing here makes cycles, and the collector runs again as
    soon as the build returns or raises. A caller who had paused it already keeps it paused.

    Pausing alone only postpones the work: the allocations still count, so the first
    collections after the pause walk everything just built (two of them took 57–66 ms of
    a 150 ms reopen at 10k entries). So when the build ends, what it built is moved
    straight into the oldest generation (``settled``), where only a full collection
    looks, and CPython starts one only once the old generation has grown by a quarter.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        settled()
        gc.enable()


def settled() -> None:
    """Move every object the collector tracks into its oldest generation, and reset the young counts.

    ``gc.freeze()`` puts them all in the permanent generation (counts reset) and
    ``gc.unfreeze()`` hands them back to the oldest one: the collector ends as it began
    (enabled or not, thresholds, nothing frozen), but the young collections no longer
    walk what a bulk build made. Skipped when the process froze objects itself: its
    frozen ones must stay frozen (tests/lib/reader/test_collector.py checks both).
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


# --- kept lines and handing them out -------------------------------------------


class KeptLine:
    """A committed line the reader vouches for, kept as its bytes: it was validated when the
    file was read, or the index covered it (R3, R7).

    ``fresh`` is the model validating the line produced, until it is handed out: it was
    built from the bytes just now and nobody else holds it, so it can go out once as the
    copy. After that, handing the line out builds a new model from the bytes.
    """

    __slots__ = ("id", "parent_id", "raw", "number", "kind", "fresh")

    def __init__(self, id: str, parent_id: str | None, raw: bytes, number: int, kind: str, fresh: Any = None) -> None:
        self.id = id
        self.parent_id = parent_id
        self.raw = raw
        self.number = number
        """Its line in the file, for the message should the line not match its index."""
        self.kind = kind
        """What the entry is (``kind_of``), so a reader can find the compactions and the system
        messages (R16, R18) without building every model."""
        self.fresh = fresh


KINDS = {"system": "s", "message": "m", "compaction": "c", "metadata": "d"}
"""One letter per entry kind, as the index records them: a system message, any other message, a
compaction, metadata."""


def kind_of(entry: SessionEntry) -> str:
    """The entry's letter in ``KINDS``, read from its exact type (a pydantic class's isinstance is slower)."""
    if type(entry) is MessageEntry:
        return "s" if type(entry.message) is SystemMessage else "m"
    return "c" if type(entry) is CompactionEntry else "d"


def hand_out_one(line: KeptLine) -> Any:
    """One model nobody else holds (R3, R7): the one waiting, or one built from the line."""
    fresh = line.fresh
    if fresh is not None:
        line.fresh = None  # handed out: from now on the bytes are the only copy the reader keeps
        return fresh
    return _from_lines([line])[0]


@collector_paused()
def hand_out(lines: list[KeptLine]) -> list[Any]:
    """Models nobody else holds, in order (R3, R7); the lines with no model waiting are built together."""
    out: list[Any] = []
    waiting: list[int] = []
    for line in lines:
        if line.fresh is not None:
            out.append(line.fresh)
            line.fresh = None  # handed out: from now on the bytes are the only copy the reader keeps
        else:
            waiting.append(len(out))
            out.append(None)
    if waiting:
        for position, entry in zip(waiting, _from_lines([lines[position] for position in waiting])):
            out[position] = entry
    return out


def _from_lines(lines: list[KeptLine]) -> list[Any]:
    """The models of lines the reader vouches for, checked against the ids, parents and kinds they were kept under."""
    try:
        entries = [_VALIDATE_JSON(line.raw, by_alias=True, by_name=False) for line in lines]
    except ValueError:  # only if the bytes were not what was vouched for
        entries = [parse_line(line.raw, line.number, parse_session_entry) for line in lines]
    for line, entry in zip(lines, entries):
        if entry.id != line.id or entry.parent_id != line.parent_id or kind_of(entry) != line.kind:
            raise SessionStoreError(
                f"{line_prefix(line.number)}entry {quoted(entry.id)} is not the entry {quoted(line.id)} the session's "
                "index names; remove the index (course_lib.reader.index.forget_index) and open the file again",
                entry_id=entry.id,
                line=line.number,
            )
    return entries


def vouched_lines(
    index: SessionIndex | None, content: FileLines, numbers: list[int], raws: list[bytes]
) -> tuple[list[KeptLine], set[str]]:
    """The lines the session's index covers, with the ids, parents and kinds it names for them,
    and the set of those ids; none without an index whose bytes are the file's (its sha256, taken
    as the file was read), or when it does not cover whole lines of this file or names an id
    twice (R7)."""
    if index is None or content.marked_sha256 != index.sha256:
        return [], set()
    covered = bisect.bisect_right(numbers, content.marked_lines)
    ids = set(index.ids)
    if covered != len(index.ids) or len(ids) != covered or len(index.kinds) != covered:
        return [], set()
    return list(map(KeptLine, index.ids, index.parents, raws[:covered], numbers[:covered], index.kinds)), ids


def remember_lines(session: Path, content: FileLines, lines: list[KeptLine]) -> None:
    """Record in the session's index that its committed bytes hold these lines, for the next open."""
    if content.committed_sha256 is None:
        return
    save_index(
        session,
        content.size,
        content.committed,
        content.committed_sha256,
        [line.id for line in lines],
        [line.parent_id for line in lines],
        "".join(line.kind for line in lines),
    )


# --- validating new lines ------------------------------------------------------

_VALIDATE_JSON = ENTRY_ADAPTER.validator.validate_json
"""Builds the model of a line the reader vouches for (validated before, or covered by the index)."""


_VALIDATE_PARSED = ENTRY_ADAPTER.validator.validate_python
"""Validates what jiter read from a line into the models: the entry schema's Python side, the one
``parse_session_entry`` uses. Its Python callbacks (a free JSON value's kind, a list or tuple for a
sequence) cannot be left out for jiter's values: pydantic-core reuses each model class's own
validator inside any schema that names the class, so a schema without them builds the same
validator; measured, validating these values against the JSON side's plain unions cost more than
the callbacks do."""


def _read(raw: bytes) -> Any:
    """One line read by jiter, which refuses a repeated key (``json`` and pydantic-core keep the last)."""
    return jiter.from_json(raw, catch_duplicate_keys=True, cache_mode="keys")


def validate_lines(raws: list[bytes]) -> list[Any] | None:
    """Every line validated, or ``None`` if one is refused (what validating costs with nothing
    around it: ``make bench``'s row "models + repeated-key check of the lines")."""
    try:
        return [_VALIDATE_PARSED(_read(raw), by_alias=True, by_name=False) for raw in raws]
    except ValueError:
        return None


def validate_line(raw: bytes, number: int) -> Any:
    """One new line's model: read once, by jiter, for what pydantic-core cannot tell (that no
    object repeats a key: it keeps the last), and what jiter read validated into the models
    (``_VALIDATE_PARSED``; reading the bytes a second time, as ``validate_json`` would, cost a
    fifth of a first open). Any refusal (a ``ValueError``: pydantic's and jiter's alike) goes to
    the core's slow path, ``jsonl.parse_line``, which words the error with the line and the
    field (R2, R8), so both readers refuse a line in the same words."""
    try:
        return _VALIDATE_PARSED(_read(raw), by_alias=True, by_name=False)
    except ValueError:
        return parse_line(raw, number, parse_session_entry)
