"""The fast reader's bulk builds leave the process's garbage collector as they found it, and leave what
they built where the young collections do not walk it (issue 31: collections avoided, not postponed)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from wire_samples import little_session_wire

from course_lib import SessionEntryError
from course_lib.reader import SessionReader, lines, recover_jsonl


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(wire) + "\n" for wire in little_session_wire()), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def collector() -> Iterator[None]:
    """Whatever a test does to the collector is undone for the next one."""
    enabled, thresholds, frozen = gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()
    yield
    if frozen == 0:
        gc.unfreeze()
    gc.set_threshold(*thresholds)
    (gc.enable if enabled else gc.disable)()


def state() -> tuple[bool, tuple[int, ...], int]:
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()


def every_way_in(session: Path) -> None:
    SessionReader.open(session).entries()
    list(SessionReader.open(session).entries())
    SessionReader(session).read()
    recover_jsonl(session.read_text(encoding="utf-8"))


@pytest.mark.parametrize("enabled", [True, False], ids=["enabled", "disabled"])
def test_the_collectors_state_is_restored(session: Path, enabled: bool) -> None:
    gc.set_threshold(123, 7, 9)
    (gc.enable if enabled else gc.disable)()
    before = state()
    every_way_in(session)
    assert state() == before == (enabled, (123, 7, 9), 0)


@pytest.mark.slow  # starts a Python process: make test, not make check
def test_objects_the_process_froze_stay_frozen(session: Path) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    every_way_in(session)
    # Frozen objects that die leave the count, so it may fall a little; settling would have emptied it.
    assert gc.isenabled() and frozen // 2 < gc.get_freeze_count() <= frozen


def test_the_state_is_restored_when_a_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(little_session_wire()[0]) + "\n{not json\n", encoding="utf-8")
    before = state()
    with pytest.raises(SessionEntryError, match="line 2"):
        SessionReader.open(path)
    assert state() == before


def test_no_collection_walks_what_a_bulk_build_made(tmp_path: Path) -> None:
    """Avoided, not postponed: the young collections that would run once the pause ends (the
    build's allocations still count) do not run at all, because ``settled`` leaves none young."""
    lines = [json.dumps(little_session_wire()[0])]
    lines += [
        json.dumps({**little_session_wire()[0], "id": f"x{n}", "parentId": f"x{n - 1}" if n else "u1"})
        for n in range(300)
    ]
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.enable()
    gc.callbacks.append(seen)
    try:
        reader = SessionReader.open(path)  # about 15 containers per line: far past a young threshold
    finally:
        gc.callbacks.remove(seen)
    assert len(reader.entries()) == 301 and collections == []


def test_settled_leaves_nothing_young() -> None:
    young: list[list[int]] = [[] for _ in range(1000)]
    lines.settled()
    assert gc.get_count()[0] < 10 and gc.get_freeze_count() == 0 and len(young) == 1000
