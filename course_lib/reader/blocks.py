"""A session file read in blocks: its lines, and the sha256 the index is checked and written with (R8, R9).

Reading a whole long session into one buffer, then splitting it, counting its newlines and
hashing it, passes over its bytes four times; past the CPU's caches (a 100k-entry session is
over 100 MB) each pass goes to memory, and the fresh buffer costs page faults of its own. Read
a block at a time instead (``BLOCK``), each block is split, counted and hashed while it is in
the caches, and no buffer of the whole file is ever held. What comes out is what
``bytes.split(b"\\n")`` of the whole file gives (the last item what follows the last newline,
the tail R8 leaves unread), plus two digests: of the bytes before ``mark`` (the size an index
says it covers, which ``lines.vouched_lines`` checks) and of every committed byte (what
``index.save_index`` records).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

BLOCK = 1 << 20
"""1 MiB: small enough to stay in the CPU's caches while it is split and hashed, large enough that
the reads cost nothing next to the lines."""


@dataclass(frozen=True)
class FileLines:
    """A file's lines as ``bytes.split(b"\\n")`` gives them, and what the index needs of its bytes."""

    lines: list[bytes]
    """Every physical line; the last is what follows the last newline (empty when the file ends with one)."""
    size: int
    """How many bytes were read."""
    committed_sha256: str | None = None
    """The sha256 of the bytes before that tail (``None`` for bytes in memory: no index is written for them)."""
    marked_sha256: str | None = None
    """The sha256 of the first ``mark`` bytes, when they end a line (or ``mark`` is 0) within the committed
    bytes; ``None`` otherwise, so an index naming that size cannot be used."""
    marked_lines: int = 0
    """How many newlines the first ``mark`` bytes hold."""

    @property
    def committed(self) -> int:
        """How many bytes come before the tail."""
        return self.size - len(self.lines[-1])


def file_lines(path: Path, mark: int = 0) -> FileLines:
    """Read ``path`` a block at a time (see the module's docstring)."""
    lines: list[bytes] = []
    digest = hashlib.sha256()
    hashed = 0  # the bytes given to the digest: always the whole lines read so far
    tail = b""  # what follows the last newline read so far: never a newline in it
    marked: str | None = digest.hexdigest() if mark == 0 else None
    marked_lines = 0
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            cut = block.rfind(b"\n") + 1  # the lines this block completes end at block[cut - 1]
            if not cut:
                tail += block
                continue
            digest.update(tail)
            hashed += len(tail)
            inside = mark - hashed  # where the mark falls in this block's completed lines, if it does
            if 0 < inside <= cut:
                digest.update(memoryview(block)[:inside])
                marked_lines += block.count(b"\n", 0, inside)
                marked = digest.hexdigest() if block[inside - 1] == 10 else None
                digest.update(memoryview(block)[inside:cut])
            else:
                digest.update(memoryview(block)[:cut])
                if inside > cut:
                    marked_lines += block.count(b"\n", 0, cut)
            hashed += cut
            parts = block.split(b"\n")
            if tail:
                parts[0] = tail + parts[0]  # the line begun in an earlier block
            tail = parts.pop()
            lines += parts
    lines.append(tail)
    return FileLines(lines, hashed + len(tail), digest.hexdigest(), marked, marked_lines)


def memory_lines(data: bytes) -> FileLines:
    """The lines of bytes already in memory (a text handed to ``recover_jsonl``), which no index covers."""
    return FileLines(data.split(b"\n"), len(data))
