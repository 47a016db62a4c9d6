"""The instructor's page and the projector's, as HTML the server writes in the page's language (issue 46).

The page is a frame: its headings and labels (``WORDS``) are said here, through the
catalogs; what changes comes from the feed (``events.py``, ``snapshot.py``) and is
placed by ``static/live.js`` as text. No inline script or style (the server sends a
strict CSP, ``app.py``), every value escaped. The projector's page is the same frame
without the grid and asks the feed for no names. ``N`` and ``M`` (minutes before a
learner counts as stuck, or idle) are the page's own: a form sets them in its address.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import urlencode

from course_lib.teaching import i18n
from course_lib.teaching.i18n import message

from .messages import MESSAGES

LANGUAGE_NAMES = {"en": "English", "zh": "中文"}
WORDS = {
    "title": message("Live lab"),
    "instructor": message("Instructor's view"),
    "projector": message("Projector view (no names)"),
    "export": message("Export (CSV)"),
    "where": message("Where the room is"),
    "checks": message("Checks"),
    "check": message("check"),
    "pass": message("pass"),
    "fail": message("fail"),
    "not started": message("not started"),
    "rule": message("The rule to explain next"),
    "no rule": message("No check fails right now."),
    "learners read": message("What learners read:"),
    "stuck": message("Stuck"),
    "N": message("a check failing for N minutes:"),
    "M": message("no run for M minutes:"),
    "apply": message("apply"),
    "grid": message("Learners × checks"),
    "learner": message("learner"),
    "picture": message("The pass rate over the session"),
    "picture text": message("the pass rate of each check over the session"),
    "connecting": message("connecting…"),
    "reconnecting": message("reconnecting…"),
}
"""The frame's words, in English; each page says them in its language."""


@dataclass(frozen=True)
class PageAddress:
    """What a page's links carry along: the token (when it came in the address), the language, N and M."""

    token: str | None
    language: str
    stuck_minutes: float
    idle_minutes: float

    def query(self, **extra: str) -> str:
        values = {"lang": self.language, "stuck": f"{self.stuck_minutes:g}", "idle": f"{self.idle_minutes:g}"}
        if self.token:
            values["token"] = self.token
        return escape(urlencode({**values, **extra}))


def page(address: PageAddress, *, projector: bool) -> str:
    language = address.language
    w = {key: escape(MESSAGES(text, language)) for key, text in WORDS.items()}
    switches = " ".join(
        f'<a href="?{address.query(lang=code)}" lang="{code}">{LANGUAGE_NAMES[code]}</a>'
        for code in i18n.LANGUAGES
        if code != language
    )
    other = f'<a href="./?{address.query()}">{w["instructor"]}</a>' if projector else (
        f'<a href="projector?{address.query()}">{w["projector"]}</a>'
    )  # fmt: skip
    grid = "" if projector else (
        f'<section><h2>{w["grid"]}</h2><table id="grid"><thead><tr id="grid-head"><th>{w["learner"]}</th></tr>'
        "</thead><tbody></tbody></table></section>"
    )  # fmt: skip
    token = f'<input type="hidden" name="token" value="{escape(address.token)}">' if address.token else ""
    return f"""<!doctype html>
<html lang="{language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{w["title"]}</title>
<link rel="icon" href="static/icon.svg"><link rel="stylesheet" href="static/live.css">
<script src="static/live.js" defer></script></head>
<body class="{"projector" if projector else "instructor"}" data-feed="events?{address.query(names="0" if projector else "1")}"
 data-picture="pass-rate.svg?{address.query()}" data-offline="{w["reconnecting"]}">
<header><h1 id="title">{w["title"]}</h1><p id="summary"></p>
<nav>{other} · <a href="export.csv?{address.query()}">{w["export"]}</a> · {switches}</nav></header>
<main>
<section><h2>{w["where"]}</h2><ul id="where"></ul></section>
<section><h2>{w["checks"]}</h2><table id="checks"><thead><tr><th>{w["check"]}</th><th>{w["pass"]}</th>
<th>{w["fail"]}</th><th>{w["not started"]}</th><th></th></tr></thead><tbody></tbody></table></section>
<section id="rule-box"><h2>{w["rule"]}</h2><p id="no-rule">{w["no rule"]}</p>
<div id="rule" hidden><p><strong id="rule-id"></strong> · <span id="rule-sentence"></span></p>
<blockquote id="rule-statement"></blockquote><p>{w["learners read"]} <code id="rule-message"></code></p></div>
</section>
<section><h2>{w["stuck"]}: <span id="stuck-summary"></span></h2>
<form method="get" id="thresholds">{token}<input type="hidden" name="lang" value="{language}">
<label>{w["N"]} <input name="stuck" type="number" min="0" step="any" value="{address.stuck_minutes:g}"></label>
<label>{w["M"]} <input name="idle" type="number" min="0" step="any" value="{address.idle_minutes:g}"></label>
<button type="submit">{w["apply"]}</button></form>
<ul id="stuck"></ul></section>
{grid}
<section><h2>{w["picture"]}</h2><img id="picture" alt="{w["picture text"]}"></section>
</main>
<footer><p id="status">{w["connecting"]}</p></footer>
</body></html>
"""
