"""Submission-derived text made fit to show on a page: valid, bounded, without invisible tricks.

Everything a feedback page or the class report shows of a submission (its file
name, the student id taken from it, messages that quote the learner's
exceptions, counterexamples, notes) is hostile. The templates HTML-escape it
(Jinja2's autoescape); before that, ``shown`` makes it text a page can hold:

* lone surrogates (a file name that is not UTF-8 reaches Python as
  ``surrogateescape``; a kernel's JSON may carry ``"\\ud800"``) become U+FFFD,
  so writing the page never fails;
* control characters other than tab and newline, and the bidirectional
  overrides that can make ``gpj.exe`` read as ``exe.jpg``, are dropped;
* anything longer than ``limit`` is cut, and the cut says how much is left out
  (a 4 MB exception message costs one screenful, not a frozen browser).
"""

from __future__ import annotations

import re

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP, *CSV Injection*); the grades CSV prefixes ``'`` to it."""
INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
"""C0 controls but tab and newline, DEL, and the bidi embeddings, overrides and isolates."""


SURROGATE = re.compile("[\ud800-\udfff]")


def valid(text: str) -> str:
    """``text`` as valid Unicode: each lone surrogate replaced by U+FFFD."""
    return SURROGATE.sub("\ufffd", text)


def shown(text: object, limit: int) -> str:
    """``text`` cleaned as the module says and cut to at most ``limit`` characters (plus the note of the cut)."""
    clean = INVISIBLE.sub("", valid(str(text)))
    if len(clean) <= limit:
        return clean
    return f"{clean[:limit]}… ({len(clean) - limit:,} more characters not shown)"


def abbreviated(text: object, limit: int) -> str:
    """``text`` cleaned and cut to ``limit`` characters with a bare ``…`` (an axis label has no room for a note)."""
    clean = INVISIBLE.sub("", valid(str(text)))
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
