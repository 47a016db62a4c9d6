"""The class report (``course-grade report``): its numbers on a class small enough to check by hand, and its page."""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from synthetic_class import generated_class, lab_tests, result

from course_grader.cli import app as cli
from course_grader.judging.verdicts import GradeResult
from course_grader.publish.report import build_report
from course_grader.publish.report_grades import read_grades
from course_grader.publish.report_messages import failure_messages, folded
from course_grader.publish.report_statistics import item_stats, point_biserial, rule_matrix, rule_shares
from course_grader.results.grades_frame import write_csv
from course_grader.results.records import companion, write_records
from course_lib.teaching import lab_registry

# Lab 11.2's tests: 4 (R11 R13), 5 (R12 R13 R14), 6 (R11 R12), H1 (R11 R13 R14), H2 (R11 R12).
TINY = {
    "s1": {},
    "s2": {"4": False},
    "s3": {"4": False, "5": False},
    "s4": {"4": False, "5": False, "6": False, "H1": False},
}


def tiny_class(tmp_path: Path) -> tuple[Path, list[GradeResult]]:
    results = [result(student, "11.2", failed) for student, failed in TINY.items()]
    results.append(result("s4", "11.2", {}, submission="s4/old.ipynb", counts=False))  # a duplicate that does not count
    path = tmp_path / "grades.csv"
    write_csv(results, path)
    write_records(results, companion(path))
    return path, results


def test_difficulty_and_discrimination_by_hand(tmp_path: Path) -> None:
    assert [number for number, *_ in lab_tests("11.2")] == ["4", "5", "6", "H1", "H2"]
    path, _ = tiny_class(tmp_path)
    stats = {item.test.number: item for item in item_stats(read_grades(path))}
    assert {number: item.submissions for number, item in stats.items()} == dict.fromkeys(stats, 4)
    # Test 4: passed by s1 only; the rest scores are 4, 4, 3, 1 (totals 5, 4, 3, 1 minus the test).
    assert stats["4"].difficulty == 0.25
    assert stats["4"].discrimination == pytest.approx(1 / math.sqrt(4.5))  # Σdxdy = 1, Σdx² = 0.75, Σdy² = 6
    # Test 5: passed by s1, s2; rest 4, 3, 3, 1.
    assert stats["5"].difficulty == 0.5
    assert stats["5"].discrimination == pytest.approx(1.5 / math.sqrt(4.75))
    # H2: everyone passes, so r is undefined.
    assert stats["H2"].difficulty == 1.0 and math.isnan(stats["H2"].discrimination)


def test_point_biserial_is_pearsons_r_and_undefined_without_variance() -> None:
    assert point_biserial([1, 1, 0, 0], [3, 3, 1, 1]) == pytest.approx(1.0)
    assert point_biserial([0, 0, 1, 1], [3, 3, 1, 1]) == pytest.approx(-1.0)
    assert math.isnan(point_biserial([1, 1, 1], [1, 2, 3])) and math.isnan(point_biserial([1, 0], [2, 2]))


def test_rules_per_student_and_for_the_class(tmp_path: Path) -> None:
    path, _ = tiny_class(tmp_path)
    grades = read_grades(path)
    matrix = rule_matrix(grades)
    assert list(matrix.index) == ["s1", "s2", "s3", "s4"] and list(matrix.columns) == ["R11", "R12", "R13", "R14"]
    assert matrix.loc["s3", "R11"] == 0.75  # 4 failed; 6, H1, H2 passed
    assert matrix.loc["s3", "R12"] == pytest.approx(2 / 3)  # 5 failed; 6, H2 passed
    assert matrix.loc["s1"].tolist() == [1.0] * 4
    shares = rule_shares(grades)
    assert shares["R14"] == 5 / 8  # tests 5 and H1 over four submissions: 1+1, 1+1, 0+1, 0+0
    assert list(shares.index) == sorted(shares.index, key=lambda rule: (shares[rule], list(shares.index).index(rule)))


def test_only_the_counted_submission_of_each_student_and_lab_is_used(tmp_path: Path) -> None:
    path, _ = tiny_class(tmp_path)
    grades = read_grades(path)
    assert grades.rows_read == 5 and len(grades.frame) == 4
    assert grades.frame.loc[grades.frame["student"] == "s4", "total"].tolist() == [1]


def test_failure_messages_are_counted_with_digits_folded(tmp_path: Path) -> None:
    _, results = tiny_class(tmp_path)
    messages = failure_messages(results)
    top = messages[0]
    assert (top.lab, top.test, top.count, top.share) == ("11.2", "4 two_groups_as_isolated_copies", 3, 0.75)
    hidden = next(m for m in messages if m.test.startswith("H1"))
    assert hidden.message.startswith("R11 R13 R14: keep the rule. Failed on N of N generated cases")
    assert folded("R19: kept u3, H1 and 12 of 40\nsecond line") == "R19: kept u3, H1 and N of N"


@pytest.mark.slow  # several seconds: make test, not make check
def test_the_report_of_a_generated_class_has_every_section_and_chart(tmp_path: Path) -> None:
    results = generated_class(students=48)
    path = tmp_path / "grades.csv"
    write_csv(results, path)
    write_records(results, companion(path))
    grades = read_grades(path)
    assert grades.frame["student"].nunique() == 48
    page = build_report(grades, results, str(path))
    for section in ("distribution", "rules", "items", "messages"):
        assert f'<section id="{section}">' in page
    charts = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert len(charts) == 2
    heatmap = base64.b64decode(charts[1]).decode()
    assert heatmap.lstrip().startswith("<?xml") and "<svg" in heatmap and "<script" not in heatmap
    rows = re.findall(r"<tr><td>(?:11\.\d|capstone)</td>", page.split('id="item-stats"')[1])
    assert len(rows) == sum(len(lab_tests(lab)) for lab in ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone", "11.6"))
    cited = {
        rule
        for lab in ("11.1", "11.2", "11.3", "11.4", "11.5", "capstone", "11.6")
        for *_, rules, _ in lab_tests(lab)
        for rule in rules.split()
    }
    assert rule_matrix(grades).shape == (48, len(cited)) and len(cited) == 37  # every rule but R8, M1–M4 included
    assert len(re.findall(r"<tr><td class=\"num\">\d+</td>", page.split('id="failure-messages"')[1])) == 20


@pytest.mark.slow  # renders a report with its charts: make test, not make check
def test_hostile_student_ids_are_text_in_the_page_and_the_charts(tmp_path: Path) -> None:
    hostile = ['=HYPERLINK("http://x")', "$\\frac{$", "<script>alert(1)</script>"]
    results = [result(student, "11.3", {"7": False}) for student in hostile] + [result("ok", "11.3", {})]
    path = tmp_path / "grades.csv"
    write_csv(results, path)
    grades = read_grades(path)
    assert sorted(grades.frame["student"]) == sorted([*hostile, "ok"])  # the CSV's formula guard undone
    page = build_report(grades, None, str(path))
    assert "<script" not in page
    assert "No companion file with the results" in page


@pytest.mark.slow  # seconds of work (subprocesses, searches): make test runs it, make check does not
def test_the_command_writes_the_report_and_refuses_what_is_not_a_grades_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = tiny_class(tmp_path)
    assert cli.main(["report", str(path), "-o", str(tmp_path / "report.html")]) == 0
    page = (tmp_path / "report.html").read_text()
    assert "4 two_groups_as_isolated_copies" in page and 'id="failure-messages"' in page
    companion(path).unlink()
    assert cli.main(["report", str(path), "-o", str(tmp_path / "bare.html")]) == 0
    assert "leaves out the failure messages" in capsys.readouterr().err
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(SystemExit) as stopped:
        cli.main(["report", str(tmp_path / "other.csv"), "-o", str(tmp_path / "x.html")])
    assert stopped.value.code == 2
    assert "no column student" in capsys.readouterr().err


@pytest.mark.slow  # draws a heatmap of a large class: make test, not make check
def test_a_large_class_gets_a_heatmap_of_bounded_height() -> None:
    import pandas as pd

    from course_grader.publish.report_charts import LABELLED_ROWS, heatmap_chart

    small = heatmap_chart(pd.DataFrame(0.5, index=[f"s{i}" for i in range(40)], columns=["R1", "R2"]))
    large = heatmap_chart(pd.DataFrame(0.5, index=[f"s{i}" for i in range(2000)], columns=["R1", "R2"]))
    assert (
        small.get_figheight()
        < large.get_figheight()
        == heatmap_chart(
            pd.DataFrame(0.5, index=[f"s{i}" for i in range(LABELLED_ROWS)], columns=["R1", "R2"])
        ).get_figheight()
    )
    assert len(large.axes[0].get_yticklabels()) == 0 and len(small.axes[0].get_yticklabels()) == 40


def test_one_mistake_met_on_different_hidden_cases_is_one_message() -> None:
    from course_grader.judging.hidden_cases import hidden_tests

    test = hidden_tests(lab_registry.LABS["11.3"], 2026)[0]
    first, second = test.calls[0].description, test.calls[5].description
    assert first != second
    results = []
    for student, description in (("a", first), ("b", second)):
        graded = result(student, "11.3", {"H1": False}).model_copy(update={"seed": 2026})
        output = (
            f"{test.rules}: {test.hint}. Failed on 2 of 40 generated cases; first: {description}: wrong keptEntryIds"
        )
        results.append(
            graded.model_copy(
                update={
                    "tests": tuple(
                        t.model_copy(update={"output": output}) if t.number == "H1" else t for t in graded.tests
                    )
                }
            )
        )
    [message] = failure_messages(results)
    assert message.count == 2
    assert message.message.endswith("Failed on N of N generated cases; first failure: wrong keptEntryIds")


def test_a_csv_with_a_course_files_score_columns_reads_the_same(tmp_path: Path) -> None:
    """A course file adds its scores (points, penalty, score, …) after the test columns; they are not tests."""
    path, _ = tiny_class(tmp_path)
    plain = read_grades(path)
    frame = pd.read_csv(path)
    for column in ("points", "max_points", "late", "penalty", "score", "submitted", "submitted_from"):
        if column not in frame.columns:  # a CSV written with the course's scores has them already
            frame.insert(list(frame.columns).index("total"), column, 0)
    frame["shard 1/3, duplicates: latest"] = ""
    frame.to_csv(tmp_path / "course.csv", index=False)
    grades = read_grades(tmp_path / "course.csv")
    assert [test.column for test in grades.tests] == [test.column for test in plain.tests]
    assert [item.discrimination for item in item_stats(grades)] == pytest.approx(
        [item.discrimination for item in item_stats(plain)], nan_ok=True
    )


def test_the_csv_decides_which_results_count_for_the_messages(tmp_path: Path) -> None:
    """Shards' records each flag their own duplicates; the merged CSV has decided across all of them."""
    _, results = tiny_class(tmp_path)
    both = [r.model_copy(update={"counts": True}) for r in results]  # s4's old file, as a shard that lacked the new one
    assert (failure_messages(both)[0].count, failure_messages(both)[0].share) == (3, 3 / 5)
    only_new = {r.submission for r in results if r.counts}
    top = failure_messages(both, counted_files=only_new)[0]
    assert (top.count, top.share) == (3, 3 / 4)


@pytest.mark.slow  # renders a report with its charts: make test, not make check
def test_students_are_counted_apart_from_unknown_submissions_and_the_gradebook_score_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four students (s1-s4: 5, 4, 3 and 1 of Lab 11.2's 5 tests) and a file of no roster student (5 of 5): the
    numbers are the roster's four alone (issue 44: the stranger was counted in the mean); the stranger is listed apart."""
    path, results = tiny_class(tmp_path)
    stranger = result("x9", "11.2", {}, submission="x9_lab_11_2.ipynb").model_copy(
        update={"student_source": "unknown (file name)"}
    )
    write_csv([*results, stranger], path)
    page = build_report(read_grades(path), None, str(path))
    assert "4 counted submissions (the one that counts per student and lab) of 4 students, and 1 of no roster" in page
    assert cli.main(["report", str(path), "-o", str(tmp_path / "report.html")]) == 0
    assert "counted submissions of 4 students and 1 of no roster student (unknown)" in capsys.readouterr().out
    cells = re.findall(r'<td class="num">([^<]*)</td>', page.split('id="distribution"')[1].split("</table>")[0])
    # submissions, mean %, median %, full marks, mean score, median score, points: (5+4+3+1)/4 = 3.25 of 5
    assert cells == ["4", "65.0", "70.0", "1", "3.25", "3.50", "5"]
    apart = page.split('id="unknown-submissions"')[1].split("</table>")[0]
    assert "x9_lab_11_2.ipynb" in apart and "unknown (file name)" in apart and "x9" not in page.split('id="rules"')[1]
