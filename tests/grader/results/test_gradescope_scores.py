"""One score everywhere: Gradescope's results.json scores a submission as the course file does, locally or bundled."""

from __future__ import annotations

import json
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest
from term_secrets import TERM

from course_grader import GradeResult, TestResult, load_course, score
from course_grader.course.course import NO_COURSE, Course
from course_grader.course.course_file import lab_tests
from course_grader.course.course_settings import CourseSettings, LabSettings
from course_grader.packaging.bundle import build_bundle
from course_grader.packaging.scoring_file import SCORING, read_scoring
from course_grader.results.gradescope import to_gradescope
from course_grader.results.scoring import points_per_test
from course_lib.teaching.lab_registry import LABS

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
COURSE = EXAMPLES / "course.toml"
"""Lab 11.3 is worth 10 points; its hidden tests H1 and H2 weigh 2 each, the others 1."""


def graded(passed: dict[str, bool]) -> GradeResult:
    tests = tuple(
        TestResult(name=f"t{number}", number=number, lab="11.3", score=float(ok), hidden=number.startswith("H"))
        for number, ok in passed.items()
    )
    return GradeResult(submission="a.ipynb", student="a", lab="11.3", status="ok", tests=tests)


PARTLY = graded({"7": True, "8": False, "9": True, "H1": True, "H2": False, "H3": False, "H4": False})


def test_results_json_gives_the_course_files_score() -> None:
    """2 of 7 tests by count (28.6 %) is 1 + 1 + 2 of 9 weights (44.4 %): 4.44 of 10 points, as local grading says."""
    course = load_course(COURSE)
    data = to_gradescope(PARTLY, course)
    assert data["score"] == score(PARTLY, course).points == 4.44
    assert total(data, "max_score") == 10
    worth = {test["number"]: test["max_score"] for test in data["tests"]}
    assert (worth["H1"], worth["H2"], worth["7"], worth["H3"]) == (2.2223, 2.2222, 1.1111, 1.1111)  # 2 of 9, 1 of 9
    assert data["output"].startswith("Lab 11.3: 4.44/10")


def test_results_json_never_names_the_runs_secret() -> None:
    """What a learner may be shown says nothing of what the hidden cases were drawn from (issue 43)."""
    assert TERM not in json.dumps(to_gradescope(PARTLY.model_copy(update={"seed": TERM}), NO_COURSE))


def total(data: dict, field: str) -> Decimal:
    """What Gradescope's page adds up: the tests' numbers as results.json writes them, summed without rounding."""
    return sum((Decimal(json.dumps(test[field])) for test in data["tests"]), Decimal(0))


SETTINGS = {
    "no course file": LabSettings(),
    "10 points": LabSettings(points=10),
    "10 points, H1 and H2 weigh 2": LabSettings(points=10, weights={"H1": 2, "H2": 2}),
    "7.5 points, the first test weighs 3": LabSettings(
        points=7.5, weights=dict.fromkeys(("1", "4", "7", "10", "12", "16"), 3)
    ),
    "100 points, H1 weighs nothing": LabSettings(points=100, weights={"H1": 0}),
    "1 point": LabSettings(points=1),
    "weights only": LabSettings(weights={"H1": 2.5, "H2": 0.5}),
}


@pytest.mark.parametrize("lab", LABS)
@pytest.mark.parametrize("setting", SETTINGS)
def test_every_labs_tests_add_up_to_its_maximum(lab: str, setting: str) -> None:
    """Issue 44: Lab 11.3's seven tests of 10/7 points were written 1.4286 each, 10.0002 in all against 10.

    Now they add up exactly, in every lab under every setting: the maxima to the
    lab's points (or its weights' sum), a full solution's scores to the same, and
    each test within 0.0001 of its exact share (a test weighing nothing stays 0)."""
    course = Course(settings=CourseSettings(labs={lab: SETTINGS[setting]}))
    tests = lab_tests(LABS[lab])
    full = GradeResult(
        submission="a.ipynb",
        student="a",
        lab=lab,
        status="ok",
        tests=tuple(TestResult(name=name, number=number, lab=lab, score=1.0) for number, name in tests),
    )
    exact = points_per_test(full, course)
    maximum = Decimal(str(score(full, course).max_points))
    data = to_gradescope(full, course)
    assert total(data, "max_score") == total(data, "score") == maximum == Decimal(str(data["score"]))
    assert all(abs(test["max_score"] - exact[test["number"]]) < 1e-4 for test in data["tests"])
    assert all(test["max_score"] == 0 for test in data["tests"] if not exact[test["number"]])


def test_without_a_course_file_a_test_is_a_point() -> None:
    data = to_gradescope(PARTLY, NO_COURSE)
    assert data["score"] == PARTLY.score == 3 and [test["max_score"] for test in data["tests"]] == [1.0] * 7


def test_the_bundle_carries_the_labs_points_and_weights_and_nothing_else_of_the_course(tmp_path: Path) -> None:
    course = load_course(COURSE)
    bundle = build_bundle(LABS["11.3"], tmp_path / "autograder.zip", course=course, seed=TERM)
    with zipfile.ZipFile(bundle) as archive:
        scoring = json.loads(archive.read(SCORING))
        archive.extractall(tmp_path / "autograder" / "source")
    assert scoring == {"points": 10.0, "weights": {"H1": 2.0, "H2": 2.0}}  # no roster, seed or deadline
    unpacked = read_scoring(tmp_path / "autograder", "11.3")
    assert to_gradescope(PARTLY, unpacked)["score"] == score(PARTLY, course).points
    plain = build_bundle(LABS["11.3"], tmp_path / "plain.zip", seed=TERM)
    with zipfile.ZipFile(plain) as archive:
        assert json.loads(archive.read(SCORING)) == {"points": None, "weights": {}}
    assert read_scoring(tmp_path / "nowhere", "11.3") == NO_COURSE  # a bundle built before scoring.json
