"""A verdict is the same in every language: only its words change (issue 32).

Every mutant's every check is recorded once, as a learner's kernel records it
(the grader's run of the corpus, ``corpus_verdicts``), and judged twice, in
English and in Chinese. The status must be the same, a
failure must name the same rule, and a Chinese failure must be said in Chinese
(course_lib's catalog): a sentence left out of the catalog would show here as
English text in a Chinese verdict.
"""

from __future__ import annotations

import re

import corpus_verdicts as verdicts
import pytest
from latin_prose import english_sentences
from mutants import MUTANTS, Mutant

from course_lib.checklist.check import Implementation
from course_lib.checklist.grade_cell import failure_line
from course_lib.checklist.runner import judge_record, record_case, select, transported

CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
"""A CJK ideograph or a full-width punctuation mark: what every translated verdict frame holds."""


def _rule(message: str) -> str:
    return re.split(r"[:：]", message, maxsplit=1)[0]


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_mutant_gets_the_same_verdict_in_both_languages(mutant: Mutant) -> None:
    recorded = verdicts.records(mutant)
    for case in select(mutant.lab):
        record = recorded[case.number]
        english, chinese = judge_record(case, record, "en"), judge_record(case, record, "zh")
        assert chinese.status == english.status, case.name
        if english.status == "failed":
            assert _rule(chinese.message) == _rule(english.message), case.name
            assert CHINESE.search(chinese.message), f"check {case.number}: {chinese.message!r} is not Chinese"
        if english.status == "error" and chinese.message != english.message:
            assert CHINESE.search(chinese.message), f"check {case.number}: {chinese.message!r} is not Chinese"


def test_the_reference_passes_in_both_languages() -> None:
    for case in select():
        record = transported(record_case(case, Implementation()))
        assert judge_record(case, record, "en").status == judge_record(case, record, "zh").status == "passed"


def test_a_stub_says_it_is_not_implemented_in_the_readers_language() -> None:
    """Both editions share the stub's code, so its English sentence is translated where it is shown."""
    from course_lib.teaching import lab_registry

    english = lab_registry.STUB.format(label="Lab 11.3", function="build_context")
    assert lab_registry.spoken_stub(english, "en") == english
    assert lab_registry.spoken_stub(english, "zh") == "Lab 11.3 尚未实现：build_context"
    capstone = lab_registry.STUB.format(label="The capstone", function="should_compact")
    assert lab_registry.spoken_stub(capstone, "zh") == "综合练习 尚未实现：should_compact"
    assert lab_registry.spoken_stub("my own words", "zh") == "my own words"


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_line_a_check_says_of_a_mutant_is_chinese_in_chinese(mutant: Mutant) -> None:
    """Issue 45: no English sentence in a Chinese verdict, failing or passing, but code, ids, rule ids and values.

    What may stay Latin is stated in tests/latin_prose.py: a code span or a quoted value (the learner's text, an id,
    a repr, cut short or not), names of code, rule ids, numbers, and the message of an error the code raised after
    its type's name (the raising code's own words, docs/translating.md).
    """
    recorded = verdicts.records(mutant)
    for case in select(mutant.lab):
        said = judge_record(case, recorded[case.number], "zh")
        lines = [said.message, failure_line(said)]
        english = [found for line in lines for found in english_sentences(line)]
        assert not english, f"check {case.number}: {said.message!r} holds English prose {english}"


def test_a_stub_is_said_not_implemented_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 45: "⏳ 尚未实现：Lab 11.1 尚未实现：…" said it twice; the stub's own line says it (English:
    tests/lib/checklist/test_grade_cell.py)."""
    from course_lib.checklist.runner import CheckRecord
    from course_lib.teaching import lab_registry

    stub = lab_registry.STUB.format(label="Lab 11.1", function="parse_session_entry")
    monkeypatch.setenv("COURSE_LANG", "zh")
    record = CheckRecord(1, "11.1", "parses", "R1", "not implemented yet", lab_registry.spoken_stub(stub, "zh"))
    assert failure_line(record) == "检查 1 · parses：⏳ Lab 11.1 尚未实现：parse_session_entry"


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.says], ids=lambda m: m.name)
def test_a_mutant_is_told_its_cause_in_both_languages(mutant: Mutant) -> None:
    """Issue 45: the message names the cause (an input changed, the replay's part of the path, a cut point opening no
    group), failing with the rule and never crashing, in English and in Chinese (each mutant's ``says``)."""
    recorded = verdicts.records(mutant)
    cases = {case.number: case for case in select(mutant.lab)}
    for number, english, chinese in mutant.says:
        for language, start in (("en", english), ("zh", chinese)):
            said = judge_record(cases[number], recorded[number], language)
            assert said.status == "failed" and said.message.startswith(start), (number, language, said.message)
