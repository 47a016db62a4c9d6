"""The picture of the session (issue 46): how the room's pass rate per check moved, an SVG the server draws."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from live_app import BEARER, client, run, verdicts

from course_live import picture
from course_live.posts import Run, Verdict
from course_live.store import StoredRun

SVG = "{http://www.w3.org/2000/svg}"


def stored(number: int, at: float, name: str, *statuses: str, lab: str = "11.3") -> StoredRun:
    checks = (7, 8, 9) if lab == "11.3" else (4, 5, 6)
    return StoredRun(number, at, Run(name, lab, "t", tuple(Verdict(c, s, ()) for c, s in zip(checks, statuses))))


def test_the_pass_rate_after_each_run_counts_each_learners_latest_verdict() -> None:
    runs = [
        stored(1, 100.0, "ada", "pass", "fail", "not implemented"),
        stored(2, 130.0, "bob", "fail", "fail", "fail"),
        stored(3, 150.0, "cy", "pass", "pass", "pass", lab="11.2"),  # another lab: not in this picture
        stored(4, 190.0, "bob", "pass", "fail", "pass"),
        stored(5, 220.0, "ada", "pass", "pass", "pass"),
    ]
    times, rates = picture.pass_rates(runs, "11.3")
    assert times == [0.0, 30.0, 90.0, 120.0]
    assert rates == {7: [1.0, 0.5, 1.0, 1.0], 8: [0.0, 0.0, 0.0, 0.5], 9: [0.0, 0.0, 0.5, 1.0]}


def test_the_picture_is_an_svg_with_a_line_and_a_legend_per_check(tmp_path: Path) -> None:
    with client(tmp_path / "s.sqlite") as (http, _):
        http.post("/api/runs", json=run("ada", checks=verdicts(("fail", ["R17"]), ("pass", []), ("pass", []))))
        http.post("/api/runs", json=run("ada"))
        answer = http.get("/pass-rate.svg?lang=zh", headers=BEARER)
        empty = picture.svg([], "11.3", "en")
    assert answer.headers["content-type"].startswith("image/svg+xml")
    drawn = ET.fromstring(answer.text)
    assert len(drawn.findall(f"{SVG}polyline")) == 3
    legend = [text.text for text in drawn.iter(f"{SVG}text")]
    assert {"7 · fixed_costs_come_first", "8 · newest_group_alone_over_budget"} <= set(legend)
    assert "ada" not in answer.text
    assert "no runs yet" in [text.text for text in ET.fromstring(empty).iter(f"{SVG}text")]


def test_a_long_session_is_thinned_to_a_few_hundred_points() -> None:
    runs = [stored(n, float(n), f"l{n % 40}", "pass", "fail", "pass") for n in range(1, 5001)]
    drawn = ET.fromstring(picture.svg(runs, "11.3", "en"))
    lines = drawn.findall(f"{SVG}polyline")
    assert all(len(line.attrib["points"].split()) <= picture.MAX_POINTS + 1 for line in lines)
