"""One score everywhere: Gradescope's results.json scores a submission as the course file does, locally or bundled."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from term_secrets import TERM

from course_grader import GradeResult, TestResult, load_course, score
from course_grader.course.course import NO_COURSE
from course_grader.packaging.bundle import build_bundle
from course_grader.packaging.scoring_file import SCORING, read_scoring
from course_grader.results.gradescope import to_gradescope
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
    assert round(sum(test["max_score"] for test in data["tests"]), 2) == 10
    worth = {test["number"]: test["max_score"] for test in data["tests"]}
    assert worth["H1"] == worth["H2"] == 2.2222 and worth["7"] == worth["H3"] == 1.1111  # 2 of 9 weights, 1 of 9
    assert data["output"].startswith("Lab 11.3: 4.44/10")


def test_results_json_never_names_the_runs_secret() -> None:
    """What a learner may be shown says nothing of what the hidden cases were drawn from (issue 43)."""
    assert TERM not in json.dumps(to_gradescope(PARTLY.model_copy(update={"seed": TERM}), NO_COURSE))


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
