"""The grader's notes in Chinese (issue 45): written in English for the record, said in the page's language.

A note is the instructor's record (the grades CSV, merge, rescore read it), so it
is written in English; a page says it again in its language by reading it back
against the note templates (``course_grader/notes.py``). Every template reads
back its own note, and the term's class graded in Chinese (kernel-free, as
``tests/grader/results/test_term.py`` grades it) gets pages with no English
sentence but names, ids, files, rule ids and values.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from course_grader.messages import MESSAGES
from course_grader.notes import NOTE, NoteTemplateError, Template
from course_grader.publish import feedback_page
from course_grader.results.duplicates import Candidate, duplicate_verdicts

CHINESE = re.compile(r"[\u4e00-\u9fff]")
KEPT = [
    r"https?://\S+",
    r"'[^']*'|\"[^\"]*\"",  # a quoted name or file, as the LMS gave it
    r"\S+\.(?:ipynb|csv|json|html|toml|py)\b",  # a file
    r"\[\[\w+\]\]|\[late\] \w+|\?include\[\]=\w+",  # the course file's keys, Canvas's query
    r"\b\d{4}-\d\d-\d\d[ T][\d:.+]+(?: UTC)?",  # a time
    r"\b(?:Lab \d+\.\d+|LMS|Canvas|Moodle|JSON|notebook|lab|checklist|token|ok|student|counts|reason|id)\b",
    r"\b[A-Za-z]+(?:[_\-.:@]\w+)+\b",  # an id, a login, an email
    r"\b[RL]\d+\b",  # a rule id
]
ENGLISH_WORD = re.compile(r"\b[A-Za-z]{2,}\b")
"""A Latin-script word left once names, ids, files, rule ids and values are taken out: English where none belongs."""


def english_left(text: str, names: tuple[str, ...] = ()) -> list[str]:
    """The Latin-script words ``text`` holds besides what stays as it is (``KEPT``) and the people's ``names``."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    for kept in KEPT:
        text = re.sub(kept, " ", text)
    return ENGLISH_WORD.findall(text)


def test_every_template_reads_back_its_own_note_and_says_it_in_chinese() -> None:
    assert NOTE.made, "no note template was made"
    for template in NOTE.made:
        fields = {name: f"x{index}" for index, name in enumerate(template.pattern.groupindex)}
        note = template(**fields)
        said = NOTE.said(note, "zh")
        assert said == MESSAGES(template.text, "zh").format(**fields), template.text
        assert CHINESE.search(said) or not CHINESE.search(MESSAGES(template.text, "zh")), template.text
        assert NOTE.said(note) == note == NOTE.said(note, "en")


def test_a_page_knows_every_module_that_writes_a_note() -> None:
    """A note is read back by the templates of the modules a page imports: every module making one is among them."""
    import sys

    root = Path(feedback_page.__file__).resolve().parents[1]
    writing = {
        ".".join(path.relative_to(root.parent).with_suffix("").parts)
        for path in root.rglob("*.py")
        if "NOTE(" in path.read_text(encoding="utf-8") and path.name != "notes.py"
    }
    assert writing and writing <= set(sys.modules), sorted(writing - set(sys.modules))


def test_a_template_field_is_named_and_plain() -> None:
    for text in ("{} counts", "{score:g} points"):
        with pytest.raises(NoteTemplateError):
            Template(text)


def test_duplicate_tie_and_conflict_notes_read_whole_in_chinese() -> None:
    at = "2026-10-17T21:40:00.000000+00:00"
    candidates = [
        Candidate("ana", "11.3", "ana/a.ipynb", at, "moodle-worksheet", 3.0),
        Candidate("ana", "11.3", "ana/b.ipynb", at, "moodle-worksheet", 4.0),
        Candidate("sofia", "11.2", "sofia/own.ipynb", at, "canvas-submissions", 2.0, "11.2"),
        Candidate("sofia", "11.2", "sofia/late.ipynb", at, "canvas-submissions", 4.0, "11.3"),
        Candidate("bo", "capstone", "bo/x.ipynb", at, "", 1.0),
        Candidate("bo", "capstone", "bo/y.ipynb", "2026-10-18T09:00:00.000000+00:00", "", 1.0),
    ]
    notes = [note for _, note in duplicate_verdicts(candidates).values()]
    assert any("; tie: " in note for note in notes) and any("; conflict: " in note for note in notes)
    for note in notes:
        said = NOTE.said(note, "zh")
        assert said.startswith("重复提交：") and not english_left(said, ("ana", "sofia", "bo")), said
    tie = NOTE.said(next(note for note in notes if "; tie: " in note), "zh")
    assert "平局：2 个文件的时间相同（提交于 2026-10-17 21:40:00 UTC，据 Moodle 评分工作表）" in tie
    capstone = NOTE.said(next(note for note in notes if note.startswith("duplicate: bo")), "zh")
    assert "综合练习" in capstone


def test_a_note_no_template_wrote_is_shown_as_written() -> None:
    assert NOTE.said("exercise cell 1: ValueError: x", "zh") == "exercise cell 1: ValueError: x"


@pytest.mark.slow  # 55 notebooks written and graded without kernels, their pages rendered: a minute or more
def test_the_term_graded_in_chinese_has_no_english_sentence_but_names_ids_files_and_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import term_class

    from course_grader.cli import app as cli

    term = term_class.build(tmp_path / "term")
    course = term.course.read_text(encoding="utf-8")
    term.course.write_text(f'language = "zh"\n{course}', encoding="utf-8")
    term_class.grading_without_kernels(monkeypatch)
    monkeypatch.chdir(term.folder)
    pages = term.folder / "feedback"
    arguments = [term.submissions, "--course", term.course, "--out", "grades.csv", "--feedback", pages]
    assert cli.main([*map(str, arguments), "-j", "1", "--no-progress", "--no-sandbox"]) == 0
    capsys.readouterr()
    ids = {row["student"].split(":")[-1] for row in term_class.table(term.folder / "grades.csv")}
    names = (*ids, *(f"{first} {last}" for first, last in [*term_class.NAMES, *term_class.CASES]))
    left = {}
    for page in sorted(pages.glob("*.html")):
        notes = re.search(r'<ul class="notes">(.*?)</ul>', page.read_text(encoding="utf-8"), re.S)
        text = html.unescape(re.sub(r"<[^>]+>", " ", notes.group(1))) if notes else ""
        if found := english_left(text, names):
            left[page.name] = found
    assert not left, left
    said = " ".join(p.read_text(encoding="utf-8") for p in pages.glob("*.html"))
    for chinese in ("重复提交：", "冲突：", "已评分，但名册上没有学生得到这个成绩", "指名册上的 2 名学生"):
        assert chinese in said, chinese
