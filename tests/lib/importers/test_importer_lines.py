"""The shared JSONL reader: which damage is skipped and reported, and which stops the import with its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course_lib.importers import SessionImportError, Skip
from course_lib.importers.lines import read_json_lines
from course_lib.importers.summary import summary_from_text


def _read(tmp_path: Path, data: bytes) -> tuple[list[tuple[int, dict]], list[Skip]]:
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    read = read_json_lines(path)
    return [(r.line, r.value) for r in read.records], read.skipped


def test_two_objects_on_one_line_are_split_and_keep_the_line_number(tmp_path: Path) -> None:
    records, skipped = _read(tmp_path, b'{"a": 1}\n{"b": 2}{"c": 3} {"d": [4]}\n\n{"e": 5}\n')
    assert records == [(1, {"a": 1}), (2, {"b": 2}), (2, {"c": 3}), (2, {"d": [4]}), (4, {"e": 5})]
    assert skipped == []


def test_a_truncated_final_line_is_a_skip_with_a_reason(tmp_path: Path) -> None:
    records, skipped = _read(tmp_path, b'{"a": 1}\n{"b": "cut of')
    assert records == [(1, {"a": 1})]
    assert [s.line for s in skipped] == [2] and skipped[0].reason.startswith("truncated final line")


def test_a_complete_final_line_without_newline_is_read(tmp_path: Path) -> None:
    records, _ = _read(tmp_path, b'{"a": 1}\n{"b": 2}')
    assert records == [(1, {"a": 1}), (2, {"b": 2})]


TRICKY_BUT_VALID = [
    rb'{"big": 123456789012345678901234567890, "neg": -0.0, "exp": 1e400, "f": 0.1}',
    rb'{"escaped": "tab\tquote\" \u00e9 \ud83d\ude00", "nested": [{"a": [null, true]}]}',
    rb'{"twice": 1, "twice": 2}',
    rb'  {"padded": 1}  ',
    rb'{"lone": "\ud800"}',
    '{"utf8": "é ✓"}'.encode(),
]


@pytest.mark.parametrize("line", TRICKY_BUT_VALID)
def test_every_line_is_read_as_the_stdlib_reads_it(tmp_path: Path, line: bytes) -> None:
    """The fast path (jiter, straight from bytes) and the stdlib agree, or the stdlib decides."""
    records, skipped = _read(tmp_path, line + b"\n")
    assert records == [(1, json.loads(line.decode("utf-8")))] and skipped == []


def test_a_json_value_that_is_not_an_object_is_skipped(tmp_path: Path) -> None:
    records, skipped = _read(tmp_path, b'[1, 2]\n{"a": 1}\n')
    assert records == [(2, {"a": 1})]
    assert skipped == [Skip(1, "a JSON list, not an object")]


@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        (b'{"a": 1}\ngarbage here\n{"b": 2}\n', 2, "not valid JSON"),
        (b'{"a": 1}\n{"b": 2} trailing\n', 2, "not valid JSON"),
        (b'{"a": 1}\n{"b": NaN}\n', 2, "NaN is not a finite JSON number"),
        (b'{"a": 1}\n\n{"b": "\xff"}\n', 3, "not UTF-8"),
    ],
)
def test_damage_in_the_middle_stops_the_import_naming_the_line(
    tmp_path: Path, data: bytes, line: int, words: str
) -> None:
    with pytest.raises(SessionImportError, match=words) as error:
        _read(tmp_path, data)
    assert error.value.line == line
    assert str(error.value).startswith(f"line {line}: ")


def test_a_free_text_summary_keeps_every_line_in_the_seven_fields() -> None:
    text = "Continue the tail work.\n- read store.py\n\n## Next Steps\n1. add the warning\n## Notes\n- (none)\n- keep it small"
    summary = summary_from_text(text)
    assert summary.goal == "Continue the tail work."
    assert summary.completed == ("read store.py", "Notes: keep it small")
    assert summary.next == ("add the warning",)
    assert summary_from_text("").goal == "(summary without text)"
