"""The covering set's session shapes: the chapter's paths, and a cost ladder, under drawn ids and texts.

Several labs' covering sets start from the same shapes: the chapter's opening
path (Labs 11.1, 11.4, the capstone), its path after compact-1 (11.4, the
capstone), and a four-group ladder of costs, plain or resumed twice (11.3,
11.5, the capstone). The shape (which roles, which calls, which group keeps
from where, the order of the costs) is fixed; every id, text and number comes
from the ``Draw``, so no run's paths are another's.
"""

from __future__ import annotations

from typing import Any

from course_lib import fixtures
from course_lib.builders import PathBuilder
from course_lib.models import SessionEntry
from course_lib.parsing import to_json_dict

from .draws import Draw


def wire(path: list[SessionEntry]) -> list[dict[str, Any]]:
    return [to_json_dict(entry) for entry in path]


def opening(draw: Draw) -> PathBuilder:
    """The chapter's opening path's shape: sys, two plain groups, a group with two calls answered out of order."""
    i = draw.id
    return (
        PathBuilder(clock=draw.clock())
        .system(i("sys"), draw.text(2, 5))
        .user(i("u1"), draw.text(2, 6))
        .assistant(i("a1"), draw.text(2, 6))
        .user(i("u2"), draw.text(2, 6))
        .assistant(i("a2"), draw.text(2, 6))
        .user(i("u3"), draw.text(2, 6))
        .assistant(
            i("calls"),
            draw.text(1, 3),
            tool_calls=[(i("read-1"), "read", draw.arguments()), (i("test-1"), "test", draw.arguments())],
        )
        .tool_result(i("r-test"), i("test-1"), "test", draw.text(2, 5))  # the second call's result comes first
        .tool_result(i("r-read"), i("read-1"), "read", draw.text(2, 5))
        .assistant(i("a3"), draw.text(2, 6))
    )


def compaction(draw: Draw, builder: PathBuilder, name: str, keeps_from: str) -> SessionEntry:
    """A compaction at the end of ``builder`` under drawn id, summary and tokensBefore, keeping from ``keeps_from``."""
    return fixtures.compact_1(
        builder.entries,
        id=draw.id(name),
        firstKeptEntryId=draw.id(keeps_from),
        timestamp=builder.clock + 1,
        summary=draw.summary(),
        tokensBefore=draw.between(0, 900),
    )


def resumed(draw: Draw) -> PathBuilder:
    """The chapter's resumed path's shape: the opening path, compact-1 keeping from u2, then u4 and a4."""
    builder = opening(draw)
    builder.add(compaction(draw, builder, "compact-1", "u2"))
    return builder.user(draw.id("u4"), draw.text(2, 6)).assistant(draw.id("a4"), draw.text(2, 6))


def ladder(draw: Draw, builder: PathBuilder) -> PathBuilder:
    """Four groups whose teaching costs are small, large, middling, larger (2–3, 13–22, 4–6, 9–17),
    with tool calls and a patch; the words are drawn, the order of the costs is the shape.

    The cheap oldest group fits where the large one does not, so a selection that
    skips a group to try older ones shows (R19).
    """
    i, w = draw.id, draw.words
    return (
        builder.user(i("u1"), w(1))
        .assistant(i("a1"), w(draw.between(1, 2)))
        .user(i("u2"), w(draw.between(6, 9)))
        .assistant(i("c2"), w(draw.between(2, 4)), tool_calls=[(i("read-1"), draw.tool(), draw.arguments())])
        .tool_result(i("r2"), i("read-1"), "read", w(draw.between(2, 4)))
        .system(i("patch-1"), draw.text(2, 4), sections={"rules": draw.text(1, 3)})
        .assistant(i("a2"), w(draw.between(2, 4)))
        .user(i("u3"), w(draw.between(2, 3)))
        .assistant(i("a3"), w(draw.between(2, 3)))
        .user(i("u4"), w(draw.between(2, 4)))
        .assistant(
            i("c4"),
            w(draw.between(1, 3)),
            tool_calls=[(i("edit-1"), "edit", draw.arguments()), (i("test-1"), "test", draw.arguments())],
        )
        .tool_result(i("r4t"), i("test-1"), "test", w(draw.between(1, 2)))
        .tool_result(i("r4e"), i("edit-1"), "edit", w(draw.between(1, 2)))
        .assistant(i("a4"), w(draw.between(2, 4)))
    )


def plain_path(draw: Draw) -> list[SessionEntry]:
    """The ladder after a system prompt, with no compaction."""
    return ladder(draw, PathBuilder(clock=draw.clock()).system(draw.id("sys"), draw.text(2, 6))).entries


def resumed_path(draw: Draw) -> list[SessionEntry]:
    """Two compactions (only the latest counts), a system patch after it, metadata in the resumed suffix."""
    i = draw.id
    builder = (
        PathBuilder(clock=draw.clock())
        .system(i("sys"), draw.text(2, 6))
        .user(i("u0"), draw.text(1, 4))
        .assistant(i("a0"), draw.text(1, 4))
    )
    builder.add(compaction(draw, builder, "compact-0", "u0"))
    ladder(draw, builder)
    builder.add(compaction(draw, builder, "compact-1", "u1"))
    return (
        builder.system(i("patch-2"), draw.text(1, 4))
        .metadata(i("meta-1"), "label", draw.text(1, 2))
        .user(i("u5"), draw.text(1, 3))
        .assistant(i("a5"), draw.text(1, 3))
        .entries
    )
