"""The live lab server's messages in the instructor's language: its page, its picture and its command line.

Written once in English where they are used; ``course_live/locale/<locale>/LC_MESSAGES/course_live.po``
holds each language's translation, read as ``course_lib``'s catalogs are (``course_lib.teaching.i18n``).
A page is said in the language its address asks for (``?lang=zh``), else the browser's first choice
(``Accept-Language``), else English; every call names it, so two pages of one server may speak two languages.
"""

from __future__ import annotations

from pathlib import Path

from course_lib.teaching import i18n
from course_lib.teaching.i18n import Messages

DOMAIN = "course_live"
LOCALE_FOLDER = Path(__file__).resolve().parent / "locale"
MESSAGES = Messages(DOMAIN, LOCALE_FOLDER)


def page_language(asked: str | None, accept_language: str | None) -> str:
    """``asked`` when the course speaks it, else the first language of ``Accept-Language`` it speaks, else English."""
    for candidate in [asked or "", *(part.split(";")[0] for part in (accept_language or "").split(","))]:
        if not candidate.strip():
            continue
        try:
            return i18n.parse_language(candidate)
        except i18n.UnknownLanguageError:
            continue
    return i18n.DEFAULT
