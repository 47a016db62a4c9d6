"""A learner's page can quote the inputs it was handed, and still gives no search a way to the term's secret (issue 43).

The red team's Lab 11.2 submission does its job and, on one hidden call, raises
an error holding the timestamps of the sessions it was handed; the page prints
them. Before, the pack's own generator found the term seed that drew them among
every date in a fraction of a second. Now what drew them is one stream of the
run, keyed by an HMAC of a 256-bit secret: the page holds neither the secret
nor any stream's seed, and no seed a person could have picked draws what it shows.
"""

from __future__ import annotations

import copy
import re
from datetime import date, timedelta

import pytest
from grading_corpus import grade_in_process, namespace, solution, tagged
from term_secrets import TERM

from course_grader.judging import secret
from course_grader.judging.draws import PURPOSES, covering_draw
from course_grader.publish.feedback_page import render_page
from course_lib.teaching.lab_registry import LABS

LEAK = """    message_entries = list(message_entries)
    if len(message_entries) > 12:
        raise RuntimeError("saw " + " ".join(str(e.timestamp) for e in message_entries[:4]))
"""
FIRST_LINE = "    groups: list[InteractionGroup] = []\n"


def leaking_page() -> str:
    """The submission graded under the term's secret, as its learner reads it."""
    notebook = copy.deepcopy(solution("11.2"))
    (cell,) = [c for c in tagged(notebook, "exercise") if FIRST_LINE in c.source]
    cell.source = cell.source.replace(FIRST_LINE, LEAK + FIRST_LINE, 1)
    result = grade_in_process("11.2", namespace("11.2", notebook), seed=TERM)
    assert result.seed == TERM and 0 < result.score < result.max_score
    return render_page(result)


def picked_seeds() -> list[int | str]:
    """Every seed a person picks: each date from 1990 to 2039 (``20261001``, ``2026-10-01``), and 0–99,999."""
    days = [date(1990, 1, 1) + timedelta(days=n) for n in range((date(2040, 1, 1) - date(1990, 1, 1)).days)]
    return [*range(100_000), *(int(day.strftime("%Y%m%d")) for day in days), *(day.isoformat() for day in days)]


@pytest.mark.slow  # the lab graded in process, and 136,000 seeds tried
def test_a_page_quoting_its_inputs_leads_no_search_to_the_secret() -> None:
    page = leaking_page()
    shown = [int(n) for n in re.findall(r"saw (\d+)", page)]
    assert shown, "the page quotes the learner's error: the channel the red team used is there"
    clock = shown[0] - 1  # the first failing case is the covering set's: its entries tick on from a drawn clock
    assert covering_draw(LABS["11.2"], TERM).clock() == clock  # the attack's step, right under the true secret
    assert TERM not in page and secret.derived(TERM, "gradescope 11.2") not in page
    for lab in LABS:
        for purpose in PURPOSES:
            assert str(secret.stream_seed(TERM, purpose, lab)) not in page
    found = [seed for seed in picked_seeds() if covering_draw(LABS["11.2"], seed).clock() == clock]
    assert found == [], f"seeds a person picks draw what the page shows: {found[:5]}"
