"""The validated index of a JSONL session (``course_lib.reader.index``): the fast reader's reopen takes
the verdict of lines read before and checks only what is new, yet never trusts bytes the index was not
written for (R7–R9)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from wire_samples import little_session_wire, user_wire

from course_lib import SessionEntryError, SessionStoreError
from course_lib.reader import CACHE_ENV, SessionReader, index, read
from course_lib.reader.index import SessionIndex, index_path


@pytest.fixture(autouse=True)
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Indexes in a folder of this test's own, and for any size: the sessions here are tiny."""
    folder = tmp_path / "indexes"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    monkeypatch.setattr(index, "MIN_BYTES", 0)
    return folder


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "logs" / "session.jsonl"
    path.parent.mkdir()
    lines = [json.dumps(wire) for wire in little_session_wire()]
    lines.insert(2, "   ")  # a blank line (R8) shifts the line numbers the index must keep
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Validated:
    """Counts the lines the reader validates, whichever of its two paths it takes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: list[bytes] = []
        fast, one = read.validate_lines, read.validate_line

        def validate_lines(raws: list[bytes]) -> Any:
            self.lines += raws
            return fast(raws)

        def validate_line(raw: bytes, number: int) -> Any:
            self.lines.append(raw)
            return one(raw, number)

        monkeypatch.setattr(read, "validate_lines", validate_lines)
        monkeypatch.setattr(read, "validate_line", validate_line)


def _wire(entries: Sequence[Any]) -> list[dict[str, Any]]:
    return [entry.model_dump(mode="json", by_alias=True) for entry in entries]


def _append(session: Path, wire: dict[str, Any], newline: str = "\n") -> None:
    with session.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(wire) + newline)


def test_a_reopen_validates_only_the_lines_appended_since(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R8/R9: the first open validates every line and writes the index beside nothing but the cache."""
    validated = Validated(monkeypatch)
    SessionReader.open(session)
    assert len(validated.lines) == 5
    where = index_path(session)
    assert where is not None and where.exists()
    assert sorted(p.name for p in session.parent.iterdir()) == ["session.jsonl"]  # nothing beside the log

    _append(session, user_wire("u2", "compact-1"))
    validated.lines.clear()
    reopened = SessionReader.open(session)
    assert [json.loads(line)["id"] for line in validated.lines] == ["u2"]
    validated.lines.clear()
    assert _wire(reopened.entries()) == [*little_session_wire(), user_wire("u2", "compact-1")]  # R9
    assert SessionReader.open(session).path_to("u2")[-1].id == "u2"
    assert validated.lines == []  # the index now covers u2 too
    assert len(SessionIndex.model_validate_json(where.read_bytes()).kinds) == 6


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda text: text.replace('"id": "a1"', '"id": "a1", "id": "a1"'), id="duplicate-key"),
        pytest.param(lambda text: text.replace('"timestamp": 2', '"timestamp": true', 1), id="bool-timestamp"),
        pytest.param(lambda text: text.replace('"id": "a1"', '"id" "a1"', 1), id="same-size-broken"),
    ],
)
def test_changed_bytes_are_validated_again(session: Path, edit: Any) -> None:
    """R8: the index vouches for the bytes it hashed, not for whatever the file holds now: open fails closed."""
    SessionReader.open(session)
    text = session.read_text(encoding="utf-8")
    session.write_text(edit(text), encoding="utf-8")
    assert session.read_text(encoding="utf-8") != text
    with pytest.raises(SessionEntryError, match=r"^line 2: "):
        SessionReader.open(session)


def test_an_unterminated_tail_is_left_out_of_the_index(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R8: the tail is not committed, so it is never vouched for; it still warns on every open."""
    _append(session, user_wire("u2", "compact-1"), newline="")
    SessionReader.open(session)
    validated = Validated(monkeypatch)
    reader = SessionReader.open(session)
    assert validated.lines == [] and [w.line for w in reader.warnings] == [7]
    with session.open("a", encoding="utf-8") as handle:
        handle.write("\n")
    assert [e.id for e in SessionReader.open(session).entries()][-1] == "u2"
    assert [json.loads(line)["id"] for line in validated.lines] == ["u2"]


def _rewrite_index(session: Path, **changes: Any) -> None:
    where = index_path(session)
    assert where is not None
    kept = SessionIndex.model_validate_json(where.read_bytes())
    where.write_text(kept.model_copy(update=changes).model_dump_json(), encoding="utf-8")


def test_an_index_naming_other_ids_is_refused_when_its_line_is_built(session: Path) -> None:
    """R7: an index is a claim about lines; a line that is not what it claims names itself."""
    SessionReader.open(session)
    _rewrite_index(session, ids=["u1", "a1", "x1", "meta-1", "compact-1"])
    reader = SessionReader.open(session)
    with pytest.raises(
        SessionStoreError, match=r"^line 4: entry 'r1' is not the entry 'x1' the session's index names"
    ) as caught:
        list(reader.entries())  # the entries are built when read: reading them all refuses
    assert caught.value.entry_id == "r1" and caught.value.line == 4


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"sha256": "0" * 64}, id="other-bytes"),
        pytest.param({"fingerprint": "older code"}, id="other-code"),
        pytest.param({"ids": ["u1", "u1", "r1", "meta-1", "compact-1"]}, id="repeated-id"),
        pytest.param({"ids": ["u1"], "parents": [None]}, id="too-few-lines"),
        pytest.param({"size": 3}, id="not-whole-lines"),
        pytest.param({"kinds": "xxxxx"}, id="letters-that-are-no-kind"),
    ],
)
def test_an_index_that_does_not_fit_the_file_is_ignored(
    session: Path, monkeypatch: pytest.MonkeyPatch, changes: dict[str, Any]
) -> None:
    SessionReader.open(session)
    _rewrite_index(session, **changes)
    validated = Validated(monkeypatch)
    assert _wire(SessionReader.open(session).entries()) == little_session_wire()
    assert len(validated.lines) == 5


@pytest.mark.parametrize("content", [b"", b"not json", b'{"format": 1}', b"[1, 2]"])
def test_a_damaged_index_is_ignored(session: Path, monkeypatch: pytest.MonkeyPatch, content: bytes) -> None:
    SessionReader.open(session)
    where = index_path(session)
    assert where is not None
    where.write_bytes(content)
    validated = Validated(monkeypatch)
    assert _wire(SessionReader.open(session).entries()) == little_session_wire()
    assert len(validated.lines) == 5


def test_new_code_does_not_take_an_older_verdict(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint covers the code that judges a line: any change there re-validates."""
    SessionReader.open(session)
    monkeypatch.setattr(index, "fingerprint", lambda: "the next version")
    validated = Validated(monkeypatch)
    SessionReader.open(session)
    assert len(validated.lines) == 5


def test_indexes_can_be_switched_off_and_a_cache_that_cannot_be_written_costs_nothing(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, "")
    assert index_path(session) is None
    assert _wire(SessionReader.open(session).entries()) == little_session_wire()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(CACHE_ENV, str(blocker / "indexes"))
    assert _wire(SessionReader.open(session).entries()) == little_session_wire()
    assert not (blocker / "indexes").exists()


def test_read_builds_the_vouched_lines(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R8/R9: ``read()`` reads the file again, and the index spares validating what it covers."""
    SessionReader.open(session)
    reader = SessionReader.open(session)
    validated = Validated(monkeypatch)
    assert _wire(reader.read().entries) == little_session_wire()
    assert validated.lines == []


def test_a_small_session_gets_no_index(session: Path, indexes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below MIN_BYTES validating is cheaper than an index, and short-lived files leave none behind."""
    monkeypatch.setattr(index, "MIN_BYTES", session.stat().st_size + 1)
    SessionReader.open(session)
    assert not indexes.exists()
    monkeypatch.setattr(index, "MIN_BYTES", session.stat().st_size)
    SessionReader.open(session)
    assert [p.suffix for p in indexes.iterdir()] == [".json"]


def test_the_fingerprint_covers_every_module_that_judges_a_line() -> None:
    """A verdict is only taken from the code that judged it: a module left out of the fingerprint
    could change how lines are judged while old indexes stay trusted. Every reader module, and the
    core's models, parser and line reader."""
    package = Path(index.__file__).resolve().parents[1]
    readers = {f"reader/{path.name}" for path in (package / "reader").glob("*.py")} - {"reader/__init__.py"}
    assert set(index.JUDGING_MODULES) == readers | {"models.py", "parsing.py", "jsonl.py"}
    assert all((package / name).is_file() for name in index.JUDGING_MODULES)
