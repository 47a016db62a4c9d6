"""A language per section, and pages said again in another language without regrading (issue 45).

The course file's ``language`` stays every student's default; ``[sections."Section B"]
language = "zh"`` gives the students of one roster section their own, so one grading
run writes Chinese pages for them and English ones for the rest. What the pages speak
scores nothing, so no fingerprint holds it: ``course-grade feedback --course
course-zh.toml`` says a term's pages again in Chinese, and a course file that would
score otherwise is still refused.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from synthetic_class import result

from course_grader.cli import app as cli
from course_grader.course.course_file import load_course
from course_grader.course.course_settings import CourseFileError
from course_grader.intake.roster import RosterError, load_roster
from course_grader.judging.judging_settings import JudgingSettings
from course_grader.results.grades_frame import write_csv
from course_grader.results.records import companion, write_records
from course_grader.results.scoring import score

ROSTER = "id,name,email,aliases,section\nalice,Alice Ng,,,Section A\nbo,Bo Chen,,,Section B\n"
SECTIONS = '[sections."Section B"]\nlanguage = "zh_CN"\n'


def course_file(folder: Path, text: str, name: str = "course.toml") -> Path:
    (folder / "roster.csv").write_text(ROSTER, encoding="utf-8")
    path = folder / name
    path.write_text(f'roster = "roster.csv"\n{text}', encoding="utf-8")
    return path


def test_a_section_speaks_its_own_language_and_every_other_student_the_courses(tmp_path: Path) -> None:
    course = load_course(course_file(tmp_path, f'[late]\nsubmitted = "file-name"\npercent_per_day = 10\n{SECTIONS}'))
    assert course.settings.sections["Section B"].language == "zh"  # read as the course names it
    speaking = course.speaking(load_roster(tmp_path / "roster.csv"))
    assert [speaking.language_of(student) for student in ("alice", "bo", "nobody")] == ["en", "zh", "en"]
    english = score(result("alice", "11.3", {"7": False}, submission="ng_LATE_1_2_lab_11_3.ipynb"), speaking)
    chinese = score(result("bo", "11.3", {"7": False}, submission="chen_LATE_1_3_lab_11_3.ipynb"), speaking)
    assert english.explanation.startswith("6/7 tests passed") and chinese.explanation.startswith("通过 6/7 个测试")
    judging = JudgingSettings(language="en", languages=(("bo", "zh"),))
    assert judging.for_student("bo").language == "zh" and judging.for_student("alice") is judging


def test_a_submission_is_judged_in_its_students_language(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """grade_notebook judges a file once it knows whose it is: in that student's language (their section's)."""
    from types import SimpleNamespace

    from course_grader.judging import grade
    from course_grader.judging.grade_options import GradeOptions
    from course_lib.teaching import lab_registry

    judged: list[str] = []
    lab = lab_registry.lab("11.3")
    submission = SimpleNamespace(lab=lab, notebook={}, notes=(), exercise_sources=())
    monkeypatch.setattr(grade, "read_submission", lambda path, expected_lab=None: submission)
    monkeypatch.setattr(grade, "find_template", lambda lab, labs_dir: None)
    monkeypatch.setattr(grade, "setup_sources", lambda template: ())
    monkeypatch.setattr(grade, "run_notebook", lambda *args: None)

    def assemble(path: Path, who: str, source: str, lab: object, run: object, started: float, options: GradeOptions,
                 notebook: object) -> object:  # fmt: skip
        judged.append(options.judging.language)
        return result(who, "11.3", {})

    monkeypatch.setattr(grade, "assemble", assemble)
    options = GradeOptions(judging=JudgingSettings(language="en", languages=(("bo", "zh"),)))
    for student in ("alice", "bo"):
        grade.grade_notebook(tmp_path / "lab_11_3.ipynb", options, student=student)
    assert judged == ["en", "zh"]


def test_a_roster_rows_language_is_over_its_sections(tmp_path: Path) -> None:
    """The pack's roster may give one student a language of their own (its ``language`` column)."""
    course = load_course(course_file(tmp_path, SECTIONS))
    (tmp_path / "roster.csv").write_text(
        f"{ROSTER.splitlines()[0]},language\nalice,Alice Ng,,,Section A,zh-Hans\nbo,Bo Chen,,,Section B,en\n",
        encoding="utf-8",
    )
    speaking = course.speaking(load_roster(tmp_path / "roster.csv"))
    assert (speaking.language_of("alice"), speaking.language_of("bo")) == ("zh", "en")
    (tmp_path / "roster.csv").write_text("id,language\nalice,fr\n", encoding="utf-8")
    with pytest.raises(RosterError, match=r"roster\.csv, line 2: column language: unknown language 'fr'"):
        load_roster(tmp_path / "roster.csv")


def test_a_sections_unknown_language_is_refused_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(CourseFileError, match=r"key sections\.Section B\.language: .*unknown language 'fr'"):
        load_course(course_file(tmp_path, '[sections."Section B"]\nlanguage = "fr"\n'))


def test_what_the_pages_say_is_in_no_fingerprint(tmp_path: Path) -> None:
    """The fingerprint holds what scores a row; a grade stamped by issue 32's grader (its language in the hash) is
    still this file's."""
    plain = load_course(course_file(tmp_path, '[labs."11.3"]\npoints = 10\n', "plain.toml"))
    spoken = load_course(course_file(tmp_path, 'language = "zh"\n[labs."11.3"]\npoints = 10\n' + SECTIONS, "zh.toml"))
    other = load_course(course_file(tmp_path, '[labs."11.3"]\npoints = 12\n', "other.toml"))
    assert plain.fingerprint == spoken.fingerprint != other.fingerprint
    assert spoken.fingerprints_before and spoken.fingerprints_before[0] != spoken.fingerprint
    assert spoken.scored(spoken.fingerprints_before[0]) and not other.scored(spoken.fingerprints_before[0])


def graded_term(folder: Path, text: str) -> Path:
    """An English term's grades and records, scored by the course file ``text``: the records' path."""
    course = load_course(course_file(folder, text))
    results = [result("alice", "11.3", {"7": False}), result("bo", "11.2", {"4": False})]
    csv = folder / "grades.csv"
    write_csv(results, csv, course)
    write_records(results, companion(csv))
    return companion(csv)


def test_feedback_says_a_term_again_in_another_language_without_regrading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = graded_term(tmp_path, '[labs."11.3"]\npoints = 14\n')
    chinese = course_file(tmp_path, 'language = "zh"\n[labs."11.3"]\npoints = 14\n', "course-zh.toml")
    assert cli.main(["feedback", str(records), "-o", str(tmp_path / "zh"), "--course", str(chinese)]) == 0
    page = (tmp_path / "zh" / "alice_lab_11_3.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and re.search(r"<strong>12</strong> / 14 分", page)
    sections = course_file(tmp_path, f'[labs."11.3"]\npoints = 14\n{SECTIONS}', "course-sections.toml")
    assert cli.main(["feedback", str(records), "-o", str(tmp_path / "mixed"), "--course", str(sections)]) == 0
    assert '<html lang="en">' in (tmp_path / "mixed" / "alice_lab_11_3.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in (tmp_path / "mixed" / "bo_lab_11_2.html").read_text(encoding="utf-8")
    capsys.readouterr()
    rescored = course_file(tmp_path, 'language = "zh"\n[labs."11.3"]\npoints = 10\n', "course-rescored.toml")
    with pytest.raises(SystemExit):
        cli.main(["feedback", str(records), "-o", str(tmp_path / "no"), "--course", str(rescored)])
    said = capsys.readouterr().err
    assert "in what scores them, not only in what the pages say (language, [sections])" in said, said
    assert not (tmp_path / "no").exists()


@pytest.mark.slow  # 55 notebooks written and graded without kernels, their pages rendered: about ten seconds
def test_one_grading_run_gives_one_section_chinese_pages_and_the_other_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import term_class

    term = term_class.build(tmp_path / "term")
    text = term.course.read_text(encoding="utf-8")
    term.course.write_text(f'{text}\n[sections."Section B"]\nlanguage = "zh"\n', encoding="utf-8")
    term_class.grading_without_kernels(monkeypatch)
    monkeypatch.chdir(term.folder)
    pages = term.folder / "feedback"
    arguments = [term.submissions, "--course", term.course, "--out", "grades.csv", "--feedback", pages]
    assert cli.main([*map(str, arguments), "-j", "1", "--no-progress", "--no-sandbox"]) == 0
    capsys.readouterr()
    roster = load_roster(term.folder / term_class.ROSTER)
    section = {student.id: student.section for student in roster.students}
    assert set(section.values()) == {"Section A", "Section B"}
    spoken: dict[str, set[tuple[str, str]]] = {"Section A": set(), "Section B": set()}
    for page in pages.glob("*_*.html"):
        student = next((s for s in sorted(section, key=len, reverse=True) if page.name.startswith(f"{s}_")), None)
        if student is not None:
            text = page.read_text(encoding="utf-8")
            lang = re.search(r'<html lang="([^"]+)">', text)
            explained = "zh" if "个测试" in text else "en" if "tests passed" in text else "?"
            spoken[section[student]].add((lang.group(1) if lang else "?", explained))
    assert spoken == {"Section A": {("en", "en")}, "Section B": {("zh-CN", "zh")}}, spoken
