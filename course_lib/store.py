"""Session stores: in memory and JSONL on disk (R7–R9).

Both stores take a parsed snapshot on ``append`` through the same parser (R3, R7),
so a compaction entry needs no special write code. The JSONL store treats a
newline as the commit marker and never rewrites or truncates bytes that are
already on disk (R8).

This module says what the stores promise. How a file's bytes become entries, by the
same rules for every way in, is ``store_read``; how the JSONL store keeps its promises
fast on a long session (lines kept as bytes, validated in bulk, the validated index
that spares a reopen) sits behind it in ``store_lines`` and ``store_index``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from . import file_lock
from .errors import SessionLockedError, SessionStoreError
from .models import SessionEntry
from .parsing import fresh_copy, parse_session_entry
from .paths import walk_path
from .store_lines import KeptLine, Parser, hand_out, kind_of, wire_line
from .store_read import ReadWarning, SessionReadResult, check_place, read_jsonl, recover_jsonl
from .stored_entries import StoredEntries


class InMemorySessionStore:
    """An append-only list of parsed snapshots with tree checks (R7)."""

    def __init__(self, *, parse: Parser = parse_session_entry) -> None:
        self._parse = parse
        self._entries: list[Any] = []
        self._ids: set[str] = set()

    def append(self, entry: Mapping[str, Any] | BaseModel) -> SessionEntry:
        """Parse a snapshot, check its place in the tree, commit it; returns a copy."""
        snapshot = self._parse(entry)
        self._check_place(snapshot)
        kept = self._commit(snapshot)
        self._entries.append(kept)
        self._ids.add(snapshot.id)
        return snapshot if kept is not snapshot else fresh_copy(snapshot)  # the store kept its own line

    def entries(self) -> list[SessionEntry]:
        """Every entry as a copy (R7): a model nobody else holds."""
        return hand_out(self._entries)

    def path_to(self, leaf_id: str) -> list[SessionEntry]:
        """Root → leaf copies (R10); only the entries on the chain are built."""
        return hand_out(walk_path(self._entries, leaf_id))

    def __len__(self) -> int:
        return len(self._entries)

    def _check_place(self, entry: Any) -> None:
        check_place(self._ids, entry)

    def _commit(self, entry: Any) -> Any:
        """Nothing to persist in memory: the store keeps the snapshot. The JSONL store writes
        the line here and keeps that instead."""
        return entry


class JsonlSessionStore(InMemorySessionStore):
    """One entry per line; a newline commits it; existing bytes are never touched (R8, R9).

    Reopening a file it has read before takes the verdict from the file's validated
    index (``store_index``) and validates only the lines appended since. Every line is
    kept as its bytes: a model built from them when it is handed out is the copy (R3).
    The models validating a line produced at open are handed out once, by the first
    ``entries()`` or ``path_to`` that reaches them: nobody else ever held them.

    Reading needs no lock. Appending does: the first append (or ``lock_for_appending``)
    locks the file itself until ``close``, so a second writer is refused under any name
    (a symlink, a hard link) instead of interleaving lines and repeating ids.
    """

    def __init__(self, path: Path, *, fsync: bool = True, parse: Parser = parse_session_entry) -> None:
        super().__init__(parse=parse)
        self.path = Path(path)
        self.fsync = fsync
        self._file: Any = None
        self._refusal: str | None = None
        self._seen = _FileState(identity=None, size=0)
        self.warnings: tuple[ReadWarning, ...] = ()

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        fsync: bool = True,
        parse: Parser = parse_session_entry,
        lock: bool = False,
    ) -> JsonlSessionStore:
        """Load the committed entries; an unterminated tail blocks appends until dealt with (R8).

        With ``lock=True`` the file is locked (and created if missing) before it is read,
        so nobody can append between reading and the first append.
        """
        store = cls(Path(path), fsync=fsync, parse=parse)
        if lock:
            handle = store._locked_handle()
            try:
                handle.seek(0)
                store._load(handle.read(), _identity(handle))
            except BaseException:
                handle.close()
                raise
            store._file = handle
            return store
        try:
            with open(store.path, "rb") as handle:
                identity = _identity(handle)
                data = handle.read()
        except FileNotFoundError:
            return store  # opening does not create anything; the first append will
        store._load(data, identity)
        return store

    @classmethod
    def recover_into(
        cls, source: str | os.PathLike[str], target: str | os.PathLike[str], **options: Any
    ) -> JsonlSessionStore:
        """Copy the committed entries of ``source`` to a new file; ``source`` stays as it is.

        All or nothing: the copy is written to a temporary file beside ``target`` and
        gets its name only when complete, so a recovery killed half way leaves no
        half-copied session and can simply be run again (R8).
        """
        target_path = Path(target)
        if target_path.exists():
            raise SessionStoreError(_exists(target_path))
        recovered = cls.open(source, **{**options, "lock": False})
        data = b"".join(wire_line(entry) for entry in recovered._entries)
        _create_whole(target_path, data, fsync=options.get("fsync", True))
        return cls.open(target_path, **options)

    def read(self) -> SessionReadResult:
        """What is on disk now: committed entries (copies) and warnings such as a tail."""
        if not self.path.exists():
            return SessionReadResult(entries=[])
        return read_jsonl(self.path.read_bytes(), self._parse, session=self.path).as_result()

    def entries(self) -> StoredEntries:  # type: ignore[override]  # a read-only sequence equal to the list (issue 31)
        """Every entry as a copy (R7): a model nobody else holds, built when it is read.

        A read-only sequence equal to the list of the same entries (``StoredEntries``;
        ``list(...)`` gives the list): ``len`` builds nothing, and reading the newest entries of
        a long session, or the latest compaction and what it keeps, builds only those. The
        in-memory store, which keeps models rather than lines, hands out a list.
        """
        return StoredEntries(list(self._entries))

    def path_to(self, leaf_id: str) -> StoredEntries:  # type: ignore[override]  # as entries()
        """Root → leaf copies (R10), as ``entries()``: only the chain's entries, each built when read."""
        return StoredEntries(walk_path(self._entries, leaf_id))

    def lock_for_appending(self) -> JsonlSessionStore:
        """Become the file's only writer now, rather than at the first append (R8).

        Refused with ``SessionLockedError`` while another writer holds the file, and with
        ``SessionStoreError`` when the file is no longer exactly what this store read and
        wrote (someone else appended or replaced it): appending to a stale view could
        repeat ids or name parents that are not there.
        """
        if self._file is None:
            handle = self._locked_handle()
            try:
                self._check_unchanged(handle)
            except BaseException:
                handle.close()
                raise
            self._file = handle
        return self

    def close(self) -> None:
        """Release the writer's lock (if held) and the file."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                file_lock.unlock(self._file)
            self._file.close()
            self._file = None

    def __enter__(self) -> JsonlSessionStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _load(self, data: bytes, identity: tuple[int, int]) -> None:
        result = read_jsonl(data, self._parse, session=self.path)
        self._entries, self._ids = result.entries, result.ids
        self._seen = _FileState(identity=identity, size=len(data))
        self.warnings = result.warnings
        if result.warnings:
            tail = result.warnings[0]
            self._refusal = (
                f"{self.path}: {tail.message}; appends are refused until it is dealt with "
                f"(inspect it, then start a clean file with JsonlSessionStore.recover_into)"
            )

    def _locked_handle(self) -> Any:
        """The file opened for appending (created if missing) and locked, or ``SessionLockedError``."""
        handle = open(self.path, "a+b")  # noqa: SIM115 - kept open, and locked, until close()
        try:
            locked = file_lock.try_lock(handle)
        except BaseException:
            handle.close()
            raise
        if not locked:
            handle.close()
            raise SessionLockedError(
                f"session {self.path.name} already has a writer; a second writer is refused so lines are "
                "never interleaved (read it with JsonlSessionStore.open(...).read(), or wait)",
                session=self.path.name,
            )
        return handle

    def _check_unchanged(self, handle: Any) -> None:
        now = os.fstat(handle.fileno())
        identity, size = self._seen
        replaced = identity is not None and (now.st_dev, now.st_ino) != identity
        if replaced or now.st_size != size:
            raise SessionStoreError(
                f"{self.path}: the file changed after this store read it ({size} bytes read, "
                f"{now.st_size} there now{', another file' if replaced else ''}); someone else wrote "
                "to it, so this store refuses to append (open it again)"
            )
        self._seen = _FileState(identity=(now.st_dev, now.st_ino), size=size)

    def _check_place(self, entry: Any) -> None:
        if self._refusal is not None:
            raise SessionStoreError(self._refusal, entry_id=getattr(entry, "id", None))
        super()._check_place(entry)

    def _commit(self, entry: Any) -> Any:
        """Write one line in append mode, flush and fsync; any failure closes the store (R8).

        Taking the lock comes first: a refused writer has written nothing and stays open.
        With the course parser the store keeps the line it wrote rather than the model.
        """
        line = wire_line(entry)
        self.lock_for_appending()
        try:
            self._file.write(line)
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
        except Exception as exc:
            self._refusal = f"{self.path}: a write failed ({exc}); the store refuses further appends"
            raise SessionStoreError(self._refusal, entry_id=entry.id) from exc
        self._seen = _FileState(identity=self._seen.identity, size=self._seen.size + len(line))
        return (
            KeptLine(entry.id, entry.parent_id, line[:-1], 0, kind_of(entry))
            if self._parse is parse_session_entry
            else entry
        )


class _FileState(NamedTuple):
    """Which file a store read (device, inode) and how many bytes it has read and written there."""

    identity: tuple[int, int] | None
    size: int


def _identity(handle: Any) -> tuple[int, int]:
    status = os.fstat(handle.fileno())
    return (status.st_dev, status.st_ino)


def _exists(path: Path) -> str:
    return f"{path} already exists; recovery never overwrites a file"


def _create_whole(target: Path, data: bytes, *, fsync: bool) -> None:
    """Create ``target`` holding ``data``, all or nothing, never replacing a file (R8).

    The bytes go to a temporary file in the same folder, are fsynced, and the file then
    takes the target's name in one step that fails if the name is taken: ``os.link`` on
    POSIX (``os.replace`` would overwrite), ``os.rename`` on Windows (which refuses an
    existing target). Fsyncing the folder makes the new name itself durable.
    """
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        try:
            if os.name == "nt":  # pragma: no cover - Windows only
                os.rename(temporary, target)
            else:
                os.link(temporary, target)
        except FileExistsError:
            raise SessionStoreError(_exists(target)) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    if fsync and os.name != "nt":  # Windows cannot open a folder to fsync it
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


__all__ = [
    "InMemorySessionStore",
    "JsonlSessionStore",
    "ReadWarning",
    "SessionReadResult",
    "recover_jsonl",
]
