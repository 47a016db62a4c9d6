"""``course-grade feedback grades.jsonl … -o DIR``: a batch's feedback pages again, from its records.

Its options and output are ``publish/feedback.py``'s own: the pages a batch's
``--feedback DIR`` writes (``feedback_pages.py``), made from grades.jsonl.
"""

from __future__ import annotations

from ..publish.feedback import main as feedback_main


def main(argv: list[str]) -> int:
    return feedback_main(argv)
