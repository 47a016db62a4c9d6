"""Session stores: in memory and JSONL on disk (R7–R9).

Both stores take a parsed snapshot on ``append`` through the same parser (R3, R7), so
a compaction entry needs no special write code, and both hand out copies. The JSONL
store treats a newline as the commit marker and never rewrites or truncates bytes that
are already on disk (R8); how its lines are read and written is ``jsonl``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel

from . import file_lock, paths
from .errors import SessionLockedError, SessionStoreError
from .jsonl import Parser, ReadWarning, SessionReadResult, check_place, read_jsonl, wire_line
from .models import SessionEntry
from .parsing import fresh_copy, parse_session_entry

PathLike = str | os.PathLike[str]


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
        self._commit(snapshot)
        self._entries.append(snapshot)
        self._ids.add(snapshot.id)
        return fresh_copy(snapshot)

    def entries(self) -> list[SessionEntry]:
        """Every entry as a copy (R7): a model nobody else holds."""
        return [fresh_copy(entry) for entry in self._entries]

    def path_to(self, leaf_id: str) -> list[SessionEntry]:
        """Root → leaf copies (R10)."""
        return paths.path_to(self._entries, leaf_id)

    def __len__(self) -> int:
        return len(self._entries)

    def _check_place(self, entry: Any) -> None:
        check_place(self._ids, entry)

    def _commit(self, entry: Any) -> None:
        """Nothing to persist in memory; the JSONL store writes the line here."""


class JsonlSessionStore(InMemorySessionStore):
    """One entry per line; a newline commits it; existing bytes are never touched (R8, R9).

    Reading needs no lock. Appending does: the first append (or ``lock_for_appending``)
    locks the file itself until ``close``, so a second writer is refused under any name
    (a symlink, a hard link) instead of interleaving lines and repeating ids.
    """

    def __init__(self, path: Path, *, fsync: bool = True, parse: Parser = parse_session_entry) -> None:
        super().__init__(parse=parse)
        self.path = Path(path)
        self.fsync = fsync
        self.warnings: tuple[ReadWarning, ...] = ()
        self._file: BinaryIO | None = None
        self._refusal: str | None = None
        self._seen: tuple[tuple[int, int] | None, int] = (None, 0)
        """The file read (device, inode) and the bytes read and written there: what appends expect."""

    @classmethod
    def open(
        cls, path: PathLike, *, fsync: bool = True, parse: Parser = parse_session_entry, lock: bool = False
    ) -> JsonlSessionStore:
        """Load the committed entries; an unterminated tail blocks appends until dealt with (R8).

        With ``lock=True`` the file is locked (and created if missing) before it is read,
        so nobody can append between reading and the first append.
        """
        store = cls(Path(path), fsync=fsync, parse=parse)
        if lock:
            store._file = store._locked_handle()
            try:
                store._load(store._file)
            except BaseException:
                store.close()
                raise
        elif store.path.exists():  # opening does not create anything; the first append will
            with open(store.path, "rb") as handle:
                store._load(handle)
        return store

    @classmethod
    def recover_into(cls, source: PathLike, target: PathLike, **options: Any) -> JsonlSessionStore:
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
        """What is on disk now: the committed entries (built just now) and warnings such as a tail."""
        return read_jsonl(self.path.read_bytes() if self.path.exists() else b"", self._parse)

    def lock_for_appending(self) -> JsonlSessionStore:
        """Become the file's only writer now, rather than at the first append (R8).

        Refused while another writer holds the file (``SessionLockedError``), and when the file is no
        longer what this store read and wrote: appending to a stale view could repeat ids or parents.
        """
        if self._file is None:
            with contextlib.ExitStack() as closed_on_error:
                handle = closed_on_error.enter_context(self._locked_handle())
                now = os.fstat(handle.fileno())
                identity, size = self._seen
                replaced = identity is not None and (now.st_dev, now.st_ino) != identity
                if replaced or now.st_size != size:
                    raise SessionStoreError(
                        f"{self.path}: the file changed after this store read it ({size} bytes read, "
                        f"{now.st_size} there now{', another file' if replaced else ''}); someone else wrote "
                        "to it, so this store refuses to append (open it again)"
                    )
                closed_on_error.pop_all()  # kept open, and locked, until close()
            self._file, self._seen = handle, ((now.st_dev, now.st_ino), size)
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

    def _load(self, handle: BinaryIO) -> None:
        handle.seek(0)
        data = handle.read()
        result = read_jsonl(data, self._parse)
        self._entries, self._ids = result.entries, {entry.id for entry in result.entries}
        status = os.fstat(handle.fileno())
        self._seen = ((status.st_dev, status.st_ino), len(data))
        self.warnings = result.warnings
        if result.warnings:
            self._refusal = (
                f"{self.path}: {result.warnings[0].message}; appends are refused until it is dealt with "
                f"(inspect it, then start a clean file with JsonlSessionStore.recover_into)"
            )

    def _locked_handle(self) -> BinaryIO:
        """The file opened for appending (created if missing) and locked, or ``SessionLockedError``."""
        with contextlib.ExitStack() as closed_on_error:
            handle = closed_on_error.enter_context(open(self.path, "a+b"))
            if not file_lock.try_lock(handle):
                raise SessionLockedError(
                    f"session {self.path.name} already has a writer; a second writer is refused so lines are "
                    "never interleaved (read it with JsonlSessionStore.open(...).read(), or wait)",
                    session=self.path.name,
                )
            closed_on_error.pop_all()
        return handle

    def _check_place(self, entry: Any) -> None:
        if self._refusal is not None:
            raise SessionStoreError(self._refusal, entry_id=getattr(entry, "id", None))
        super()._check_place(entry)

    def _commit(self, entry: Any) -> None:
        """Write one line in append mode, flush and fsync; any failure closes the store (R8).

        Taking the lock comes first: a refused writer has written nothing and stays open.
        """
        line = wire_line(entry)
        self.lock_for_appending()
        assert self._file is not None  # lock_for_appending holds it
        try:
            self._file.write(line)
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
        except Exception as exc:
            self._refusal = f"{self.path}: a write failed ({exc}); the store refuses further appends"
            raise SessionStoreError(self._refusal, entry_id=entry.id) from exc
        self._seen = (self._seen[0], self._seen[1] + len(line))


def _exists(path: Path) -> str:
    return f"{path} already exists; recovery never overwrites a file"


def _create_whole(target: Path, data: bytes, *, fsync: bool) -> None:
    """Create ``target`` holding ``data``, all or nothing, never replacing a file (R8).

    The bytes go to a temporary file beside it, fsynced, which then takes the name in one step that
    fails if the name is taken (``os.link``; ``os.replace`` would overwrite; Windows' ``os.rename``
    refuses too). Fsyncing the folder makes the new name itself durable.
    """
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        try:
            (os.rename if os.name == "nt" else os.link)(temporary, target)
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
