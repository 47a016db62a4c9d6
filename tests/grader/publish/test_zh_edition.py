"""``language = "zh"``: the feedback pages, their index, the class report and the score explanations in Chinese (issue 32).

English stays the default and byte for byte what it was (the other publish
tests pin its text); a run's language is the course file's, recorded with its
settings, so ``course-grade feedback`` and ``report`` speak it again later.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from synthetic_class import generated_class, result

from course_grader.cli import app as cli
from course_grader.course.course_file import load_course
from course_grader.publish import report_charts
from course_grader.publish.feedback import write_feedback
from course_grader.publish.feedback_page import render_page
from course_grader.publish.report import build_report
from course_grader.publish.report_grades import read_grades
from course_grader.results.grades_frame import write_csv
from course_grader.results.records import companion, write_records
from course_grader.results.scoring import score
from course_lib.teaching import lab_registry

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def chinese_course(folder: Path, language: str = "zh", extra: str = "") -> Path:
    path = folder / "course.toml"
    path.write_text(f'language = "{language}"\n{extra}', encoding="utf-8")
    return path


def test_a_chinese_page_has_chinese_labels_status_meaning_and_score_line() -> None:
    graded = result("alice", "11.3", {"7": False, "H1": False}, notes=("exercise cell 1: ValueError: x",))
    page = render_page(graded, language="zh")
    assert '<html lang="zh-CN">' in page
    for label in ("<h2>得分</h2>", "<h2>备注</h2>", "<h2>Checklist 测试</h2>", "<h2>隐藏测试</h2>", "<th>测试</th>"):
        assert label in page
    assert "评分状态：<strong>ok</strong>（找到了你的函数，所有测试都已运行）· 评分用时 4.2 秒" in page
    assert re.search(r'<p class="score"><strong>5</strong> / 7 分</p>', page)
    assert "每通过一个测试得 1 分（7 个中通过 5 个）；无迟交规则" in page
    assert page.count('class="status-failed">未通过</td>') == 2 and 'class="status-passed">通过</td>' in page
    # what the learner wrote and what the grader measured stay as they are
    assert "exercise cell 1: ValueError: x" in page and 'class="test failed"' in page and "rules.md#r19" in page


def test_a_status_cell_never_wraps_between_its_characters() -> None:
    """未通过 beside a long message: a table gives a cell its narrowest width, one CJK character (issue 45)."""
    page = render_page(result("alice", "11.3", {"7": False}), language="zh")
    style = page[page.index("<style>") : page.index("</style>")]
    for status in ("passed", "failed"):
        rule = re.search(rf"\.status-{status} \{{([^}}]*)\}}", style)
        assert rule and "white-space: nowrap" in rule.group(1), status
    assert 'class="status-failed">未通过</td>' in page


def test_the_language_is_chosen_per_render_not_per_process() -> None:
    graded = result("alice", "11.2", {"4": False})
    english = render_page(graded)
    assert render_page(graded, language="zh") != english
    assert render_page(graded, language="en") == english == render_page(graded)
    assert '<html lang="en">' in english and not CHINESE.search(english.replace(graded.student, ""))


def test_a_penalty_and_the_index_in_chinese(tmp_path: Path) -> None:
    course = load_course(chinese_course(tmp_path, extra='[late]\nsubmitted = "file-name"\npercent_per_day = 10\n'))
    graded = result("judy", "11.3", {"7": False}, submission="smithjudy_LATE_48213_9981377_lab_11_3.ipynb")
    record = score(graded, course)
    lab = lab_registry.lab("11.3").spoken_label("zh")  # the lab as course_lib names it in Chinese
    assert record.explanation == (
        f"通过 6/7 个测试：6/7 分；此处 {lab} 没有截止时间，但迟交（LMS 的文件名标有 LATE；迟交多久未知）：−10 % = −0.6 → 5.4/7"
    )
    page = render_page(graded, score=record, language="zh")
    assert "<strong>5.4</strong> / 7 分（6 分，扣除罚分 0.6）" in page
    pages = write_feedback([graded], tmp_path / "pages", scorer=lambda r: score(r, course), language="zh")
    index = pages[-1].read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in index and "<h1>反馈页面</h1>" in index and "<th>学生</th>" in index


@pytest.mark.parametrize(
    ("extra", "submission", "says"),
    [
        (
            '[late]\nsubmitted = "file-name"\nflag = "lms"\n[labs."11.3"]\ndeadline = 2026-10-16T23:59:00Z\n',
            "smithjudy_LATE_1_2_lab_11_3.ipynb",
            "迟交（LMS 的文件名标有 LATE）：此处不扣分，由 LMS 自己的迟交规则处理",
        ),
        (
            '[late]\nsubmitted = "file-name"\n[labs."11.3"]\ndeadline = 2026-10-16T23:59:00Z\n'
            '[[extensions]]\nstudent = "judy"\nlab = "11.3"\ndeadline = 2026-10-20T23:59:00Z\nreason = "病假"\n',
            "smithjudy_LATE_1_2_lab_11_3.ipynb",
            "截止时间延长至 2026-10-20T23:59:00+00:00（病假）：LMS 的文件名标有 LATE，但依据的是延期前的截止时间：不扣迟交分",
        ),
        (
            '[[overrides]]\nstudent = "judy"\nlab = "11.3"\nscore = 7\nreason = "申诉"\n',
            "judy/lab_11_3.ipynb",
            "；课程文件将得分设为 7/7（申诉）",
        ),
    ],
)
def test_the_gradebook_notes_on_late_work_extensions_and_overrides_are_chinese(
    tmp_path: Path, extra: str, submission: str, says: str
) -> None:
    graded = result("judy", "11.3", {"7": False}, submission=submission)
    for lang in ("zh", "en"):
        (tmp_path / lang).mkdir()
    chinese, english = (load_course(chinese_course(tmp_path / lang, lang, extra)) for lang in ("zh", "en"))
    said, plain = score(graded, chinese), score(graded, english)
    assert says in said.explanation and not CHINESE.search(plain.explanation.replace("病假", "").replace("申诉", ""))
    assert said.model_dump(exclude={"explanation"}) == plain.model_dump(exclude={"explanation"})


@pytest.mark.slow  # builds a class report twice (about 9 s)
def test_a_chinese_report_has_chinese_headings_and_the_same_numbers(tmp_path: Path) -> None:
    results = generated_class(students=8)
    write_csv(results, tmp_path / "grades.csv")
    grades = read_grades(tmp_path / "grades.csv")
    chinese, english = build_report(grades, results, "grades.csv", "zh"), build_report(grades, results, "grades.csv")
    assert '<html lang="zh-CN">' in chinese and "<h1>班级报告</h1>" in chinese
    for heading in ("每个 lab 的得分分布", "每个测试的难度与区分度", "最常见的失败消息", "相似度（仅报告，不评判）"):
        assert f"<h2>{heading}</h2>" in chinese
    assert '<th class="num">平均 %</th>' in chinese  # a literal percent sign survives the i18n extension's formatting

    def numbers(page: str) -> list[str]:
        return re.findall(r'<td class="num">([^<]*)</td>', re.sub(r'src="data:[^"]*"', "", page))

    assert numbers(chinese) == numbers(english)


@pytest.mark.slow  # draws the report's charts: make test, not make check
def test_the_charts_are_labelled_in_chinese_when_a_font_draws_it(monkeypatch: pytest.MonkeyPatch) -> None:
    grades_frame = generated_class(students=4)
    from course_grader.publish.report_grades import Grades
    from course_grader.results.grades_frame import results_frame

    grades = Grades(results_frame(grades_frame), (), len(grades_frame))
    monkeypatch.setattr(
        report_charts, "chart_fonts", lambda language: ("Noto Sans CJK SC",) if language == "zh" else ()
    )
    assert report_charts.chart_language("zh") == "zh"
    figure = report_charts.distribution_chart(grades, "zh")
    axes = figure.get_axes()
    assert axes[0].get_xlabel() == "通过测试的百分比" and axes[0].get_ylabel() == "提交数"
    assert re.fullmatch(r".*11\.1.*（n=\d+）", axes[0].get_title())  # the lab as course_lib names it in Chinese


def test_a_cjk_font_installed_after_matplotlib_listed_its_fonts_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """matplotlib's cached font list predates the font: the charts still find it on the system (issue 45).

    ``make chart-font`` (``make test`` runs it) installs Debian's fonts-wqy-microhei: a CJK font on disk."""
    from matplotlib import font_manager

    assert Path("/usr/share/fonts/truetype/wqy").is_dir(), "make chart-font installs fonts-wqy-microhei"
    cjk = set(report_charts.FONTS["zh"])
    stale = [font for font in font_manager.fontManager.ttflist if font.name not in cjk]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", stale)  # the list as cached before the font came
    report_charts.chart_fonts.cache_clear()
    try:
        assert "WenQuanYi Micro Hei" in report_charts.chart_fonts("zh") and report_charts.chart_language("zh") == "zh"
    finally:
        report_charts.chart_fonts.cache_clear()


def test_without_a_font_for_chinese_the_charts_stay_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_charts, "chart_fonts", lambda language: ())
    assert report_charts.chart_language("zh") == "en" and report_charts.chart_language("en") == "en"


@pytest.mark.slow  # renders the pages and the report with its charts, in two languages: make test, not make check
def test_feedback_and_report_speak_the_language_the_grades_were_made_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    course = load_course(chinese_course(tmp_path))
    results = [result("alice", "11.3", {"7": False}), result("bob", "11.2", {})]
    csv = tmp_path / "grades.csv"
    write_csv(results, csv, course)
    write_records(results, companion(csv))
    assert cli.main(["feedback", str(companion(csv)), "-o", str(tmp_path / "pages")]) == 0
    page = (tmp_path / "pages" / "alice_lab_11_3.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and "<h2>得分</h2>" in page
    assert cli.main(["report", str(csv), "-o", str(tmp_path / "report.html")]) == 0
    assert "<h1>班级报告</h1>" in (tmp_path / "report.html").read_text(encoding="utf-8")
    capsys.readouterr()
    # the course file now says English: it scores alike (no fingerprint holds the language), so both speak it now
    chinese_course(tmp_path, "en")
    assert cli.main(["feedback", str(companion(csv)), "-o", str(tmp_path / "again")]) == 0
    assert '<html lang="en">' in (tmp_path / "again" / "alice_lab_11_3.html").read_text(encoding="utf-8")
    assert cli.main(["report", str(csv), "-o", str(tmp_path / "english.html")]) == 0
    assert "<h1>Class report</h1>" in (tmp_path / "english.html").read_text(encoding="utf-8")
    # one that scores otherwise is not the grades' file: the report says so and speaks English
    chinese_course(tmp_path, "zh", '[labs."11.3"]\npoints = 20\n')
    capsys.readouterr()
    assert cli.main(["report", str(csv), "-o", str(tmp_path / "changed.html")]) == 0
    assert "the report is in English" in capsys.readouterr().err


@pytest.mark.slow  # grades a folder: make test, not make check
def test_a_graded_folder_is_judged_and_published_in_the_course_files_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from course_grader.cli import grade_batch, grade_single

    folder = tmp_path / "submissions"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "lab_11_3.ipynb").write_text("{}")
    judged_in: list[str] = []

    def grade_folder(target: Path, options: object, **kwargs: object) -> list[object]:
        judged_in.append(options.judging.language)  # type: ignore[attr-defined]
        return [result("alice", "11.3", {"7": False}, submission="alice/lab_11_3.ipynb")]

    monkeypatch.setattr(grade_batch, "grade_folder", grade_folder)
    course = chinese_course(tmp_path)
    out = tmp_path / "grades.csv"
    arguments = ["--course", str(course), "--no-sandbox", "--no-progress", "--feedback", str(tmp_path / "pages")]
    assert cli.main([str(folder), "--out", str(out), *arguments]) == 0
    assert judged_in == ["zh"]
    page = (tmp_path / "pages" / "alice_lab_11_3.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and "通过 6/7 个测试：6/7 分" in page

    def grade_notebook(path: Path, options: object, **kwargs: object) -> object:
        judged_in.append(options.judging.language)  # type: ignore[attr-defined]
        return result("alice", "11.3", {}, submission=path.name)

    monkeypatch.setattr(grade_single, "grade_notebook", grade_notebook)
    notebook = folder / "alice" / "lab_11_3.ipynb"
    single = ["--results", str(tmp_path / "results.json"), "--feedback", str(tmp_path / "one")]
    assert cli.main([str(notebook), "--course", str(course), "--no-sandbox", *single]) == 0
    assert judged_in == ["zh", "zh"]
    assert "<h2>得分</h2>" in (tmp_path / "one" / "alice_lab_11_3.html").read_text(encoding="utf-8")


def test_a_chinese_page_cites_the_rules_in_chinese_and_links_the_chinese_rules_page(tmp_path: Path) -> None:
    """The rules a page cites read as docs/zh/rules.md states them, and link there (issue 32)."""
    from course_grader.judging.citations import rule_text
    from course_grader.publish.feedback import default_rules_base

    assert rule_text("R19", "zh").startswith("只要放得下") and "`tokensBefore`" in rule_text("R4", "zh")
    assert default_rules_base(tmp_path, "zh").endswith("docs/zh/rules.md")
    assert default_rules_base(tmp_path).endswith("docs/rules.md")
