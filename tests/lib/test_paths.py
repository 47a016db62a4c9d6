"""The active path (R10)."""

from __future__ import annotations

import pytest
from wire_samples import shared_containers, user_wire

from course_lib import PathBuilder, SessionPathError, parse_session_entry, path_to, to_json_dict


def _tree() -> list:
    """u1 → a1 → u2 → a2, and a sibling branch a1 → u2b → a2b."""
    main = PathBuilder().user("u1", "hi").assistant("a1", "hello").user("u2", "next").assistant("a2", "done")
    branch = PathBuilder(main.entries[:2]).user("u2b", "other").assistant("a2b", "other done")
    return main.entries + branch.entries[2:]


def test_r10_returns_root_to_leaf_following_parent_ids() -> None:
    entries = _tree()
    assert [e.id for e in path_to(entries, "a2")] == ["u1", "a1", "u2", "a2"]
    assert [e.id for e in path_to(entries, "a2b")] == ["u1", "a1", "u2b", "a2b"]
    assert [e.id for e in path_to(entries, "u1")] == ["u1"]


def test_r10_order_comes_from_parents_not_from_storage_order() -> None:
    entries = _tree()
    assert [e.id for e in path_to(list(reversed(entries)), "a2")] == ["u1", "a1", "u2", "a2"]


def test_r10_returns_copies() -> None:
    entries = [parse_session_entry(user_wire())]
    path = path_to(entries, "u1")
    assert path == entries
    assert path[0] is not entries[0]
    assert shared_containers(path, entries) == []


def test_r10_rejects_an_unknown_leaf() -> None:
    with pytest.raises(SessionPathError, match="'nope'") as info:
        path_to(_tree(), "nope")
    assert info.value.entry_id == "nope"


def test_r10_rejects_a_duplicate_id_anywhere() -> None:
    """Even a duplicate off the chosen branch is refused: ids must be unique in the session."""
    entries = _tree()
    entries.append(parse_session_entry(user_wire(id="u2b", parent="a1")))
    with pytest.raises(SessionPathError, match=r"duplicate.*'u2b'") as info:
        path_to(entries, "a2")
    assert info.value.entry_id == "u2b"


def test_r10_rejects_a_missing_parent_on_the_chain() -> None:
    entries = [e for e in _tree() if e.id != "u2"]
    with pytest.raises(SessionPathError, match=r"'a2'.*'u2'") as info:
        path_to(entries, "a2")
    assert info.value.entry_id == "a2"


def test_r10_rejects_a_cycle() -> None:
    looped = [
        parse_session_entry(user_wire(id="x", parent="y")),
        parse_session_entry(user_wire(id="y", parent="x")),
    ]
    with pytest.raises(SessionPathError, match="cycle") as info:
        path_to(looped, "x")
    assert info.value.entry_id in {"x", "y"}


def test_r10_a_missing_parent_off_the_chain_does_not_matter() -> None:
    entries = _tree() + [parse_session_entry(user_wire(id="orphan", parent="ghost"))]
    assert [to_json_dict(e)["id"] for e in path_to(entries, "a2")] == ["u1", "a1", "u2", "a2"]
