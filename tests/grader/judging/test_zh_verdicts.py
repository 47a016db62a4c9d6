"""A run with ``language = "zh"`` judges exactly as an English one and says it in Chinese (issue 32).

Real submissions (the course's notebooks, edited as a learner would) are graded
in this process (``grading_corpus.grade_in_process``: the harness replies go
through JSON, ``assemble`` judges them); the two runs differ only in their
words. The checklist's own verdicts are ``course_lib``'s messages, passed the
run's language (``judge_record``); the grader's frame around them is its own.
"""

from __future__ import annotations

import copy
import gettext
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat
import pytest
from grading_corpus import CORPUS, grade_in_process, learner, namespace, solution, tagged
from term_secrets import TERM

from course_grader.course.course_file import load_course
from course_grader.judging import cell_replies, diagnose
from course_grader.judging.verdicts import GradeResult
from course_grader.publish.feedback_page import render_page, split_output
from course_grader.publish.report_messages import failure_messages
from course_grader.results.grades_csv import read_frame
from course_grader.results.grades_frame import write_csv
from course_lib.checklist.check import Case
from course_lib.checklist.runner import CheckRecord
from course_lib.teaching import i18n, lab_registry

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def corpus(name: str) -> nbformat.NotebookNode:
    made = next(s for s in CORPUS if s.name == name).make()
    assert not isinstance(made, str)
    return made


def both(lab: str, notebook: nbformat.NotebookNode, **options: object) -> tuple[GradeResult, GradeResult]:
    names = namespace(lab, notebook)
    english = grade_in_process(lab, names, **options)  # type: ignore[arg-type]
    chinese = grade_in_process(lab, names, language="zh", **options)  # type: ignore[arg-type]
    return english, chinese


def judged(result: GradeResult) -> list[tuple[str, float, bool]]:
    return [(test.number, test.score, test.passed) for test in result.tests]


@pytest.fixture(scope="module")
def partly_correct() -> tuple[GradeResult, GradeResult]:
    """Lab 11.3 with R19 broken: checklist tests and hidden tests fail, counterexamples are found."""
    return both("11.3", corpus("partly_correct"))


@pytest.mark.slow  # grades Lab 11.3 in both languages: make test, not make check
def test_the_same_scores_and_statuses_in_both_languages(partly_correct: tuple[GradeResult, GradeResult]) -> None:
    english, chinese = partly_correct
    assert judged(english) == judged(chinese) and english.status == chinese.status
    assert 0 < english.score < english.max_score
    # the hidden tests' words are the grader's own; the checklist's are course_lib's (its catalog translates them)
    hidden = [(e.output, c.output) for e, c in zip(english.tests, chinese.tests) if e.hidden]
    assert hidden and all(e != c for e, c in hidden)


@pytest.mark.slow  # grades Lab 11.3 in both languages: make test, not make check
def test_a_failed_hidden_test_says_its_frame_and_counterexample_in_chinese(
    partly_correct: tuple[GradeResult, GradeResult],
) -> None:
    chinese = partly_correct[1]
    hidden = next(test for test in chinese.tests if test.hidden and not test.passed)
    message, counterexample = split_output(hidden.output, "zh")
    assert re.match(r"R19 R20：.*。在 \d+ 个生成用例中有 \d+ 个未通过；首个失败用例：", message)
    assert counterexample.startswith("反例（一个练习用例，不计分）：")
    assert re.search(r"^  .*：预期 .*，实际 ", counterexample, re.M)  # where the learner's result first differs
    passed = next(test for test in chinese.tests if test.hidden and test.passed)
    assert re.fullmatch(r"在 \d+ 个生成用例上通过", passed.output)
    page = render_page(chinese, language="zh")
    assert '<pre class="counterexample">反例（一个练习用例，不计分）' in page
    # the report folds the case away in Chinese too, keeping the reason
    row = next(
        row for row in failure_messages([chinese], language="zh") if row.test == f"{hidden.number} {hidden.name}"
    )
    assert "；首个失败：" in row.message and "session of" not in row.message


@pytest.mark.slow  # grades Lab 11.3 in both languages: make test, not make check
def test_the_grades_rows_are_identical_but_for_the_messages(
    tmp_path: Path, partly_correct: tuple[GradeResult, GradeResult]
) -> None:
    (tmp_path / "zh").mkdir()
    (tmp_path / "en").mkdir()
    (tmp_path / "zh" / "course.toml").write_text('language = "zh"\n[labs."11.3"]\npoints = 10\n', encoding="utf-8")
    (tmp_path / "en" / "course.toml").write_text('[labs."11.3"]\npoints = 10\n', encoding="utf-8")
    frames = []
    for result, language in zip(partly_correct, ("en", "zh")):
        course = load_course(tmp_path / language / "course.toml")
        noted = result.model_copy(update={"notes": (*result.notes, "a note"), "execution_time": 4.0})
        write_csv([noted], tmp_path / f"{language}.csv", course)
        frames.append(read_frame(tmp_path / f"{language}.csv"))
    english, chinese = frames
    assert list(english.columns) == list(chinese.columns)
    messages = {"notes", "course"}  # the notes are said in the run's language; the course file is another one
    same = [column for column in english.columns if column not in messages]
    assert english[same].equals(chinese[same])
    assert english["course"][0] != chinese["course"][0]


def test_the_checklist_is_judged_in_the_runs_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """``judge_record`` gets the run's language; what the checklist says (a stub's verdict) comes in the grader's frame."""
    spoken: list[str | None] = []
    real = cell_replies.judge_record

    def spy(case: Case, record: Mapping[str, Any], chosen: str | None = None) -> CheckRecord:
        spoken.append(chosen)
        return real(case, record, chosen)

    monkeypatch.setattr(cell_replies, "judge_record", spy)
    english, chinese = both("11.2", learner("11.2"), counterexamples=False)
    assert spoken and set(spoken) == {"en", "zh"} and spoken.count("zh") == spoken.count("en")
    assert judged(english) == judged(chinese) and english.score == 0
    checklist = next(test for test in chinese.tests if not test.hidden)
    # the stub's own sentence, in Chinese, saying "not implemented yet" once (the grader adds no frame around it)
    assert checklist.output == lab_registry.spoken_stub(english.tests[0].output, "zh")
    assert checklist.output.count("尚未实现") == 1 and english.tests[0].output.count("not implemented yet") == 1
    stub = next(test for test in chinese.tests if test.hidden)
    assert stub.output == checklist.output  # a hidden test meets the same stub and says it the same way


def test_the_notes_on_missing_functions_and_time_outs_are_chinese() -> None:
    notebook = copy.deepcopy(solution("11.1"))
    for cell in notebook.cells:
        cell.metadata["tags"] = [tag for tag in cell.metadata.get("tags", []) if tag != "exercise"]
    notes = diagnose.explain(notebook, [], ["parse_session_entry"], {"parse_session_entry": False}, [], language="zh")
    assert notes[0].startswith("没有单元格带有 `exercise` 标签：")
    assert any(re.match(r"`parse_session_entry` 定义在未加标签的第 \d+ 个单元格", note) for note in notes)
    assert all(CHINESE.search(note) for note in notes)
    english = diagnose.explain(notebook, [], ["parse_session_entry"], {"parse_session_entry": False}, [])
    assert len(english) == len(notes) and not any(CHINESE.search(note) for note in english)
    from course_grader.sandbox.cell_run import CellRun

    timed_out = diagnose.exercise_notes([CellRun("timeout")], CellRun("ok"), 10, "zh")
    assert timed_out == ["练习单元格 1 运行超过 10 秒并被中断；它在此之前定义的函数已被评分"]


def test_a_definition_inside_a_block_is_named_in_chinese() -> None:
    notebook = copy.deepcopy(solution("11.4"))
    cell = tagged(notebook, "exercise")[0]
    cell.source = "if False:\n" + "\n".join(f"    {line}" for line in cell.source.splitlines())
    from course_grader.sandbox.cell_run import CellRun

    notes = diagnose.where_defined(["create_compaction_entry"], diagnose.code_cells(notebook), [CellRun("ok")], "zh")
    assert len(notes) == 1 and "的一个 `if` 块中" in notes[0] and "请在单元格的顶层定义它" in notes[0]


class MarkedChinese(gettext.NullTranslations):
    """A stand-in for course_lib's Chinese catalog (translated elsewhere): every message marked, its fields kept."""

    def gettext(self, message: str) -> str:
        return f"〔中〕{message}"


@pytest.mark.slow  # grades Lab 11.3 in both languages: make test, not make check
def test_a_checklist_verdict_reads_as_course_libs_catalog_says_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checklist's verdicts on the page are course_lib's messages in the run's language, through its catalog."""
    real = i18n.translations

    def translations(folder: Path, domain: str, chosen: str) -> gettext.NullTranslations:
        return MarkedChinese() if domain == "course_lib" and chosen == "zh" else real(folder, domain, chosen)

    monkeypatch.setattr(i18n, "translations", translations)
    english, chinese = both("11.3", corpus("partly_correct"), counterexamples=False)
    failed = [(e, c) for e, c in zip(english.tests, chinese.tests) if not e.hidden and not e.passed]
    assert failed and all("〔中〕" in c.output and "〔中〕" not in e.output for e, c in failed)
    number = failed[0][1].number
    page = render_page(chinese, language="zh")
    row = re.search(rf'<tr class="test failed">\s*<td>{number}</td>(.*?)</tr>', page, re.S)
    assert row and '<pre class="message">' in row.group(1) and "〔中〕" in row.group(1)


@pytest.mark.slow  # two batches in real kernels (no sandbox): make test runs it, make check does not
def test_a_chinese_batch_grades_as_the_english_one(tmp_path: Path) -> None:
    """Whole runs in kernels: the same rows but for the words, a Chinese page and a Chinese report."""
    from course_grader.cli import app as cli

    folder = tmp_path / "submissions"
    for name in ("partly_correct", "untouched_stub"):
        submission = next(s for s in CORPUS if s.name == name)
        (folder / name).mkdir(parents=True)
        submission.write(folder / name)
    frames = []
    for language in ("en", "zh"):
        course = tmp_path / language / "course.toml"
        course.parent.mkdir()
        course.write_text(f'seed = "{TERM}"\nlanguage = "{language}"\n', encoding="utf-8")
        out = tmp_path / language / "grades.csv"
        pages = tmp_path / language / "pages"
        arguments = ["--course", str(course), "--out", str(out), "--feedback", str(pages), "--no-progress"]
        assert cli.main([str(folder), *arguments, "--no-sandbox"]) == 0
        frames.append(read_frame(out))
    assert cli.main(["report", str(tmp_path / "zh" / "grades.csv"), "-o", str(tmp_path / "zh" / "report.html")]) == 0
    english, chinese = frames
    same = [column for column in english.columns if column not in ("notes", "course", "seconds")]
    assert english[same].equals(chinese[same])
    assert set(english["status"]) == {"ok"} and english["total"].tolist() != [0, 0]
    page = next((tmp_path / "zh" / "pages").glob("partly_correct*_lab_11_3.html")).read_text(encoding="utf-8")
    assert "<h2>得分</h2>" in page and "个生成用例中有" in page and "找到了你的函数" in page
    stub = next((tmp_path / "zh" / "pages").glob("untouched_stub*_lab_11_2.html")).read_text(encoding="utf-8")
    assert "尚未实现：" in stub
    assert "<h1>班级报告</h1>" in (tmp_path / "zh" / "report.html").read_text(encoding="utf-8")


KEPT_IN_CHINESE = re.compile(
    r"'[^']*'|\"[^\"]*\"|\b\w+(?:[-_.]\w+)+\b|\b\w+=\S+|\b[RLM]\d+\b|"  # values, ids, code, rule ids
    r"\b(?:session|entry|entries|tool call|tool result|system message|user message|assistant message|message entry|"
    r"compaction entry|metadata entry|compaction|compactedEntryIds|decisions|unresolved|summary|"  # the glossary's
    r"user|assistant|system|toolResult|metadata|message|id|enabled|True|False|nan|inf|None|"  # values the wire has
    r"teaching|touching|marked|negative|infinite|bool|text|length|stop|aborted|error|taken|context_tokens|"
    r"max_attempts|max_tokens|tokens_before|keep_recent_tokens|toolCallId|content|type|timestamp|parentId|"
    r"firstKeptEntryId|tokensBefore|details|readFiles|modifiedFiles|files|nextSteps|invariants|thinking|"
    r"toolCall|text|name|arguments|role|usage|ValueError|float|int|str|list|dict|NaN|Infinity|chars|token|"
    r"goal|constraints|next|completed|call|result)\b"  # a summary's lists, and course_lib's own catalog's words
)


def test_every_hidden_cases_description_reads_in_chinese() -> None:
    """A failed hidden test names its first case: in a Chinese run, in Chinese (issue 45), ids and values kept."""
    from course_grader.judging.hidden import described
    from course_grader.judging.hidden_cases import hidden_tests

    left: dict[str, list[str]] = {}
    for lab in lab_registry.LABS.values():
        for test in hidden_tests(lab, TERM):
            for call in test.calls:
                said = described(call.description, "zh")
                assert described(call.description) == call.description
                words = re.findall(r"\b[A-Za-z]{2,}\b", KEPT_IN_CHINESE.sub(" ", said))
                if words:
                    left[said] = words
    assert not left, list(left.items())[:10]
