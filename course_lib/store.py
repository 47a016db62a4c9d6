"""Session stores: in memory and JSONL on disk (R7–R9).

Both stores take a parsed snapshot on ``append`` through the same parser (R3, R7),
so a compaction entry needs no special write code. The JSONL store treats a
newline as the commit marker and never rewrites or truncates bytes that are
already on disk (R8).
"""

from __future__ import annotations

import bisect
import contextlib
import json
import math
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import jiter
from pydantic import BaseModel, TypeAdapter

from . import file_lock
from .errors import CourseError, NotFiniteJsonError, SessionEntryError, SessionLockedError, SessionStoreError, quoted
from .models import SessionEntry
from .parsing import ENTRY_ADAPTER, fresh_copy, parse_session_entry, to_json_dict
from .paths import walk_path
from .store_index import SessionIndex, load_index, save_index

Parser = Callable[[Any], Any]


@dataclass(frozen=True)
class ReadWarning:
    """Something reading skipped without losing it: today only an unterminated tail (R8)."""

    code: Literal["unterminated_tail"]
    line: int
    message: str


@dataclass(frozen=True)
class SessionReadResult:
    entries: list[SessionEntry]
    warnings: tuple[ReadWarning, ...] = field(default_factory=tuple)


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
        return _handed_out(self._entries)

    def path_to(self, leaf_id: str) -> list[SessionEntry]:
        """Root → leaf copies (R10); only the entries on the chain are built."""
        return _handed_out(walk_path(self._entries, leaf_id))

    def __len__(self) -> int:
        return len(self._entries)

    def _check_place(self, entry: Any) -> None:
        _check_place(self._ids, entry)

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
        data = b"".join(_wire_line(entry) for entry in recovered._entries)
        _create_whole(target_path, data, fsync=options.get("fsync", True))
        return cls.open(target_path, **options)

    def read(self) -> SessionReadResult:
        """What is on disk now: committed entries (copies) and warnings such as a tail."""
        if not self.path.exists():
            return SessionReadResult(entries=[])
        return _read_jsonl(self.path.read_bytes(), self._parse, session=self.path).as_result()

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
        result = _read_jsonl(data, self._parse, session=self.path)
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
        line = _wire_line(entry)
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
        return _Line(entry.id, entry.parent_id, line[:-1], 0) if self._parse is parse_session_entry else entry


class _FileState(NamedTuple):
    """Which file a store read (device, inode) and how many bytes it has read and written there."""

    identity: tuple[int, int] | None
    size: int


def _identity(handle: Any) -> tuple[int, int]:
    status = os.fstat(handle.fileno())
    return (status.st_dev, status.st_ino)


def _check_place(ids: set[str], entry: Any, *, line: int | None = None) -> None:
    """A unique id and an already-stored parent; only roots have no parent (R7).

    Appends and every way of reading a file share it: one set of rules for every way in.
    """
    if entry.id in ids:
        raise SessionStoreError(f"{_where(line)}duplicate entry id {quoted(entry.id)}", entry_id=entry.id, line=line)
    if entry.parent_id is not None and entry.parent_id not in ids:
        raise SessionStoreError(
            f"{_where(line)}entry {quoted(entry.id)} names unknown parent {quoted(entry.parent_id)}",
            entry_id=entry.id,
            line=line,
        )


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


def _where(line: int | None) -> str:
    return f"line {line}: " if line is not None else ""


def recover_jsonl(text: str, *, parse: Parser = parse_session_entry) -> SessionReadResult:
    """Read JSONL text as a store would: skip blank lines, report an unterminated tail (R8)."""
    return _read_jsonl(text.encode("utf-8"), parse).as_result()


# --- reading -----------------------------------------------------------------------


class _Line:
    """A committed line the store vouches for, kept as its bytes: it was validated when the
    file was read, the index covered it, or the store wrote it (R3, R7).

    ``fresh`` is the model validating the line produced, until it is handed out: it was
    built from the bytes just now and nobody else holds it, so it can go out once as the
    copy. After that, handing the line out builds a new model from the bytes.
    """

    __slots__ = ("id", "parent_id", "raw", "number", "fresh")

    def __init__(self, id: str, parent_id: str | None, raw: bytes, number: int, fresh: Any = None) -> None:  # noqa: A002
        self.id = id
        self.parent_id = parent_id
        self.raw = raw
        self.number = number
        """Its line in the file, for the message should the line not match its index; 0 if written here."""
        self.fresh = fresh


def _handed_out(items: list[Any]) -> list[Any]:
    """Models nobody else holds, in order: built from lines, or copied from kept snapshots (R3, R7).

    The lines with no model waiting are built together, in one call into the validator.
    """
    out: list[Any] = []
    waiting: list[int] = []
    for item in items:
        if type(item) is not _Line:
            out.append(fresh_copy(item))
        elif item.fresh is not None:
            out.append(item.fresh)
            item.fresh = None  # handed out: from now on the bytes are the only copy the store keeps
        else:
            waiting.append(len(out))
            out.append(None)
    if waiting:
        for position, entry in zip(waiting, _from_lines([items[position] for position in waiting])):
            out[position] = entry
    return out


def _from_lines(lines: list[_Line]) -> list[Any]:
    """The models of lines the store vouches for, checked against the ids and parents they were kept under."""
    try:
        entries = _VALIDATE_ARRAY(_json_array([line.raw for line in lines]), by_alias=True, by_name=False)
    except ValueError:
        entries = None
    if entries is None or len(entries) != len(lines):  # only if the bytes were not what was vouched for
        entries = [_parse_line(line.raw, line.number, parse_session_entry) for line in lines]
    for line, entry in zip(lines, entries):
        if entry.id != line.id or entry.parent_id != line.parent_id:
            raise SessionStoreError(
                f"{_where(line.number or None)}entry {quoted(entry.id)} is not the entry {quoted(line.id)} the "
                "session's index names; remove the index (course_lib.store_index.forget_index) and open the file again",
                entry_id=entry.id,
                line=line.number or None,
            )
    return entries


def _json_array(raws: list[bytes]) -> bytes:
    """Lines that each hold one JSON value, as one JSON array: one call into the validator for all."""
    return b"[" + b",".join(raws) + b"]"


@dataclass
class _Read:
    """The committed entries in file order and their ids, before any copy is handed out.

    With the course parser every entry is a ``_Line`` (validated now, or vouched for by the
    file's index); a custom parser's entries are its models.
    """

    entries: list[Any] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    warnings: tuple[ReadWarning, ...] = ()

    def as_result(self) -> SessionReadResult:
        """Models nobody else holds (R3): the ones validating the lines produced just now,
        lines the index vouched for built now, or copies of a custom parser's models."""
        return SessionReadResult(entries=_handed_out(self.entries), warnings=self.warnings)


def _read_jsonl(data: bytes, parse: Parser, *, session: Path | None = None) -> _Read:
    """Committed lines parsed to entries, plus warnings.

    Every way in (``open``, ``read``, ``recover_jsonl``, ``recover_into``) comes here, so
    each applies the same rules: the parser's (R1) and the tree's (R7), naming the line.
    With the course parser the lines go straight from bytes into the models, all in one
    call into the validator (``_validate_lines``), and when the file was read before
    (``session``) the lines its index covers are not validated again.
    """
    lines = data.split(b"\n")
    tail = lines.pop()
    # A blank line is ignored (R8); isspace() avoids copying the line like strip() would.
    numbers = [number for number, raw in enumerate(lines, start=1) if raw and not raw.isspace()]
    raws = lines if len(numbers) == len(lines) else [lines[number - 1] for number in numbers]
    course = parse is parse_session_entry
    index = load_index(session, data) if course and session is not None else None
    vouched = _vouched_lines(index, data, numbers, raws) if index is not None else []
    result = _Read(entries=vouched, ids={line.id for line in vouched})
    ids, covered = result.ids, len(vouched)
    new_numbers, new_raws = numbers[covered:], raws[covered:]
    entries: list[Any] = []
    models = _validate_lines(new_raws) if course else None
    if models is None:  # line by line, so the first bad line is the one named, whatever is wrong with it
        for number, raw in zip(new_numbers, new_raws):
            entry = _validate_line(raw, number) if course else _parse_line(raw, number, parse)
            _check_place(ids, entry, line=number)
            ids.add(entry.id)
            entries.append(_Line(entry.id, entry.parent_id, raw, number, entry) if course else entry)
    else:
        for number, raw, entry in zip(new_numbers, new_raws, models):
            _check_place(ids, entry, line=number)
            ids.add(entry.id)
            entries.append(_Line(entry.id, entry.parent_id, raw, number, entry))
    result.entries = vouched + entries if vouched else entries
    if tail.strip():
        line = len(lines) + 1
        result.warnings = (
            ReadWarning(
                code="unterminated_tail",
                line=line,
                message=f"line {line} has no newline (an unterminated tail, skipped)",
            ),
        )
    if course and session is not None and entries:
        everything = result.entries
        save_index(session, data, len(data) - len(tail), [e.id for e in everything], [e.parent_id for e in everything])
    return result


def _vouched_lines(index: SessionIndex, data: bytes, numbers: list[int], raws: list[bytes]) -> list[_Line]:
    """The lines the index covers, with the ids and parents it names for them; none when the
    index does not cover whole lines of this file or names an id twice (R7)."""
    covered = bisect.bisect_right(numbers, data.count(b"\n", 0, index.size))
    if covered != len(index.ids) or len(set(index.ids)) != covered:
        return []
    return list(map(_Line, index.ids, index.parents, raws[:covered], numbers[:covered]))


_VALIDATE_JSON = ENTRY_ADAPTER.validator.validate_json
_VALIDATE_ARRAY = TypeAdapter(list[SessionEntry]).validator.validate_json


def _from_bytes(raw: bytes) -> Any:
    """The fast path for one line: JSON text straight into the models, finite numbers included (R1).

    pydantic-core keeps the last of two equal keys, so jiter (the JSON parser
    pydantic-core uses) reads the line once more to refuse them. Any refusal is a
    ``ValueError`` (pydantic's ValidationError and jiter's errors alike).
    """
    jiter.from_json(raw, catch_duplicate_keys=True, cache_mode="keys")
    return _VALIDATE_JSON(raw, by_alias=True, by_name=False)


def _validate_lines(raws: list[bytes]) -> list[Any] | None:
    """Every line validated in one call into the validator, or ``None`` if one is refused:
    the caller then goes line by line, and the slow path words the first bad line's error
    (R2, R8).

    jiter reads each line first, for two things the array cannot tell: that no object
    repeats a key, and that the line is exactly one JSON value, so that joining the
    lines with commas makes an array of exactly one element per line.
    """
    try:
        for raw in raws:
            jiter.from_json(raw, catch_duplicate_keys=True, cache_mode="keys")
        entries = _VALIDATE_ARRAY(_json_array(raws), by_alias=True, by_name=False) if raws else []
    except ValueError:
        return None
    return entries if len(entries) == len(raws) else None


def _validate_line(raw: bytes, number: int) -> Any:
    """One line on the fast path, or on the slow path when the fast one refuses it."""
    try:
        return _from_bytes(raw)
    except ValueError:
        return _parse_line(raw, number, parse_session_entry)


def _parse_line(raw: bytes, number: int, parse: Parser) -> Any:
    """The slow path, with a precise message naming the line (R8) and the field (R2)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionEntryError(
            f"line {number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})", line=number
        ) from None
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_int=_json_int, object_pairs_hook=_object_with_unique_keys
        )
    except _DuplicateKeyError as exc:
        raise SessionEntryError(f"line {number}: key {quoted(exc.key)} appears twice in one object", line=number) from None
    except json.JSONDecodeError as exc:
        raise SessionEntryError(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})", line=number) from None
    except RecursionError:
        raise SessionEntryError(f"line {number}: nests too deeply to be a session entry", line=number) from None
    except ValueError as exc:
        raise SessionEntryError(f"line {number}: not valid JSON ({exc})", line=number) from None
    try:
        return parse(value)
    except SessionEntryError as exc:
        raise SessionEntryError(
            f"line {number}: {exc}", entry_id=exc.entry_id, path=exc.path, line=number
        ) from None


def _refuse_constant(name: str) -> Any:
    raise NotFiniteJsonError(name)


def _json_int(digits: str) -> int | float:
    """An integer as JSON.parse reads it: past the double range it is infinite, which the
    models refuse naming the field (R1); Python's own digit limit is never reached."""
    if len(digits) > 400:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


class _DuplicateKeyError(CourseError, ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_with_unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: a second value for a key is refused, not kept."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return value


def _wire_line(entry: Any) -> bytes:
    """The entry as one UTF-8 JSON line; refused before anything is written (R8).

    The course parser already refuses what UTF-8 cannot hold (a lone surrogate); a
    custom ``parse`` may not, and its entry is then the caller's error: the store stays open.
    """
    if type(entry) is _Line:
        return entry.raw + b"\n"  # a line the store vouches for is written as it stands
    try:
        if isinstance(entry, BaseModel):
            return entry.model_dump_json(by_alias=True).encode("utf-8") + b"\n"
        text = json.dumps(to_json_dict(entry), ensure_ascii=False, allow_nan=False)
        return text.encode("utf-8") + b"\n"
    except ValueError:  # UnicodeEncodeError and pydantic's serialization error are ValueErrors
        entry_id = getattr(entry, "id", None)
        raise SessionEntryError(
            f"entry {quoted(entry_id)} cannot be written as a UTF-8 JSON line", entry_id=entry_id
        ) from None


__all__ = [
    "InMemorySessionStore",
    "JsonlSessionStore",
    "ReadWarning",
    "SessionReadResult",
    "recover_jsonl",
]
