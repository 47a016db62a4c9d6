"""Feedback pages (``course_grader.publish.feedback``, ``feedback_page``): every test, its rules linked, the score; hostile text stays text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from synthetic_class import generated_class, lab_tests, result

from course_grader.cli import app as cli
from course_grader.cli import grade_batch, grade_single
from course_grader.judging.practice import COUNTEREXAMPLE
from course_grader.judging.verdicts import GradeResult
from course_grader.publish.feedback import default_rules_base, write_feedback
from course_grader.publish.feedback_page import MESSAGE_LIMIT, render_page, split_output
from course_grader.publish.page_names import page_names
from course_grader.results.records import companion, read_records

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = '"><script>alert(1)</script><img src=x onerror="alert(2)">'


class Elements(HTMLParser):
    """Every start tag of a page with its attributes, and the page's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(page: str) -> Elements:
    elements = Elements()
    elements.feed(page)
    return elements


def hostile_result() -> GradeResult:
    base = result(
        HOSTILE,
        "11.3",
        {"7": False, "H1": False},
        submission=f"{HOSTILE}/lab_11_3.ipynb",
        notes=(f"exercise cell 1: ValueError: {HOSTILE}",),
    )
    tests = tuple(
        test.model_copy(update={"output": f"R17: raised ValueError: {HOSTILE}"}) if test.number == "7" else test
        for test in base.tests
    )
    return base.model_copy(update={"tests": tests})


def test_submission_text_is_escaped_and_shown_as_text() -> None:
    page = render_page(hostile_result())
    elements = parsed(page)
    assert [tag for tag, _ in elements.tags if tag in ("script", "img", "iframe", "object")] == []
    assert not any(name.startswith("on") for _, attrs in elements.tags for name in attrs)
    text = "".join(elements.text)
    assert f"R17: raised ValueError: {HOSTILE}" in text  # the learner sees exactly what was raised
    assert text.count(HOSTILE) >= 4  # student, file, note, message
    assert "&lt;script&gt;" in page and "<script" not in page


def test_every_page_forbids_scripts_and_outside_fetches() -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', render_page(hostile_result()))
    assert policy and "default-src 'none'" in policy.group(1) and "script-src" not in policy.group(1)


def test_a_huge_message_is_cut_and_says_so() -> None:
    base = result("alice", "11.3", {"8": False})
    huge = "R20: " + "x" * 2_000_000
    tests = tuple(t.model_copy(update={"output": huge}) if t.number == "8" else t for t in base.tests)
    page = render_page(base.model_copy(update={"tests": tests}))
    assert len(page) < 100_000
    assert f"{len(huge) - MESSAGE_LIMIT:,} more characters not shown" in page


def test_text_that_is_not_valid_unicode_is_written(tmp_path: Path) -> None:
    """A file name that is not UTF-8 reaches Python with lone surrogates; the page must still be written."""
    odd = result("b\udcffob\x1b[31m", "11.2", {"4": False}, submission="b\udcffob/lab_11_2.ipynb")
    pages = write_feedback([odd], tmp_path)
    text = pages[0].read_text(encoding="utf-8")
    assert "b\ufffdob" in text and "\x1b" not in text


def test_each_test_shows_status_message_counterexample_and_its_rules() -> None:
    page = render_page(result("alice", "11.3", {"7": False, "H1": False}))
    rows = re.findall(r'<tr class="test (passed|failed)">(.*?)</tr>', page, re.S)
    assert [status for status, _ in rows] == ["failed", "passed", "passed", "failed", "passed", "passed", "passed"]
    assert len(rows) == len(lab_tests("11.3"))
    hidden = rows[3][1]
    assert "generated_kept_groups_and_reason" in hidden
    assert re.search(r'<pre class="message">R19 R20: keep the rule\. Failed on 3 of 17', hidden)
    assert re.search(rf'<pre class="counterexample">{re.escape(COUNTEREXAMPLE)}: a generated session', hidden)
    assert re.findall(r'href="([^"]+)"', hidden) == ["rules.md#r19", "rules.md#r20"]
    assert 'href="rules.md#r15"' in rows[0][1] and 'href="rules.md#r22"' in rows[0][1]
    # The rules cited are stated on the page too, so it reads without the link.
    assert re.search(r'<dt><a href="rules.md#r19">R19</a></dt>\s*<dd>Groups are taken newest first', page)


def test_rule_links_land_on_an_anchor_of_docs_rules_md() -> None:
    rules_md = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', rules_md))
    linked = set()
    for lab in ("11.1", "11.3", "11.5", "capstone"):
        linked |= set(re.findall(r'href="rules\.md#([^"]+)"', render_page(result("a", lab, {}))))
    assert linked and linked <= anchors
    assert {"r19", "l1"} <= linked


def test_the_rules_link_base_is_configurable_and_defaults_to_the_checkouts_rules_md(tmp_path: Path) -> None:
    page = render_page(result("a", "11.3", {}), rules_base="https://example.org/course/blob/main/docs/rules.md")
    assert 'href="https://example.org/course/blob/main/docs/rules.md#r19"' in page
    folder = tmp_path / "feedback"
    base = default_rules_base(folder)
    assert (folder / base).resolve() == (ROOT / "docs" / "rules.md").resolve()
    write_feedback([result("a", "11.3", {})], folder)
    assert f'href="{base}#r19"' in (folder / "a_lab_11_3.html").read_text()


@dataclass(frozen=True)
class LateScore:
    """The shape of a course file's score record (weights and a late penalty)."""

    points: float
    max_points: float
    penalty: float
    score: float
    explanation: str


def test_the_score_comes_from_a_score_record_or_one_point_per_passed_test(tmp_path: Path) -> None:
    graded = result("alice", "11.3", {"7": False, "H2": False})
    default = render_page(graded)
    assert re.search(r"<strong>5</strong> of 7 points</p>", default)
    assert "1 point per passed test (5 of 7 passed); no late policy" in default
    late = LateScore(
        points=10,
        max_points=14,
        penalty=2.5,
        score=7.5,
        explanation="checklist 1 point, hidden 2 points each; 2 days late: −25 % <b>",
    )
    page = render_page(graded, score=late)
    assert re.search(r"<strong>7.5</strong> of 14 points \(10 points, minus a penalty of 2.5\)</p>", page)
    assert "2 days late: −25 % &lt;b&gt;" in page
    pages = write_feedback([graded], tmp_path, scorer=lambda r: late)
    assert "minus a penalty of 2.5" in pages[0].read_text()


def test_page_names_stay_in_the_folder_and_never_collide(tmp_path: Path) -> None:
    students = ["alice", "Alice", "a b", "a_b", "../../etc/passwd", ".hidden", "", "x" * 300, "a_b~0000000000", HOSTILE]
    names = page_names(students)
    assert len({name.casefold() for name in names.values()}) == len(students)
    assert names["alice"] in ("alice", "alice~" + names["alice"].partition("~")[2]) and names["a_b"] == "a_b"
    assert all(re.fullmatch(r"[A-Za-z0-9._-]*[A-Za-z0-9](~[0-9a-f]{10})?", name) for name in names.values())
    pages = write_feedback([result(student, "11.2", {}) for student in students], tmp_path / "out")
    assert len(pages) == len(students) + 1
    assert all(page.parent == tmp_path / "out" for page in pages)


def test_one_page_per_student_and_lab_showing_the_submission_that_counts(tmp_path: Path) -> None:
    older = result("alice", "11.3", {"7": False}, submission="alice/old.ipynb", counts=False)
    newer = result("alice", "11.3", {}, submission="alice/new.ipynb")
    other = result("alice", "11.4", {})
    unreadable = GradeResult(
        submission="alice/notes.ipynb", student="alice", lab=None, status="error", notes=("not a readable notebook",)
    )
    pages = write_feedback([older, newer, other, unreadable], tmp_path)
    assert [page.name for page in pages] == [
        "alice_lab_11_3.html",
        "alice_lab_11_4.html",
        "alice_not_graded.html",
        "index.html",
    ]
    assert "alice/new.ipynb" in pages[0].read_text() and "alice/old.ipynb" not in pages[0].read_text()
    assert "not a readable notebook" in pages[2].read_text()
    index = pages[-1].read_text()
    assert all(f'href="{page.name}"' in index for page in pages[:-1])


def test_split_output_keeps_the_message_and_the_counterexample_apart() -> None:
    assert split_output("R1: bad") == ("R1: bad", "")
    assert split_output(f"R1: bad\nmore\n{COUNTEREXAMPLE}: x\n  y") == ("R1: bad\nmore", f"{COUNTEREXAMPLE}: x\n  y")


@pytest.mark.slow  # writes a page for each of 40 students' labs: make test, not make check
def test_a_whole_class_gets_its_pages(tmp_path: Path) -> None:
    results = generated_class(students=40)
    pages = write_feedback(results, tmp_path)
    assert len(pages) - 1 == len({(r.student, r.lab) for r in results})


# --- the command line: --feedback in folder and single-notebook mode, and grades.jsonl beside the CSV


@pytest.mark.slow  # grades a batch: make test, not make check
def test_a_batch_writes_the_jsonl_companion_and_feedback_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "submissions"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "lab_11_3.ipynb").write_text("{}")
    graded = [result("alice", "11.3", {"7": False}), result("bob\udcff", "11.2", {})]
    monkeypatch.setattr(grade_batch, "grade_folder", lambda *args, **kwargs: graded)
    out = tmp_path / "grades.csv"
    code = cli.main(
        [
            str(folder),
            "--out",
            str(out),
            "--feedback",
            str(tmp_path / "feedback"),
            "--no-sandbox",
            "--no-progress",
            "--rules-url",
            "https://example.org/rules.md",
        ]
    )
    assert code == 0
    assert read_records(companion(out)) == graded  # lossless, lone surrogate included
    page = (tmp_path / "feedback" / "alice_lab_11_3.html").read_text()
    assert 'href="https://example.org/rules.md#r19"' in page
    assert len(list((tmp_path / "feedback").glob("*.html"))) == 3


def test_one_notebook_gets_its_page_from_the_same_renderer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = tmp_path / "alice_lab_11_3.ipynb"
    notebook.write_text("{}")
    graded = result("alice", "11.3", {"H1": False}, submission=notebook.name)
    monkeypatch.setattr(grade_single, "grade_notebook", lambda *args, **kwargs: graded)
    code = cli.main(
        [str(notebook), "--results", str(tmp_path / "results.json"), "--feedback", str(tmp_path / "fb"), "--no-sandbox"]
    )
    assert code == 0

    def without_score(page: str) -> str:  # the score is the course's to make (a course file's weights, or 1 per test)
        return re.sub(r'<section id="score">.*?</section>', "", page, count=1, flags=re.S)

    page = (tmp_path / "fb" / "alice_lab_11_3.html").read_text()
    assert '<section id="score">' in page
    assert without_score(page) == without_score(render_page(graded, rules_base=default_rules_base(tmp_path / "fb")))


def test_a_feedback_folder_that_cannot_be_written_is_refused_before_grading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = tmp_path / "alice_lab_11_3.ipynb"
    notebook.write_text("{}")
    monkeypatch.setattr(grade_single, "grade_notebook", lambda *args, **kwargs: pytest.fail("graded before refusing"))
    (tmp_path / "a-file").write_text("")
    for folder, says in ((tmp_path / "a-file", "is not a folder"), (tmp_path / "no" / "such", "does not exist")):
        with pytest.raises(SystemExit) as stopped:
            cli.main([str(notebook), "--feedback", str(folder), "--no-sandbox"])
        assert stopped.value.code == 2
        assert says in capsys.readouterr().err


def test_the_csv_is_written_when_a_file_name_is_not_utf8(tmp_path: Path) -> None:
    """A folder named with bytes that are not UTF-8 used to fail the CSV's write after the whole batch was graded."""
    from course_grader.results.grades_frame import write_csv

    write_csv([result("b\udcffob", "11.2", {})], tmp_path / "grades.csv")
    assert "b\ufffdob" in (tmp_path / "grades.csv").read_text(encoding="utf-8")


def test_pages_again_from_records_of_several_shards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from course_grader.results.records import write_records

    first = write_records([result("alice", "11.3", {}), result("bob", "11.3", {"7": False})], tmp_path / "a.jsonl")
    second = write_records([result("carol", "11.4", {})], tmp_path / "b.jsonl")
    assert cli.main(["feedback", str(first), str(second), "-o", str(tmp_path / "pages")]) == 0
    index = (tmp_path / "pages" / "index.html").read_text()
    assert all(
        f'href="{name}"' in index for name in ("alice_lab_11_3.html", "bob_lab_11_3.html", "carol_lab_11_4.html")
    )
    (tmp_path / "bad.jsonl").write_text('{"student": 1}\n')
    with pytest.raises(SystemExit):
        cli.main(["feedback", str(tmp_path / "bad.jsonl"), "-o", str(tmp_path / "pages")])
    assert "bad.jsonl, line 1: not a graded result" in capsys.readouterr().err


def test_pages_from_shards_show_the_duplicate_the_merged_csv_counts(tmp_path: Path) -> None:
    """Each shard flagged only its own duplicates: both of alice's files say they count until the CSV decides."""
    from course_grader.results.grades_frame import write_csv
    from course_grader.results.records import write_records

    old = result("=alice", "11.3", {"7": False}, submission="=alice/old.ipynb")
    new = result("=alice", "11.3", {}, submission="=alice/new.ipynb")
    first, second = write_records([new], tmp_path / "a.jsonl"), write_records([old], tmp_path / "b.jsonl")
    write_csv([old.model_copy(update={"counts": False}), new], tmp_path / "grades.csv")  # as merge decides
    assert cli.main(["feedback", str(first), str(second), "-o", str(tmp_path / "by-order")]) == 0
    assert "=alice/old.ipynb" in next((tmp_path / "by-order").glob("*_lab_11_3.html")).read_text()
    assert (
        cli.main(
            [
                "feedback",
                str(first),
                str(second),
                "--grades",
                str(tmp_path / "grades.csv"),
                "-o",
                str(tmp_path / "by-csv"),
            ]
        )
        == 0
    )
    assert "=alice/new.ipynb" in next((tmp_path / "by-csv").glob("*_lab_11_3.html")).read_text()


def test_a_regrade_removes_the_pages_it_supersedes_and_only_those(tmp_path: Path) -> None:
    """Issue 44: ``parkkevin_lab_11_3.html`` stayed after Kevin was regraded as S1099. A page whose submission now
    shows on another page goes; a part of the term (``whole=False``) leaves the others' pages; a file the grader
    did not write is never touched."""
    folder = tmp_path / "pages"
    kevin = result("parkkevin", "11.3", {}, submission="parkkevin_lab_11_3.ipynb")
    alice = result("alice", "11.3", {})
    write_feedback([kevin, alice], folder, rules_base="rules.md")
    (folder / "notes.html").write_text("the instructor's own", encoding="utf-8")
    regraded = kevin.model_copy(update={"student": "S1099"})
    write_feedback([regraded], folder, rules_base="rules.md", whole=False)
    assert sorted(path.name for path in folder.glob("*.html")) == [
        "S1099_lab_11_3.html", "alice_lab_11_3.html", "index.html", "notes.html"
    ]  # fmt: skip
    write_feedback([regraded], folder, rules_base="rules.md")  # the whole term: alice's file is gone from it
    assert sorted(path.name for path in folder.glob("*.html")) == ["S1099_lab_11_3.html", "index.html", "notes.html"]
