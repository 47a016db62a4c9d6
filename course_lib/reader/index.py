"""The validated index of a JSONL session: why the fast reader's reopen need not re-validate (R8, R9).

Validating a line means parsing it strictly (R1) and reading it once more for
repeated keys; on a long session that is most of the time a reopen takes. Yet a
line that passed once passes again: the verdict depends only on its bytes and on
the code that judged them. So after reading a file the reader records the verdict
in a small index: how many bytes it covers, their sha256, the code's fingerprint,
and each entry's id and parent (what the tree checks of R7 need) and kind. A reopen that
finds the same bytes under the same fingerprint takes the verdict, checks only the
lines appended since, and builds each covered entry's model when it is first used.

The index is a cache, never the session. It lives in the user's cache folder
(``COURSE_LIB_CACHE_DIR``, else ``$XDG_CACHE_HOME`` or ``~/.cache``, then
``course-lib/session-index``), not beside the log, and it is only ever trusted for
bytes whose sha256 it names. Only sessions of ``MIN_BYTES`` or more get one. Losing it, or a folder that cannot be written, costs
one full validation and nothing else; a damaged or foreign index is ignored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import secrets
from pathlib import Path
from typing import Annotated

import pydantic
import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, ValidationError

INDEX_FORMAT = 2
MIN_BYTES = 256 * 1024
"""Smaller sessions get no index: they validate in a few milliseconds, and the files a test
or a checklist writes and deletes by the hundred would only leave stale indexes behind."""
CACHE_ENV = "COURSE_LIB_CACHE_DIR"
"""Where indexes go; set it to an empty string to switch them off."""


class SessionIndex(BaseModel):
    """One file's verdict: its first ``size`` bytes hold valid entries with these ids and parents."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    format: int
    fingerprint: str
    size: Annotated[int, Field(ge=0)]
    sha256: str
    ids: list[str]
    parents: list[str | None]
    kinds: Annotated[str, Field(pattern=r"^[smcd]*$")]
    """One letter per entry (``reader.lines.KINDS``): where the compactions and system messages are,
    so a reader of the newest entries builds no others (R16, R18)."""


JUDGING_MODULES = (
    "models.py",
    "parsing.py",
    "jsonl.py",
    "reader/blocks.py",
    "reader/entries.py",
    "reader/index.py",
    "reader/lines.py",
    "reader/read.py",
    "reader/session.py",
)
"""The modules (under ``course_lib``) whose code may decide whether a line is valid and what an
index records: the models, the parser, the core's line reader and every module of the reader
(tests/lib/reader/test_reader_index.py checks that none is left out)."""


@functools.cache
def fingerprint() -> str:
    """The code that judges a line: the models, the parser, the readers of lines, and pydantic's versions.

    Any change to them makes every older index a stranger, so a verdict is never
    taken from code that might have judged differently.
    """
    digest = hashlib.sha256(f"{INDEX_FORMAT} {pydantic.VERSION} {pydantic_core.__version__}".encode())
    package = Path(__file__).resolve().parents[1]
    for name in JUDGING_MODULES:
        digest.update((package / name).read_bytes())
    return digest.hexdigest()


def index_path(session: Path) -> Path | None:
    """The index's file for ``session``, named by the session's absolute path; ``None`` when switched off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        if not configured:
            return None
        folder = Path(configured)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = Path(base) / "course-lib" / "session-index"
    key = hashlib.sha256(os.fsencode(os.path.abspath(session))).hexdigest()[:32]
    return folder / f"{key}.json"


def load_index(session: Path, size: int) -> SessionIndex | None:
    """The index this code wrote for ``session``, if a file of ``size`` bytes may be covered by it; its bytes
    are checked against its sha256 as the file is read (``blocks.file_lines``, ``lines.vouched_lines``)."""
    where = index_path(session) if size >= MIN_BYTES else None
    if where is None:
        return None
    try:
        index = SessionIndex.model_validate_json(where.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None
    usable = (
        index.format == INDEX_FORMAT
        and index.fingerprint == fingerprint()
        and index.size <= size
        and len(index.ids) == len(index.parents) == len(index.kinds)
    )
    return index if usable else None


def save_index(
    session: Path, size: int, covered: int, sha256: str, ids: list[str], parents: list[str | None], kinds: str
) -> None:
    """Record that the first ``covered`` bytes of the file (``size`` bytes in all), whose sha256 is ``sha256``,
    hold these entries; best effort, replaced in one step."""
    where = index_path(session) if size >= MIN_BYTES else None
    if where is None:
        return
    index = SessionIndex.model_construct(  # the reader's own values, checked when the index is read back
        format=INDEX_FORMAT,
        fingerprint=fingerprint(),
        size=covered,
        sha256=sha256,
        ids=ids,
        parents=parents,
        kinds=kinds,
    )
    temporary = where.with_name(f".{where.name}.{secrets.token_hex(4)}")
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(index.model_dump_json().encode())
        os.replace(temporary, where)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


def forget_index(session: Path) -> None:
    """Remove the index of ``session`` (tests, and anyone who distrusts a cache)."""
    where = index_path(session)
    if where is not None:
        with contextlib.suppress(OSError):
            where.unlink()
