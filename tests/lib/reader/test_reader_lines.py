"""The fast reader's bulk builds (``course_lib.reader.lines``) pause Python's cyclic garbage
collector while they run and restore it after, whatever happens (R8, R9)."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from wire_samples import little_session_wire

from course_lib import SessionEntryError
from course_lib.reader import CACHE_ENV, SessionReader, index, lines, recover_jsonl


@pytest.fixture(autouse=True)
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "indexes"))
    monkeypatch.setattr(index, "MIN_BYTES", 0)


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Every test starts with the collector on, and leaves it on."""
    gc.enable()
    yield
    gc.enable()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(wire) + "\n" for wire in little_session_wire()), encoding="utf-8")
    return path


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the collector ran while the validator built models, one flag per call."""
    flags: list[bool] = []
    validate = lines._VALIDATE_JSON

    def recording(data: bytes, **options: Any) -> Any:
        flags.append(gc.isenabled())
        return validate(data, **options)

    monkeypatch.setattr(lines, "_VALIDATE_JSON", recording)
    return flags


WAYS_IN: dict[str, Callable[[Path], object]] = {
    "first open + entries()": lambda path: list(SessionReader.open(path).entries()),
    "reopen + entries()": lambda path: (SessionReader.open(path), list(SessionReader.open(path).entries())),
    "read()": lambda path: SessionReader(path).read(),
    "recover_jsonl": lambda path: recover_jsonl(path.read_text(encoding="utf-8")),
}


@pytest.mark.parametrize("way", list(WAYS_IN))
def test_every_bulk_build_runs_with_the_collector_paused_and_restores_it(
    way: str, session: Path, seen: list[bool]
) -> None:
    WAYS_IN[way](session)
    assert seen and not any(seen)
    assert gc.isenabled()


def test_a_collector_the_caller_paused_stays_paused(session: Path, seen: list[bool]) -> None:
    gc.disable()
    list(SessionReader.open(session).entries())
    assert seen and not gc.isenabled()


def test_the_collector_runs_again_after_a_refused_line(tmp_path: Path) -> None:
    """R8: the error names the line; the pause ends with it."""
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(little_session_wire()[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SessionEntryError, match="line 2"):
        SessionReader.open(path)
    assert gc.isenabled()


def test_the_pause_ends_when_the_build_raises() -> None:
    def build() -> None:
        with lines.collector_paused():
            assert not gc.isenabled()
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        build()
    assert gc.isenabled()
