"""A run's secret (``course_grader/judging/secret.py``, issue 43): never a number a person picks, each stream keyed apart.

What a learner's page can carry is in ``tests/grader/publish/test_page_secret.py``; the course file's ``seed``
and ``course-grade secret`` in ``tests/grader/cli/test_term_secret.py``.
"""

from __future__ import annotations

import json

import pytest
from term_secrets import OTHER, TERM

from course_grader.judging import secret
from course_grader.judging.draws import PURPOSES, stream
from course_grader.judging.hidden_cases import hidden_calls
from course_grader.judging.practice import practice_tests
from course_lib.teaching.lab_registry import LABS


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (20261001, "20261001 is a date a person picks"),
        ("20261001", "20261001 is a date a person picks"),
        ("2026-10-01", "2026-10-01 is a date a person picks"),
        (7312945862039117, "is a number a person picks"),
        ("course-chapter-11", "a secret of 17 characters is short enough to search for"),
        ("ab" * 20, "a secret of 2 different characters is not random"),
        ("-" + TERM, "a secret is written in letters, digits"),
        (3.5, "not float"),
    ],
)
def test_a_number_a_date_or_a_short_text_is_no_secret(value: object, says: str) -> None:
    assert says in (secret.weakness(value) or "")
    with pytest.raises(secret.WeakSecret, match=r"--seed: .*course-grade secret writes one"):
        secret.checked(value, "--seed")


def test_a_new_secret_is_strong_and_new_every_time() -> None:
    made = {secret.new_secret() for _ in range(20)}
    assert len(made) == 20 and all(secret.weakness(value) is None and len(value) == 64 for value in made)
    assert secret.weakness(TERM) is None and secret.weakness(OTHER) is None


def test_one_secret_draws_the_same_cases_anywhere_another_secret_other_ones() -> None:
    """``--seed`` regrades are exact: the same secret, the same calls; another secret, other calls."""

    def requests(seed: str | None) -> str:
        return json.dumps([call.request() for call in hidden_calls(LABS["11.3"], seed)])

    assert requests(TERM) == requests(TERM)
    assert requests(TERM) != requests(OTHER) and requests(TERM) != requests(None)


def test_each_stream_of_a_run_is_keyed_apart_by_lab_and_purpose() -> None:
    """A lab's drawn, covering and practice streams, and every other lab's, each an HMAC of the secret of its own.

    Before issue 43 the practice stream (whose cases a page shows whole) was the drawn cases' seed plus a
    constant, and each lab's seed the run's times 1000 plus the lab's: one stream found gave all the others.
    """
    seeds = {(lab, purpose): secret.stream_seed(TERM, purpose, lab) for lab in LABS for purpose in PURPOSES}
    assert len(set(seeds.values())) == len(seeds) and all(seed.bit_length() > 200 for seed in seeds.values())
    differences = {seeds[lab, "practice"] - seeds[lab, "hidden"] for lab in LABS}
    assert len(differences) == len(LABS)  # no offset ties one stream to another
    first = {purpose: stream(LABS["11.2"], TERM, purpose).random() for purpose in PURPOSES}
    assert len(set(first.values())) == len(PURPOSES)
    practice, hidden = practice_tests(LABS["11.2"], TERM), hidden_calls(LABS["11.2"], TERM)
    drawn = {json.dumps(c.request()) for c in hidden if c.request().get("path")}
    assert drawn.isdisjoint(json.dumps(c.request()) for t in practice for c in t.calls if c.request().get("path"))


def test_a_derived_secret_is_neither_the_term_s_nor_draws_its_cases() -> None:
    """A Gradescope bundle's secret (``bundle --course``): strong, its own, and not a way back to the term's."""
    derived = secret.derived(TERM, "gradescope 11.3")
    assert (
        secret.weakness(derived) is None and TERM not in derived and derived != secret.derived(OTHER, "gradescope 11.3")
    )
    assert derived != secret.derived(TERM, "gradescope 11.2")
    assert [c.request() for c in hidden_calls(LABS["11.3"], derived)] != [
        c.request() for c in hidden_calls(LABS["11.3"], TERM)
    ]
