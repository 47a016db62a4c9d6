"""What the instructor's page shows, from the runs alone (issue 46): counts, the rule to explain, who is stuck.

Runs are added to a room at chosen times, so "for 12 minutes" is exact. A stub's
"not implemented" counts as not started, never as a failure; the most-failed rule
counts each learner once; stuck is a check failing for N minutes or no run for M;
the projector's snapshot holds no name.
"""

from __future__ import annotations

import json

from course_lib.teaching.rules import BY_ID
from course_live.posts import Run, Verdict
from course_live.room import Room
from course_live.snapshot import View, snapshot

PASS, FAIL, STUB = "pass", "fail", "not implemented"
MINUTE = 60.0


def run(name: str, *statuses: tuple[str, tuple[str, ...]], lab: str = "11.3") -> Run:
    numbers = {"11.3": (7, 8, 9), "11.2": (4, 5, 6)}[lab]
    return Run(name, lab, "2026-05-04T09:30:00+00:00", tuple(Verdict(n, s, r) for n, (s, r) in zip(numbers, statuses)))


def room_of(*timed: tuple[float, Run]) -> Room:
    room = Room()
    for number, (at, posted) in enumerate(timed, 1):
        room.add(number, posted, at)
    return room


OK = (PASS, ("R20",))
R19 = (FAIL, ("R19",))
R17 = (FAIL, ("R17", "R22"))
NOT_YET = (STUB, ("R15",))


def test_counts_per_check_keep_stubs_apart_from_failures() -> None:
    room = room_of(
        (0, run("ada", OK, OK, OK)),
        (0, run("bob", OK, OK, R19)),
        (0, run("cy", NOT_YET, NOT_YET, NOT_YET)),
        (0, run("dee", OK, OK, OK, lab="11.2")),
    )
    shown = snapshot(room, "11.3", View(), now=MINUTE)
    counts = [(c["label"], c["pass"], c["fail"], c["not_started"]) for c in shown["checks"]]
    assert counts == [
        ("7 · fixed_costs_come_first", 2, 0, 2),
        ("8 · newest_group_alone_over_budget", 2, 0, 2),
        ("9 · trims_only_at_group_boundaries", 1, 1, 2),
    ]
    assert shown["summary"] == "learners: 4 · checklist runs: 4"
    assert [(lab["label"], lab["learners"], lab["current"]) for lab in shown["where"]] == [
        ("Lab 11.2", 1, False),
        ("Lab 11.3", 3, True),
    ]
    assert [row["name"] for row in shown["grid"]] == ["ada", "bob", "cy", "dee"]
    assert [cell["status"] for cell in shown["grid"][2]["cells"]] == [STUB] * 3


def test_the_most_failed_rule_counts_each_learner_once_with_its_statement_and_message() -> None:
    room = room_of(
        (0, run("ada", R17, OK, R19)),
        (1 * MINUTE, run("bob", OK, OK, R19)),
        (2 * MINUTE, run("cy", R17, OK, OK)),
        (3 * MINUTE, run("dee", OK, OK, R19)),
        (4 * MINUTE, run("eve", OK, OK, OK)),
    )
    rule = snapshot(room, "11.3", View(), now=12 * MINUTE)["top_rule"]
    assert rule["rule"] == "R19"  # ada, bob, dee (R17 and R22: ada and cy)
    assert rule["sentence"] == "failed by 3 of 5, for 12 min"
    assert rule["statement"] == BY_ID["R19"].text
    assert rule["message"] == "R19/R20: kept ids and reason at max_tokens=9"  # check 9: the first point citing R19


def test_a_tie_goes_to_the_rule_the_table_lists_first_and_nothing_failing_is_no_rule() -> None:
    room = room_of((0, run("ada", R17, OK, OK)), (0, run("bob", OK, OK, R19)))
    assert snapshot(room, "11.3", View(), now=0)["top_rule"]["rule"] == "R17"
    assert snapshot(room_of((0, run("ada", OK, OK, NOT_YET))), "11.3", View(), now=0)["top_rule"] is None


def test_stuck_is_one_check_failing_for_n_minutes_or_no_run_for_m() -> None:
    room = room_of(
        (0, run("ada", OK, OK, R19)),
        (3 * MINUTE, run("ada", OK, OK, (FAIL, ("R21",)))),  # still check 9 failing: the streak began at 0
        (0, run("bob", OK, OK, R19)),
        (4 * MINUTE, run("bob", OK, OK, OK)),  # fixed
        (6 * MINUTE, run("bob", OK, OK, R19)),  # failing again: a new streak
        (1 * MINUTE, run("cy", NOT_YET, NOT_YET, NOT_YET)),
    )
    view = View(stuck_after=5 * MINUTE, idle_after=8 * MINUTE)
    stuck = snapshot(room, "11.3", view, now=9 * MINUTE)["stuck"]
    assert stuck == [
        {"name": "ada", "why": "check 9 failing for 9 min"},
        {"name": "cy", "why": "no run for 8 min"},
    ]
    shorter = snapshot(room, "11.3", View(stuck_after=2 * MINUTE, idle_after=60 * MINUTE), now=9 * MINUTE)
    assert [learner["name"] for learner in shorter["stuck"]] == ["ada", "bob"]
    assert [row["stuck"] for row in shorter["grid"]] == [True, True, False]
    assert shorter["stuck_summary"] == "2 of 3"


def test_the_projector_gets_no_name_at_all() -> None:
    room = room_of((0, run("Ada Lovelace", OK, OK, R19)), (0, run("Bob", OK, OK, OK)))
    shown = snapshot(room, "11.3", View(stuck_after=0, names=False), now=MINUTE)
    assert shown["grid"] == [] and shown["stuck"] == [{"name": None, "why": "check 9 failing for 1 min"}]
    text = json.dumps(shown)
    assert "Ada" not in text and "Bob" not in text


def test_the_snapshot_speaks_the_pages_language() -> None:
    room = room_of((0, run("ada", OK, OK, R19)))
    shown = snapshot(room, "11.3", View(language="zh", stuck_after=0), now=2 * MINUTE)
    english = snapshot(room, "11.3", View(stuck_after=0), now=2 * MINUTE)
    for key in ("summary", "stuck_summary", "title"):
        assert shown[key] != english[key], key
    assert shown["top_rule"]["statement"] != english["top_rule"]["statement"]
    assert shown["top_rule"]["rule"] == "R19" and shown["stuck"][0]["why"] != english["stuck"][0]["why"]


def test_replaying_the_stored_runs_gives_the_same_room() -> None:
    timed = [(0.0, run("ada", OK, OK, R19)), (MINUTE, run("ada", OK, OK, R19)), (2 * MINUTE, run("bob", OK, OK, OK))]
    live = room_of(*timed)

    class Stored:
        def __init__(self, number: int, at: float, posted: Run) -> None:
            self.id, self.received, self.run = number, at, posted

    replayed = Room(Stored(n, at, posted) for n, (at, posted) in enumerate(timed, 1))  # type: ignore[misc]
    assert snapshot(replayed, "11.3", View(), 3 * MINUTE) == snapshot(live, "11.3", View(), 3 * MINUTE)
