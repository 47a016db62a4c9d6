"""A prediction is right in the reader's words as in the code's (course_lib/teaching/answers.py, issue 45).

Each prediction a lab or the capstone asks for a word (not an id or a number) is listed here with its
hand-worked answer, and judged by ``lab_helpers.prediction_table`` twice: written in the code's word and in
each of the Chinese reader's words, in both languages. A wrong word stays wrong, and the 🤔 line says the
answer in the reader's words.
"""

from __future__ import annotations

from typing import Any

import pytest

from course_lib.teaching import answers, i18n, lab_helpers

PREDICTIONS: tuple[tuple[str, str, Any, Any], ...] = (
    ("Lab 11.1", "tokensBefore true", "rejected", "accepted"),
    ("Lab 11.1", "timestamp '100'", "accepted", "rejected"),
    ("Lab 11.3", "reason", "trimmed", "within_budget"),
    ("Lab 11.5", "reason", "within_budget", "trimmed"),
    ("Lab 11.6", "u2, a2", "refused", "u2"),
    ("capstone", "640", True, False),
    ("capstone", "641", False, True),
    ("capstone", "23", "nothing", "u2"),
)
"""``(where, question, the worked answer, a wrong answer)`` for each word-valued prediction."""


def _verdict(guess: Any, worked: Any, language: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(i18n.ENVIRONMENT, language)
    table = lab_helpers.prediction_table({"q": guess}, worked={"q": worked}, yours=lambda: {"q": worked}, function="f")
    return str(table.iloc[0, 1])


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize(("where", "question", "worked", "wrong"), PREDICTIONS)
def test_each_prediction_takes_the_readers_words_and_the_codes(
    where: str, question: str, worked: Any, wrong: Any, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    chinese = answers.words(worked, "zh")[1:]
    assert chinese, f"{where}, {question}: {worked!r} has no Chinese words in the catalog"
    for guess in (worked, str(worked), *chinese):
        assert _verdict(guess, worked, language, monkeypatch).startswith("🎯"), (where, question, guess)
    for guess in (wrong, *answers.words(wrong, "zh")[1:]):
        if guess not in chinese:
            assert _verdict(guess, worked, language, monkeypatch).startswith("🤔"), (where, question, guess)


def test_a_wrong_prediction_is_told_the_answer_in_the_readers_words(monkeypatch: pytest.MonkeyPatch) -> None:
    said = _verdict("接受", "rejected", "zh", monkeypatch)
    assert said == "🤔 与手算答案（拒绝 / rejected）不符：再读一遍"
    assert _verdict("accepted", "rejected", "en", monkeypatch) == (
        "🤔 not what the worked answer says ('rejected'): read it again"
    )


def test_a_word_two_answers_share_means_the_one_asked_for() -> None:
    """拒绝 is Lab 11.1's ``rejected`` and Lab 11.6's ``refused``."""
    assert answers.canonical("拒绝", "refused") == "refused"
    assert answers.canonical("拒绝", "rejected") == "rejected"
    assert answers.canonical("u2", "refused") == "u2"
