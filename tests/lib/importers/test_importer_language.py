"""What an import reports, in the reader's language (issue 45): every skipped line's reason and every note of every
shipped sample is a Chinese sentence in Chinese, quoting the log's own names and values as they are."""

from __future__ import annotations

import re

import pytest

from course_lib.importers import FORMATS, load_session, sample_path

HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_reason_and_note_of_a_sample_is_chinese_in_chinese(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSE_LANG", "zh")
    session = load_session(sample_path(fmt))  # type: ignore[arg-type]  # a Format, as FORMATS holds
    said = [skip.reason for skip in session.skipped] + [note.text for note in session.notes]
    assert said, f"the {fmt} sample skips and changes nothing: nothing tested"
    assert [text for text in said if not HAN.search(text)] == []
