"""Session stores: in memory and JSONL on disk (R7–R9).

Both stores take a parsed snapshot on ``append`` through the same parser (R3, R7),
so a compaction entry needs no special write code. The JSONL store treats a
newline as the commit marker and never rewrites or truncates bytes that are
already on disk (R8).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from .errors import SessionEntryError, SessionStoreError
from .models import SessionEntry
from .parsing import ENTRY_ADAPTER, fresh_copy, parse_session_entry, to_json_dict
from .paths import path_to

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
        self._commit(snapshot)
        self._entries.append(snapshot)
        self._ids.add(snapshot.id)
        return fresh_copy(snapshot)

    def entries(self) -> list[SessionEntry]:
        return [fresh_copy(entry) for entry in self._entries]

    def path_to(self, leaf_id: str) -> list[SessionEntry]:
        return path_to(self._entries, leaf_id)

    def __len__(self) -> int:
        return len(self._entries)

    def _check_place(self, entry: Any, *, line: int | None = None) -> None:
        """A unique id and an already-stored parent; only roots have no parent (R7)."""
        if entry.id in self._ids:
            raise SessionStoreError(f"{_where(line)}duplicate entry id {entry.id!r}", entry_id=entry.id, line=line)
        if entry.parent_id is not None and entry.parent_id not in self._ids:
            raise SessionStoreError(
                f"{_where(line)}entry {entry.id!r} names unknown parent {entry.parent_id!r}",
                entry_id=entry.id,
                line=line,
            )

    def _commit(self, entry: Any) -> None:
        """Nothing to persist in memory; the JSONL store writes the line here."""


class JsonlSessionStore(InMemorySessionStore):
    """One entry per line; a newline commits it; existing bytes are never touched (R8, R9)."""

    def __init__(self, path: Path, *, fsync: bool = True, parse: Parser = parse_session_entry) -> None:
        super().__init__(parse=parse)
        self.path = Path(path)
        self.fsync = fsync
        self._file: Any = None
        self._refusal: str | None = None
        self.warnings: tuple[ReadWarning, ...] = ()

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, fsync: bool = True, parse: Parser = parse_session_entry
    ) -> JsonlSessionStore:
        """Load the committed entries; an unterminated tail blocks appends until dealt with (R8)."""
        store = cls(Path(path), fsync=fsync, parse=parse)
        if store.path.exists():
            result = _read_jsonl(store.path.read_bytes(), parse)
            for line, entry in result.lines:
                store._check_place(entry, line=line)
                store._entries.append(entry)
                store._ids.add(entry.id)
            store.warnings = result.warnings
            if result.warnings:
                tail = result.warnings[0]
                store._refusal = (
                    f"{store.path}: {tail.message}; appends are refused until it is dealt with "
                    f"(inspect it, then start a clean file with JsonlSessionStore.recover_into)"
                )
        return store

    @classmethod
    def recover_into(
        cls, source: str | os.PathLike[str], target: str | os.PathLike[str], **options: Any
    ) -> JsonlSessionStore:
        """Copy the committed entries of ``source`` to a new file; ``source`` stays as it is."""
        target_path = Path(target)
        if target_path.exists():
            raise SessionStoreError(f"{target_path} already exists; recovery never overwrites a file")
        recovered = cls.open(source, **options)
        store = cls(target_path, **options)
        for entry in recovered._entries:
            store.append(entry)
        return store

    def read(self) -> SessionReadResult:
        """What is on disk now: committed entries (copies) and warnings such as a tail."""
        if not self.path.exists():
            return SessionReadResult(entries=[])
        return _read_jsonl(self.path.read_bytes(), self._parse).as_result()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> JsonlSessionStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _check_place(self, entry: Any, *, line: int | None = None) -> None:
        if self._refusal is not None and line is None:
            raise SessionStoreError(self._refusal, entry_id=getattr(entry, "id", None))
        super()._check_place(entry, line=line)

    def _commit(self, entry: Any) -> None:
        """Write one line in append mode, flush and fsync; any failure closes the store (R8)."""
        line = _wire_line(entry)
        try:
            if self._file is None:
                self._file = open(self.path, "ab")  # noqa: SIM115 - kept open between appends
            self._file.write(line)
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
        except Exception as exc:
            self._refusal = f"{self.path}: a write failed ({exc}); the store refuses further appends"
            raise SessionStoreError(self._refusal, entry_id=entry.id) from exc


def _where(line: int | None) -> str:
    return f"line {line}: " if line is not None else ""


def recover_jsonl(text: str, *, parse: Parser = parse_session_entry) -> SessionReadResult:
    """Read JSONL text as a store would: skip blank lines, report an unterminated tail (R8)."""
    return _read_jsonl(text.encode("utf-8"), parse).as_result()


# --- reading -----------------------------------------------------------------------


@dataclass
class _Read:
    """Parsed committed lines as (line number, entry), before any copy is handed out."""

    lines: list[tuple[int, Any]] = field(default_factory=list)
    warnings: tuple[ReadWarning, ...] = ()

    def as_result(self) -> SessionReadResult:
        return SessionReadResult(entries=[fresh_copy(e) for _, e in self.lines], warnings=self.warnings)


def _read_jsonl(data: bytes, parse: Parser) -> _Read:
    """Committed lines parsed to entries (with line numbers), plus warnings.

    With the course parser each line goes straight from bytes into the models
    (pydantic-core's JSON parser), which is faster than building dicts first.
    """
    lines = data.split(b"\n")
    tail = lines.pop()
    result = _Read()
    fast = parse is parse_session_entry
    for number, raw in enumerate(lines, start=1):
        if not raw or raw.isspace():
            continue  # a blank line is ignored (R8); isspace() avoids copying the line like strip()
        entry = _validate_line(raw, number) if fast else _parse_line(raw, number, parse)
        result.lines.append((number, entry))
    if tail.strip():
        line = len(lines) + 1
        result.warnings = (
            ReadWarning(
                code="unterminated_tail",
                line=line,
                message=f"line {line} has no newline (an unterminated tail, skipped)",
            ),
        )
    return result


def _validate_line(raw: bytes, number: int) -> Any:
    """The fast path: JSON text straight into the models, finite numbers included (R1).

    Any refusal is parsed again on the slow path, which words the error (R2, R8).
    """
    try:
        return ENTRY_ADAPTER.validate_json(raw, by_alias=True, by_name=False)
    except ValidationError:
        return _parse_line(raw, number, parse_session_entry)


def _parse_line(raw: bytes, number: int, parse: Parser) -> Any:
    """The slow path, with a precise message naming the line (R8) and the field (R2)."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except ValueError as exc:
        raise SessionEntryError(f"line {number}: not valid JSON ({exc})", line=number) from None
    try:
        return parse(value)
    except SessionEntryError as exc:
        raise SessionEntryError(
            f"line {number}: {exc}", entry_id=exc.entry_id, path=exc.path, line=number
        ) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite JSON number")


def _wire_line(entry: Any) -> bytes:
    """The entry as one UTF-8 JSON line; refused before anything is written (R8).

    A string Python can hold but UTF-8 cannot (a lone surrogate such as ``"\\ud800"``)
    is the caller's error, so the store stays open.
    """
    try:
        if isinstance(entry, BaseModel):
            return entry.model_dump_json(by_alias=True).encode("utf-8") + b"\n"
        text = json.dumps(to_json_dict(entry), ensure_ascii=False, allow_nan=False)
        return text.encode("utf-8") + b"\n"
    except ValueError as exc:  # UnicodeEncodeError and pydantic's serialization error are ValueErrors
        entry_id = getattr(entry, "id", None)
        raise SessionEntryError(
            f"entry {entry_id!r} cannot be written as UTF-8 JSON ({exc})", entry_id=entry_id
        ) from None


__all__ = [
    "InMemorySessionStore",
    "JsonlSessionStore",
    "ReadWarning",
    "SessionReadResult",
    "recover_jsonl",
]
