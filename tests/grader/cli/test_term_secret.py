"""The course file's ``seed`` is a secret, written by ``course-grade secret``; a picked one is refused (issue 43)."""

from __future__ import annotations

from pathlib import Path

import pytest
from term_secrets import OTHER, TERM, beside

from course_grader.cli import app as cli
from course_grader.course.course_file import load_course
from course_grader.course.course_settings import CourseFileError
from course_grader.judging.secret import weakness


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("seed", "says"),
    [
        ("20261001", "key seed: Value error, 20261001 is a date a person picks"),
        ('"20261001"', "key seed: Value error, 20261001 is a date a person picks"),
        ('"chapter-eleven"', "key seed: Value error, a secret of 14 characters is short"),
    ],
)
def test_the_course_file_refuses_a_seed_a_person_picks(tmp_path: Path, seed: str, says: str) -> None:
    with pytest.raises(CourseFileError, match=says) as refused:
        load_course(write(tmp_path / "course.toml", f"seed = {seed}\n"))
    assert "course-grade secret term.secret" in str(refused.value)


def test_course_grade_secret_writes_one_yours_only_and_never_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["secret", "term.secret"]) == 0
    written = (tmp_path / "term.secret").read_text(encoding="utf-8").strip()
    assert weakness(written) is None and (tmp_path / "term.secret").stat().st_mode & 0o777 == 0o600
    assert 'seed = "term.secret"' in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        cli.main(["secret", "term.secret"])
    assert refused.value.code == 2 and "a term's secret is never replaced" in capsys.readouterr().err
    assert (tmp_path / "term.secret").read_text(encoding="utf-8").strip() == written
    assert cli.main(["secret"]) == 0
    printed = capsys.readouterr().out.strip()
    assert weakness(printed) is None and printed != written
    course = load_course(write(tmp_path / "course.toml", 'seed = "term.secret"\n'))
    assert course.settings.seed == "term.secret" and course.secret == written
    assert load_course(write(tmp_path / "inline.toml", f'seed = "{printed}"\n')).secret == printed


@pytest.mark.parametrize(
    ("secret_file", "says"),
    [
        (None, "secret file .*term.secret: cannot be read"),
        ("20261001\n", "secret file .*term.secret: 20261001 is a date a person picks"),
    ],
)
def test_grading_stops_before_anything_runs_without_a_usable_secret_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], secret_file: str | None, says: str
) -> None:
    """``report``, ``export`` or ``rescore`` read the course file without the secret; grading cannot."""
    course = write(tmp_path / "course.toml", 'seed = "term.secret"\n')
    if secret_file is not None:
        write(tmp_path / "term.secret", secret_file)
    (tmp_path / "s").mkdir()
    with pytest.raises(SystemExit) as stopped:
        cli.main([str(tmp_path / "s"), "--course", str(course), "--no-sandbox", "--out", str(tmp_path / "g.csv")])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "key seed" in err and any(part in err for part in says.split(".*")), err
    assert load_course(course).settings.seed == "term.secret"  # the file itself loads: only drawing needs the secret


def test_seed_takes_a_secret_or_its_file_and_refuses_a_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from course_grader.cli.grade import build_parser

    monkeypatch.chdir(tmp_path)
    beside(tmp_path / "course.toml", OTHER)
    parser = build_parser()
    assert parser.parse_args(["x", "--seed", TERM]).seed == TERM
    assert parser.parse_args(["x", "--seed", "term.secret"]).seed == OTHER
    for picked in ("5", "20261001"):
        with pytest.raises(SystemExit):
            parser.parse_args(["x", "--seed", picked])
        assert f"argument --seed: seed: {picked} is a " in capsys.readouterr().err
