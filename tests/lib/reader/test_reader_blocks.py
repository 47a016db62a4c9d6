"""A session file read in blocks (``course_lib.reader.blocks``) gives what reading it whole gives: the lines of
``bytes.split``, the committed bytes' sha256, and the sha256 an index is checked with only when its size ends a
line (R8, R9)."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.reader import blocks


@settings(max_examples=examples(400), deadline=None)
@given(
    data=st.binary(max_size=40).map(lambda raw: bytes(b"\nab"[byte % 3] for byte in raw)),
    mark=st.integers(min_value=0, max_value=44),
    block=st.integers(min_value=1, max_value=9),
)
def test_any_file_in_any_blocks_reads_as_a_whole_read(data: bytes, mark: int, block: int) -> None:
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        path = Path(folder) / "session.jsonl"
        path.write_bytes(data)
        patch.setattr(blocks, "BLOCK", block)
        read = blocks.file_lines(path, mark)
    committed = len(data) - len(data.split(b"\n")[-1])
    assert read.lines == data.split(b"\n") and (read.size, read.committed) == (len(data), committed)
    assert read.committed_sha256 == hashlib.sha256(data[:committed]).hexdigest()
    ends_a_line = mark == 0 or (mark <= committed and data[mark - 1 : mark] == b"\n")
    if ends_a_line:
        assert read.marked_sha256 == hashlib.sha256(data[:mark]).hexdigest()
        assert read.marked_lines == data.count(b"\n", 0, mark)
    else:
        assert read.marked_sha256 is None  # an index naming this size is never used


def test_bytes_in_memory_are_split_and_never_hashed() -> None:
    read = blocks.memory_lines(b'{"a": 1}\n\n{"b"')
    assert read.lines == [b'{"a": 1}', b"", b'{"b"'] and read.committed == 10
    assert read.committed_sha256 is None and read.marked_sha256 is None
