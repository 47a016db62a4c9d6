"""estimate_tokens_cjk: ``ceil(chars / 4)`` with a CJK character costed as cl100k_base costs it (issue 32).

- CJK text is counted near the BPE count, where ``ceil(chars / 4)`` gives a fraction of it;
- text without a CJK character costs exactly ``estimate_tokens_chars`` (every English sample and fixture);
- the shipped coefficient is what calibration on the shipped mixed sample gives, and the sample ships.
"""

from __future__ import annotations

import fnmatch
import math
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_lib import AssistantMessage, TextContent, ToolCall, Usage, UserMessage, build_context, fixtures
from course_lib.errors import OptionError
from course_lib.estimators import (
    CJK_BLOCKS,
    CJK_TOKENS_PER_CHAR,
    Message,
    cjk_characters,
    estimate_tokens_chars,
    estimate_tokens_cjk,
    message_texts,
)
from course_lib.importers import FORMATS, SAMPLE_LANGUAGES, calibration, load_session, sample_path
from course_lib.importers.bpe import estimate_tokens_bpe
from course_lib.importers.cli import main as course_session

ROOT = Path(__file__).resolve().parents[2]
SENTENCE = "请检查会话恢复逻辑，只恢复选中的分支，不要改写历史。"


def _user(text: str) -> UserMessage:
    return UserMessage(content=(TextContent(text=text),), timestamp=1)


def _messages(path: Path) -> list[Message]:
    return [entry.message for entry in load_session(path).entries if entry.type == "message"]


def _in_cjk_blocks(character: str) -> bool:
    return any(first <= ord(character) <= last for first, last, _ in CJK_BLOCKS)


NOT_CJK = st.text(st.characters(exclude_categories=["Cs"]).filter(lambda c: not _in_cjk_blocks(c)))


# --- CJK counted sensibly --------------------------------------------------------------


def test_a_chinese_sentence_costs_its_characters_times_the_coefficient() -> None:
    assert cjk_characters(SENTENCE) == len(SENTENCE) == 26
    assert estimate_tokens_cjk(_user(SENTENCE)) == math.ceil(CJK_TOKENS_PER_CHAR * 26)
    assert estimate_tokens_chars(_user(SENTENCE)) == 7


def test_mixed_text_counts_each_part_at_its_rate_with_one_ceiling() -> None:
    text = "运行 pytest -q 后，10 个测试全部通过。"  # 12 CJK characters (，and 。 among them), 14 others
    assert (len(text), cjk_characters(text)) == (26, 12)
    assert estimate_tokens_cjk(_user(text)) == math.ceil(Fraction(14, 4) + CJK_TOKENS_PER_CHAR * 12)


def test_a_tool_calls_chinese_arguments_count_as_cjk() -> None:
    """The same text as ``estimate_tokens_chars`` measures: the name plus the JSON arguments, unescaped."""
    call = ToolCall(id="c1", name="bash", arguments={"command": "echo 你好"})
    message = AssistantMessage(
        content=(call,),
        provider="p",
        model="m",
        usage=Usage(input=0, output=0, total_tokens=0),
        stop_reason="toolUse",
        timestamp=1,
    )
    others = len("bash") + len('{"command": "echo "}')
    assert estimate_tokens_cjk(message) == math.ceil(Fraction(others, 4) + CJK_TOKENS_PER_CHAR * 2)


def test_on_the_mixed_sample_it_is_within_a_tenth_of_bpe_where_chars_4_is_not() -> None:
    pytest.importorskip("tiktoken")
    messages = _messages(calibration.mixed_sample())
    bpe = sum(map(estimate_tokens_bpe, messages))
    assert abs(bpe - sum(map(estimate_tokens_cjk, messages))) <= bpe / 10
    assert bpe - sum(map(estimate_tokens_chars, messages)) > bpe / 3


# --- ASCII (and any text without CJK) unchanged exactly ---------------------------------


@given(NOT_CJK)
def test_text_without_a_cjk_character_costs_exactly_chars_over_4(text: str) -> None:
    assert cjk_characters(text) == 0
    assert estimate_tokens_cjk(_user(text)) == estimate_tokens_chars(_user(text))


def test_typeset_english_punctuation_is_not_cjk() -> None:
    """Curly quotes, dashes and the ellipsis are English too: they keep their quarter token."""
    assert cjk_characters("“Done” — almost… ‘yes’") == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_message_of_the_english_samples_keeps_its_cost(fmt: str) -> None:
    for message in _messages(sample_path(fmt)):  # type: ignore[arg-type]  # a Format
        assert estimate_tokens_cjk(message) == estimate_tokens_chars(message)


def test_the_chapters_paths_keep_their_costs_and_projections() -> None:
    paths = [fixtures.opening_path(), fixtures.resumed_path(), fixtures.twice_compacted_path()]
    for path in paths:
        for entry in path:
            if entry.type == "message":
                assert estimate_tokens_cjk(entry.message) == estimate_tokens_chars(entry.message)
    budget = {"max_tokens": 40, "reserved_output": 4, "safety_margin": 2}
    opening = fixtures.opening_path()
    assert build_context(opening, estimate_tokens=estimate_tokens_cjk, **budget) == build_context(
        opening, estimate_tokens=estimate_tokens_chars, **budget
    )


# --- calibration reproducible -----------------------------------------------------------


def test_the_shipped_coefficient_is_what_the_shipped_sample_gives() -> None:
    pytest.importorskip("tiktoken")
    found = calibration.calibrate()
    assert found.source == sample_path("pi", language="zh")
    assert found.coefficient == CJK_TOKENS_PER_CHAR, f"set CJK_TOKENS_PER_CHAR = Fraction({found.coefficient})"
    assert calibration.calibrate() == found


def test_the_coefficient_is_kept_to_hundredths_half_up() -> None:
    assert calibration.Calibration(Path("x"), 200, 201).coefficient == Fraction(101, 100)  # 1.005
    assert calibration.Calibration(Path("x"), 1000, 1004).coefficient == 1  # 1.004
    assert calibration.Calibration(Path("x"), 3, 4).coefficient == Fraction(133, 100)


def test_calibration_refuses_a_session_without_cjk_text() -> None:
    pytest.importorskip("tiktoken")
    with pytest.raises(calibration.CalibrationError, match=r"pi\.jsonl: no CJK character"):
        calibration.calibrate(sample_path("pi"))


def test_the_calibration_command_prints_the_figures_and_fails_on_a_stale_coefficient(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("tiktoken")
    assert calibration.main() == 0
    printed = capsys.readouterr().out
    found = calibration.calibrate()
    assert f"{found.characters} CJK characters, {found.tokens} cl100k_base tokens" in printed
    zh = calibration.totals(calibration.mixed_sample())
    row = [zh["chars/4"], zh["cjk-aware"], zh["bpe"], zh["bpe"] - zh["chars/4"], zh["bpe"] - zh["cjk-aware"]]
    assert ["pi-zh", *map(str, row)] in [line.split() for line in printed.splitlines()]
    monkeypatch.setattr(calibration, "CJK_TOKENS_PER_CHAR", Fraction(1, 4))
    assert calibration.main() == 1
    assert f"Fraction({found.coefficient})" in capsys.readouterr().err


# --- the sample ships --------------------------------------------------------------------


def test_the_mixed_sample_is_package_data_and_a_clean_pi_session() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["course_lib.importers"]
    path = sample_path("pi", language="zh")
    relative = path.relative_to(ROOT / "course_lib" / "importers").as_posix()
    assert path.is_file() and any(fnmatch.fnmatch(relative, pattern) for pattern in patterns)
    session = load_session(path)
    assert session.format == "pi" and not session.skipped
    texts = "".join(text for message in _messages(path) for text in message_texts(message))
    assert cjk_characters(texts) > 1000 and "def parse_amount" in texts  # Chinese prose, English code


def test_only_the_shipped_samples_have_a_path() -> None:
    assert SAMPLE_LANGUAGES["zh"] == ("pi",)
    with pytest.raises(OptionError, match="no codex sample in language 'zh'"):
        sample_path("codex", language="zh")
    assert set(calibration.shipped_samples()) == {*FORMATS, "pi-zh"}


def test_course_session_offers_the_cjk_aware_estimator(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["show", str(calibration.mixed_sample()), "--max-tokens", "100000", "--safety-margin", "0"]
    assert course_session([*args, "--estimator", "cjk"]) == 0
    cjk = capsys.readouterr().out
    assert "estimator cjk" in cjk
    assert course_session([*args, "--estimator", "chars"]) == 0
    assert cjk.split("total ")[1] != capsys.readouterr().out.split("total ")[1]
