"""What a check says, said in the reader's language without trusting the kernel (course_lib/teaching/wording.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from course_lib.errors import CourseError
from course_lib.teaching import i18n, wording
from course_lib.teaching.wording import TemplateError, Wording, render_against, render_known, say

CATALOG = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "kept ids and reason at max_tokens={max_tokens}"
msgstr "max_tokens={max_tokens} 时保留的 id 与原因"

msgid "{what}: reason"
msgstr "{what}：原因"

msgid "the resumed path"
msgstr "恢复后的路径"

msgid "broken {name}"
msgstr "坏的 {other}"

msgid "the check reported an unknown result"
msgstr "检查报告了一个未知的结果"
"""


@pytest.fixture
def chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``wording`` reading a small Chinese catalog."""
    folder = tmp_path / "locale"
    (folder / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    (folder / "zh_CN" / "LC_MESSAGES" / "demo.po").write_text(CATALOG, encoding="utf-8")
    monkeypatch.setattr(wording, "MESSAGES", i18n.Messages("demo", folder))


def test_a_wording_is_its_english_text() -> None:
    text = say("kept ids and reason at max_tokens={max_tokens}", max_tokens=31)
    assert text == "kept ids and reason at max_tokens=31"
    assert isinstance(text, str) and text.template == "kept ids and reason at max_tokens={max_tokens}"
    assert text.to_json() == {"template": text.template, "fields": {"max_tokens": "31"}}


def test_only_plain_fields_are_allowed() -> None:
    for template in ("{bad!r}", "{n:>3}", "{0}", "{entry.id}", "{ids[0]}"):
        with pytest.raises(TemplateError) as raised:
            say(template, bad=1, n=2, entry=3, ids=[4])
        assert isinstance(raised.value, CourseError)
    with pytest.raises(TemplateError, match="no value"):
        say("{missing}")


def test_a_trusted_wording_is_said_in_chinese(chinese: None) -> None:
    text = say("{what}: reason", what=say("the resumed path"))
    assert text == "the resumed path: reason"
    assert wording.translate(text, "zh") == "恢复后的路径：原因"
    assert wording.translate(text, "en") == "the resumed path: reason"
    assert wording.translate(say("kept ids and reason at max_tokens={max_tokens}", max_tokens=9), "zh") == (
        "max_tokens=9 时保留的 id 与原因"
    )


def test_the_kernel_gives_values_never_a_template(chinese: None) -> None:
    trusted = say("kept ids and reason at max_tokens={max_tokens}", max_tokens=31).to_json()
    forged = {"template": "{0.__class__}", "fields": {"max_tokens": "7"}}
    assert render_against(trusted, forged, "zh") == "max_tokens=31 时保留的 id 与原因"
    honest = {"template": trusted["template"], "fields": {"max_tokens": "7" * 500}}
    assert render_against(trusted, honest, "zh") == f"max_tokens={'7' * wording.FIELD_LIMIT} 时保留的 id 与原因"
    not_text = {"template": trusted["template"], "fields": {"max_tokens": {"template": "{x}", "fields": {}}}}
    assert render_against(trusted, not_text, "zh") == "max_tokens=31 时保留的 id 与原因"


def test_a_catalog_with_other_fields_falls_back_to_english(chinese: None) -> None:
    assert wording.translate(say("broken {name}", name="x"), "zh") == "broken x"


def test_what_only_a_learner_run_says_is_said_from_a_known_template(chinese: None) -> None:
    known = {"{what}: reason": "{what}: reason"}
    record = {"template": "{what}: reason", "fields": {"what": "a path"}}
    assert render_known(record, known, "zh") == "a path：原因"
    unknown = "检查报告了一个未知的结果"  # never the kernel's own sentence (issue 43)
    assert render_known({"template": "{what.__init__}", "fields": {}}, known, "zh") == unknown
    assert render_known({"template": "{what}: reason", "fields": {"what": 3}}, known, "zh") == unknown
    assert render_known("检查通过 ✅（3/3）", known, "zh") == unknown
    assert render_known(None, known) == "the check reported an unknown result"


def test_a_wording_survives_a_pickle() -> None:
    import pickle

    text = say("{what}: reason", what=say("the resumed path"))
    again = pickle.loads(pickle.dumps(text))
    assert isinstance(again, Wording) and again == text and again.to_json() == text.to_json()
