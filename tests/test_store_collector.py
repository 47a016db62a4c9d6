"""The store's bulk builds leave the process's garbage collector as they found it, and leave what
they built where the young collections do not walk it (issue 31: collections avoided, not postponed)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from wire_samples import little_session_wire

from course_lib import JsonlSessionStore, SessionEntryError, recover_jsonl, store_lines


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
    JsonlSessionStore.open(session, fsync=False).entries()
    list(JsonlSessionStore.open(session, fsync=False).entries())
    JsonlSessionStore(session).read()
    recover_jsonl(session.read_text(encoding="utf-8"))


@pytest.mark.parametrize("enabled", [True, False], ids=["enabled", "disabled"])
def test_the_collectors_state_is_restored(session: Path, enabled: bool) -> None:
    gc.set_threshold(123, 7, 9)
    (gc.enable if enabled else gc.disable)()
    before = state()
    every_way_in(session)
    assert state() == before == (enabled, (123, 7, 9), 0)


def test_objects_the_process_froze_stay_frozen(session: Path) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    every_way_in(session)
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_the_state_is_restored_when_a_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(little_session_wire()[0]) + "\n{not json\n", encoding="utf-8")
    before = state()
    with pytest.raises(SessionEntryError, match="line 2"):
        JsonlSessionStore.open(path, fsync=False)
    assert state() == before


def test_what_a_bulk_build_made_is_in_the_oldest_generation(session: Path) -> None:
    """The young collections right after the build do not walk the new models again: they are not young."""
    gc.enable()
    gc.collect()
    entry = JsonlSessionStore.open(session, fsync=False).entries()[0]  # a model the first open built
    assert gc.get_count()[0] < 700
    assert any(found is entry for found in gc.get_objects(generation=2))


def test_settled_moves_the_young_into_the_oldest_generation() -> None:
    young: list[list[int]] = [[] for _ in range(10)]
    store_lines.settled()
    oldest = {id(found) for found in gc.get_objects(generation=2)}
    assert all(id(item) in oldest for item in young) and gc.get_freeze_count() == 0
