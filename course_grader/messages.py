"""The grader's own messages in the run's language (issue 32): its pages, its class report, its score explanations.

A run speaks the course file's ``language`` (English without one), whatever the
instructor's locale: every call names it, ``MESSAGES("…", language)``, so two runs
of one process (a test, a term's regrades) may speak two languages. The catalog is
``course_grader/locale/<locale>/LC_MESSAGES/course_grader.po``, read as
``course_lib``'s is (``course_lib.teaching.i18n``); the templates' text is in it too
(``publish/pages.py`` installs it in Jinja's i18n extension). A sentence with values
is translated first and formatted after, ``MESSAGES("{passed}/{total} tests passed",
language).format(...)``; code, identifiers, rule ids, statuses and numbers are never
messages.
"""

from __future__ import annotations

from pathlib import Path

from course_lib.teaching.i18n import Messages

DOMAIN = "course_grader"
LOCALE_FOLDER = Path(__file__).resolve().parent / "locale"
MESSAGES = Messages(DOMAIN, LOCALE_FOLDER)
"""``course_grader``'s messages: always called with the run's language (``Course.language``)."""
